// What this phone knows and what it has still to send: the server's last answer and an
// outbox of changes, both kept in localStorage, sent in order by one tab at a time and
// retried until the server answers. The protocol, and what the page says in each case,
// is docs/sync.md; this file follows it, with changes.js (the changes as data), api.js
// (the requests) and sender.js (which tab sends).
import { fold } from "./standing.js";
import { merge, newId, nextSave, parse, request, STORE, uidOf } from "./changes.js";
import { call, Gone, Refused, Unreachable } from "./api.js";
import { asTheSender, whileNoneSends } from "./sender.js";

// {match, rules, outbox: [change], ids: {uid: id}, version, gone: [id]}
export let state;
// What the page shows of the outbox: set by the page (draw the match, name a refused
// change, say that an error of the page's own happened, ask about a deal another phone
// overtook, fetch the blank counter).
export const show = { draw() {}, refused() {}, failed() {}, overtaken() {}, async blank() {} };
// An error of the page's own: in a tap (until the player's next change) or in sending
// (until the outbox has gone through). Never taken for a bad line.
export const trouble = { tap: null, sync: null };

let sending = false;
let retryDelay = 1000;
let retryTimer = null;

export function load(page, fresh) {
  const saved = parse(localStorage.getItem(STORE));
  // A page the server has just drawn is its truth; the service worker's copy, opened
  // offline, is older than what this phone saw last. But a page drawn with no match, for
  // a phone that holds one, may have been drawn before the phone's first tap was in (a
  // reload right after it): what the phone holds is shown, and the server asked at once.
  const match = fresh && (page.match.id || !saved?.match?.id) ? page.match : (saved?.match ?? page.match);
  // Changes kept by an earlier version of this page have no id yet.
  const outbox = (saved?.outbox ?? []).map((change) => ({ id: newId(), ...change }));
  state = { ...page, match, outbox, ids: saved?.ids ?? {}, version: saved?.version ?? 0, gone: saved?.gone ?? [] };
  save();
}

// What another tab of this browser may have changed since: every change of what is stored
// rereads it first and saves at once; what a save from an older copy lost is put back,
// what was taken out stays out (merge). `before` and `written`: from a storage event.
export function reread(before = state && { ...state }, written = null) {
  const saved = parse(localStorage.getItem(STORE));
  if (!saved) return; // nothing stored: this tab's own state stands
  if (!merge(state, before, saved, written)) return;
  save();
  flush();
}

export function save() {
  const kept = nextSave(state);
  try {
    localStorage.setItem(STORE, JSON.stringify(kept));
  } catch {
    /* full: memory only */
  }
}

// Changes answered, refused, withdrawn or dropped leave the outbox, and are kept as gone.
export function takeOut(leaves) {
  for (const change of state.outbox) if (leaves(change)) state.gone.push(change.id);
  state.outbox = state.outbox.filter((change) => !leaves(change));
}

export const view = () => fold(state.match, state.outbox, state.rules);
export const isSending = () => sending;

// Each change carries what the player tapped, in words (`label`): a refusal names it; and
// `v`, the version of the save that adds it (reread).
export function enqueue(change) {
  trouble.tap = null;
  reread(); // another tab may be sending: add to what is stored, not to an older copy
  state.outbox.push({ ...change, id: newId(), v: state.version + 1 });
  save();
  show.draw();
  flush();
}

// A deal never sent (by any tab) leaves the outbox, and nothing travels; false if it was,
// or if another tab sends now: it marks a change tried before sending it, and that mark
// may not be here yet.
export async function withdraw(requestId) {
  const taken = await whileNoneSends(() => {
    reread();
    const last = state.outbox.at(-1);
    if (!last || last.kind !== "deal" || last.request_id !== requestId || last.tried) return false;
    takeOut((change) => change === last);
    save();
    show.draw();
    return true;
  });
  return taken === true;
}

// Changes to a match not started yet on the server start it first, with what the screen shows.
export function matchUid() {
  const shown = view();
  if (shown.uid) return shown.uid;
  const uid = newId();
  enqueue({
    kind: "start",
    uid,
    game: shown.game,
    target: shown.target,
    first_dealer: shown.first_dealer,
    players: shown.players.map((player) => player.name),
    rules: shown.rules,
  });
  return uid;
}

// --- sending --------------------------------------------------------------------------------------

function answered(change, match) {
  if (match && typeof match.uid !== "string") throw new TypeError("the answer holds no match");
  done(change);
  if (match) {
    state.ids[match.uid] = match.id;
    // The server's truth for that match, deals from another phone included.
    if (change.kind === "start" || !state.match.uid || match.uid === state.match.uid) state.match = match;
  }
  save();
}

// A change the server has answered leaves the stored outbox, whatever another tab added.
function done(change) {
  reread();
  takeOut((each) => each.id === change.id);
}

function refused(change, error) {
  done(change);
  const uid = uidOf(change);
  if (error instanceof Gone || change.kind === "start") {
    // The match was deleted, or never started: nothing more can go to it.
    takeOut((each) => each.match === uid);
  }
  save();
  show.refused(change, error);
}

// When deals of another phone last arrived, and how many the match had before and after
// them: a tap within 10 s, with nothing recorded here since, may be the same deal, tapped
// on both phones, for the same player or (a disagreement at the table) another. It is
// sent as if they had not come yet, and the server asks (docs/sync.md).
let lately = { until: 0 };
export const knownBefore = (known) =>
  performance.now() < lately.until && lately.after === known ? lately.before : known;

// The match as another phone left it, pushed by the server (live.js): shown when nothing
// of this phone's is waiting to go (then the answers bring it), and so the deals it has
// beyond what this phone holds are another phone's (any tab's own are in what is stored).
// An older state than the one shown (a stream's first read, overtaken by an answer) is
// not: played before it, or in the same second (`played_at`) with fewer deals.
export function arrived(match) {
  reread();
  const known = state.match.deals.length;
  const { played_at } = state.match;
  if (
    state.outbox.length ||
    match.uid !== state.match.uid ||
    match.played_at < played_at ||
    (match.played_at === played_at && match.deals.length < known)
  ) {
    return;
  }
  if (match.deals.length > known) {
    lately = {
      until: performance.now() + 10000,
      before: known,
      after: match.deals.length,
    };
  }
  state.match = match;
  save();
  show.draw();
}

// An error of the page's own: logged, kept where the status line looks, and shown.
export function fail(error) {
  console.error(error);
  trouble[sending ? "sync" : "tap"] = error?.message ?? String(error);
  show.failed();
}

// Another tab holds the lease: this one sends once it would have expired, should that tab
// be closed meanwhile.
const afterTheLease = (expires) => {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(flush, expires);
};

export const flush = () => asTheSender(flushNow, afterTheLease).catch(fail);
// Back online, back on screen, or just opened: send what waits, then look at the server.
export const wakeUp = () => {
  retryDelay = 1000;
  asTheSender(async () => {
    await flushNow();
    await refresh();
    show.draw();
  }, afterTheLease).catch(fail);
};

async function flushNow() {
  if (sending) return;
  reread();
  if (!state.outbox.length) return;
  sending = true;
  clearTimeout(retryTimer);
  try {
    for (;;) {
      reread();
      const change = state.outbox[0];
      if (!change) break;
      if (change.ask) {
        show.overtaken(change, change); // it waits for its player's answer
        break;
      }
      change.tried = true; // on its way: Undo can no longer take it back unsent
      save();
      let answer;
      try {
        answer = await call(...request(change, state));
      } catch (error) {
        if (!(error instanceof Refused || error instanceof Gone)) throw error;
        // Another phone recorded or undid a deal first: its player is asked (other-phone.js).
        if (error.cause?.match) {
          show.overtaken(change, error.cause);
          break;
        }
        refused(change, error);
        await refresh();
        continue;
      }
      answered(change, answer);
      retryDelay = 1000;
      show.draw();
    }
    trouble.sync = null;
  } catch (error) {
    // No network, or the server is busy: try again later, each time waiting longer.
    if (!(error instanceof Unreachable)) fail(error);
    retryTimer = setTimeout(flush, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 30000);
  } finally {
    sending = false;
    show.draw();
  }
}

// The server's truth, when nothing is waiting to go: the match on the screen, wherever it
// was played (another phone with the same matches included); once it is deleted, a blank
// match (what the server shows a new browser).
async function refresh() {
  if (state.outbox.length || !state.match.id) return;
  const { version } = state;
  let answer;
  try {
    answer = await call("GET", `/api/matches/${state.match.id}`);
  } catch (error) {
    if (error instanceof Unreachable) return; // what this phone has stands
    if (!(error instanceof Gone)) throw error;
    // No match left here: the counter the server shows then (unless offline again).
    answer = await show.blank().catch(() => null);
    if (!answer) return;
  }
  reread();
  if (state.version !== version || state.outbox.length) return; // older than what came since
  state.match = answer;
  save();
}
