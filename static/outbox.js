// What this phone knows and what it has still to send: the server's last answer and an
// outbox of changes, both kept in localStorage, sent in order by one tab at a time and
// retried until the server answers. The protocol, and what the page says in each case,
// is docs/sync.md; this file follows it.
import { fold } from "./standing.js";

export const STORE = "santase-counter";
// 128 random bits as 32 hex digits. crypto.getRandomValues works on every page;
// crypto.randomUUID only in a secure context, which http://<LAN address> is not.
export const newId = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
const uidOf = (change) => change.match ?? change.uid; // the match of a change (a start's own)
export const parse = (value) => {
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
};

// {match, rules, outbox: [change], ids: {uid: id}, version, gone: [id]}
export let state;
// How many ids of changes taken out a save keeps (`gone`): enough for the moment it takes
// a browser to hand one tab's save to another.
const GONE_KEPT = 64;
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
// rereads it first and saves at once. A save no newer than `before` (this tab's last copy,
// or what a storage event says was there before `written`) was made from an older copy:
// the changes added after the one it read, gone from it, were lost; they go back. A change
// taken out (`gone`, in any of them) stays out, should a copy older than that still hold
// it (docs/sync.md).
export function reread(before = state && { ...state }, written = null) {
  const saved = parse(localStorage.getItem(STORE));
  if (!saved) return; // nothing stored: this tab's own state stands
  // Every id this tab, the copy before and the stored one know of, the stored (newest) last:
  // those are kept when a save keeps 64.
  const gone = new Set([...(state?.gone ?? []), ...(before?.gone ?? [])]);
  for (const id of saved.gone ?? []) {
    gone.delete(id);
    gone.add(id);
  }
  const outbox = saved.outbox.filter((change) => !gone.has(change.id));
  Object.assign(state, { match: saved.match, outbox, ids: saved.ids, version: saved.version, gone: [...gone] });
  for (const change of outbox) gone.add(change.id); // neither lost nor to be put back
  const after = written ?? saved;
  const lost =
    !before?.outbox || !after.outbox || after.version > before.version
      ? []
      : before.outbox.filter((change) => change.v >= after.version && !gone.has(change.id));
  if (!lost.length && outbox.length === saved.outbox.length) return; // nothing put back, nothing taken out again
  for (const uid of lost.map(uidOf)) state.ids[uid] ??= before.ids?.[uid];
  state.outbox.push(...lost.map((change) => ({ ...change, v: state.version + 1 }))); // added by this save
  save();
  flush();
}

export function save() {
  state.version = (state.version ?? 0) + 1; // tells an answer asked for before it is old
  const { match, outbox, version } = state;
  const gone = (state.gone = state.gone.slice(-GONE_KEPT));
  const ids = {}; // the ids still needed: those of matches with changes waiting
  for (const uid of outbox.map(uidOf)) if (state.ids[uid]) ids[uid] = state.ids[uid];
  state.ids = ids;
  try {
    localStorage.setItem(STORE, JSON.stringify({ match, outbox, ids, version, gone }));
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
    target: shown.target,
    first_dealer: shown.first_dealer,
    players: shown.players.map((player) => player.name),
    rules: shown.rules,
  });
  return uid;
}

// --- sending --------------------------------------------------------------------------------------

// The counter said no: the change is dropped and named (`cause`: what the server said).
class Refused extends Error {}
export class Gone extends Error {} // the match is no longer there
class Unreachable extends Error {} // no answer from the counter: the change waits its turn

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  }).catch((error) => {
    throw new Unreachable(error.message); // offline, or the connection broke
  });
  if (response.status === 204) return null;
  const answer = await response.json().catch(() => undefined);
  if (response.ok && answer !== undefined) return answer;
  // A busy server or database, too many requests, or an answer that is not the counter's
  // (a proxy's timeout, a Wi-Fi login page): the change waits its turn.
  if (response.ok || response.status >= 500 || response.status === 429 || answer?.error === undefined) {
    throw new Unreachable(answer?.error ?? response.statusText);
  }
  throw new (response.status === 404 ? Gone : Refused)(answer.error, { cause: answer });
}

function request(change) {
  const id = state.ids[uidOf(change)] ?? (state.match.uid === change.match ? state.match.id : null);
  const match = `/api/matches/${id}`;
  switch (change.kind) {
    case "start": {
      const { uid, target, players, rules, first_dealer } = change;
      return ["POST", "/api/matches", { uid, target, players, rules, first_dealer }];
    }
    case "deal": {
      const { player, outcome, request_id, after } = change;
      return ["POST", `${match}/deals`, { player, outcome, request_id, after }];
    }
    case "undo": {
      const which = change.request_id
        ? `request_id=${encodeURIComponent(change.request_id)}`
        : `number=${change.number}`;
      return ["DELETE", `${match}/deals/last?${which}`];
    }
    default: {
      const body = {};
      for (const name of ["target", "players", "rules", "first_dealer", "play_on"])
        if (change[name] !== undefined) body[name] = change[name];
      return ["PATCH", match, body];
    }
  }
}

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

// When deals of another phone last arrived, how many the match had before and after them,
// and whose the last was: a tap for that player within 10 s, with nothing recorded here
// since, may be the same deal, tapped on both phones. It is sent as if they had not come
// yet, and the server asks (docs/sync.md).
let lately = { until: 0 };
export const knownBefore = (seat, known) =>
  performance.now() < lately.until && lately.player === seat && lately.after === known ? lately.before : known;

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
  )
    return;
  if (match.deals.length > known)
    lately = {
      until: performance.now() + 10000,
      before: known,
      after: match.deals.length,
      player: match.deals.at(-1).player,
    };
  state.match = match;
  save();
  show.draw();
}

// One tab of this browser sends at a time, from what is stored; the others show it. Web
// Locks choose it; over plain http, where there are none, a lease does (plain-http.js).
let sender = null; // the lease, once loaded
const theLease = () =>
  (sender ??= import("./plain-http.js").then((module) => module.lease(`${STORE}-sender`, newId())));

let holding = 0; // this tab's tasks under the lock (the lease counts its own)
const holdingTheLock = async (task) => {
  holding += 1;
  try {
    return await task();
  } finally {
    holding -= 1;
  }
};

async function asTheSender(task) {
  if (navigator.locks) return navigator.locks.request(STORE, () => holdingTheLock(task));
  const lease = await theLease();
  return lease.whileHeld(task, () => {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(flush, lease.expires); // should the sending tab be closed meanwhile
  });
}

// `task` while no other tab sends, and none starts to; null if one does, or if that cannot
// be known (no lease to be had: offline over plain http, before plain-http.js came).
async function whileNoneSends(task) {
  if (holding) return task(); // this tab holds the lock, and rereads before it sends the next
  let ran = false;
  const run = () => {
    ran = true;
    return task();
  };
  try {
    if (navigator.locks)
      return await navigator.locks.request(STORE, { ifAvailable: true }, (lock) => (lock ? run() : null));
    return await (await theLease()).whileHeld(run, () => null);
  } catch (error) {
    if (ran) throw error;
    return null;
  }
}

// An error of the page's own: logged, kept where the status line looks, and shown.
export function fail(error) {
  console.error(error);
  trouble[sending ? "sync" : "tap"] = error?.message ?? String(error);
  show.failed();
}

export const flush = () => asTheSender(flushNow).catch(fail);
// Back online, back on screen, or just opened: send what waits, then look at the server.
export const wakeUp = () => {
  retryDelay = 1000;
  asTheSender(async () => {
    await flushNow();
    await refresh();
    show.draw();
  }).catch(fail);
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
        answer = await call(...request(change));
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
