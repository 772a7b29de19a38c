// What this phone knows and what it has still to send: the server's last answer and an
// outbox of changes, kept in the browser's store, sent in order by one tab at a time and
// retried until the server answers, as docs/sync.md says.
import { fold } from "./standing.js";
import * as changes from "./changes.js";
import { newId, parse, request, STORE } from "./changes.js";
import { call, Gone, Refused, Unreachable } from "./api.js";
import { asTheSender } from "./sender.js";
import * as store from "./store.js";

// The page's data, with the stored record {match, outbox, ids, version} as this tab last
// read or wrote it and this tab's changes still on their way to the store applied to it
// (a tap never waits).
export let state;
let stored;
const pending = [];
// Set by the page.
export const show = { draw() {}, refused() {}, failed() {}, overtaken() {}, async blank() {} };
// An error of the page's own, in a tap (until the player's next change) or in sending
// (until the outbox has gone through): never taken for a bad line.
export const trouble = { tap: null, sync: null };

let sending = false;
let retryDelay = 1000;
let retryTimer = null;

// True if this tab's copy changed.
function recompute() {
  const copy = structuredClone(stored);
  for (const change of pending) change(copy);
  const changed = JSON.stringify([copy.match, copy.outbox]) !== JSON.stringify([state.match, state.outbox]);
  Object.assign(state, copy);
  return changed;
}

// `change(saved)` made on this tab's copy at once, and in the store in the order of the
// calls: resolves with what it returned there, on what was stored then.
export function update(change) {
  pending.push(change);
  if (recompute()) show.draw();
  let result;
  const stores = store.write(
    (saved) => {
      const before = JSON.stringify(saved);
      result = change(saved);
      if (JSON.stringify(saved) === before) return false; // nothing to store or tell
      changes.kept(saved);
      return true;
    },
    () => ({ ...stored, version: 0 }),
  );
  const settled = () => pending.splice(pending.indexOf(change), 1);
  return stores.then(
    (saved) => {
      settled();
      if (saved.version >= stored.version) stored = saved;
      if (recompute()) show.draw();
      return result;
    },
    (error) => {
      settled();
      if (recompute()) show.draw();
      throw error;
    },
  );
}

store.onChange(async () => {
  const saved = stored && (await store.read());
  if (!saved || saved.version <= stored.version) return;
  stored = saved;
  if (recompute() && !sending) show.draw();
});

export function load(page, fresh) {
  // What an earlier version of this page kept, the first time this one opens.
  const before = parse(localStorage.getItem(STORE));
  const { match = page.match, outbox = [], ids = {} } = before ?? {};
  stored = { match, outbox: outbox.map((change) => ({ id: newId(), ...change })), ids, version: 0 };
  state = { ...page, ...structuredClone(stored) };
  // A page the server has just drawn is its truth; the service worker's copy, opened
  // offline, is older than what this phone saw last. But a page drawn with no match, for
  // a phone that holds one, may have been drawn before the phone's first tap was in (a
  // reload right after it): what the phone holds is shown, and the server asked at once.
  update((saved) => {
    if (fresh && (page.match.id || !saved.match?.id)) saved.match = page.match;
  })
    .then(() => {
      if (before) localStorage.removeItem(STORE);
    })
    .catch(fail)
    .finally(() => show.draw()); // the first draw: nothing is said to be saved before it
}

export const view = () => fold(state.match, state.outbox, state.rules);

// A change the player made, with what was tapped in words (`label`) for a refusal to name.
export function enqueue(change) {
  trouble.tap = null;
  const added = { ...change, id: newId() };
  update((saved) => {
    saved.outbox.push({ ...added });
  }).then(flush, fail);
}

// A deal no tab has tried to send leaves the outbox, and nothing travels.
export function undo(change) {
  trouble.tap = null;
  const added = { ...change, id: newId() };
  update((saved) => changes.undoLast(saved, { ...added })).then(flush, fail);
}

// A match not started yet on the server starts first, as the screen shows it.
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

// When deals of another phone last arrived, and how many the match had before and after
// them: a tap within 10 s, with nothing recorded here since, may be the same deal, tapped
// on both phones, for the same player or (a disagreement at the table) another. It is
// sent as if they had not come yet, and the server asks (docs/sync.md).
let lately = { until: 0 };
export const knownBefore = (known) =>
  performance.now() < lately.until && lately.after === known ? lately.before : known;

// The match as another phone left it, pushed by the server.
export async function arrived(match) {
  const counts = await update((saved) => changes.arrival(saved, match));
  if (counts && counts.after > counts.before) lately = { until: performance.now() + 10000, ...counts };
}

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
  sending = true;
  clearTimeout(retryTimer);
  try {
    for (;;) {
      const change = await update(changes.next);
      if (!change) break;
      if (change.ask) {
        show.overtaken(change, change); // it waits for its player's answer
        break;
      }
      let answer;
      try {
        answer = await call(...request(change, state));
      } catch (error) {
        if (!(error instanceof Refused || error instanceof Gone)) throw error;
        // Another phone recorded or undid a deal first: the player is asked.
        if (error.cause?.match) {
          show.overtaken(change, error.cause);
          break;
        }
        // The match was deleted, or never started: nothing more can go to it (a correction's
        // 404 may be its deal's alone, taken back by another phone).
        const all = (error instanceof Gone && change.kind !== "correct") || change.kind === "start";
        await update((saved) => changes.refused(saved, change, all));
        show.refused(change, error);
        await refresh();
        continue;
      }
      if (answer && typeof answer.uid !== "string") throw new TypeError("the answer holds no match");
      await update((saved) => changes.answered(saved, change, answer));
      retryDelay = 1000;
      show.draw();
    }
    trouble.sync = null;
  } catch (error) {
    if (!(error instanceof Unreachable)) fail(error);
    retryTimer = setTimeout(flush, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 30000);
  } finally {
    sending = false;
    show.draw();
  }
}

// The server's truth, when nothing is waiting to go; once the match is deleted, the blank
// counter the server shows a new browser.
async function refresh() {
  if (state.outbox.length || !state.match.id || pending.length) return;
  const { version } = stored;
  let answer;
  try {
    answer = await call("GET", `/api/matches/${state.match.id}`);
  } catch (error) {
    if (error instanceof Unreachable) return; // what this phone has stands
    if (!(error instanceof Gone)) throw error;
    answer = await show.blank().catch(() => null);
    if (!answer) return;
  }
  // Older than what came since, if anything was stored meanwhile.
  await update((saved) => {
    if (saved.version === version && !saved.outbox.length) saved.match = answer;
  });
}
