// The outbox's changes as data: their ids, what a save keeps, the merge of another tab's
// save, and the request each change makes (docs/sync.md). No DOM, storage or network
// here, so that Node's tests import it as it is (tests/js/).

export const STORE = "santase-counter";
// How many ids of changes taken out a save keeps (`gone`): enough for the moment it takes
// a browser to hand one tab's save to another.
const GONE_KEPT = 64;

// 128 random bits as 32 hex digits. crypto.getRandomValues works on every page;
// crypto.randomUUID only in a secure context, which http://<LAN address> is not.
export const newId = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
export const uidOf = (change) => change.match ?? change.uid; // the match of a change (a start's own)
export const parse = (value) => {
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
};

// The next save of `state`: its version counted up (which tells an answer asked for before
// it is old), the ids of the last GONE_KEPT changes taken out, and the ids still needed,
// those of matches with changes waiting. Returns what is stored.
export function nextSave(state) {
  state.version = (state.version ?? 0) + 1;
  const { match, outbox, version } = state;
  const gone = (state.gone = state.gone.slice(-GONE_KEPT));
  const ids = {};
  for (const uid of outbox.map(uidOf)) if (state.ids[uid]) ids[uid] = state.ids[uid];
  state.ids = ids;
  return { match, outbox, ids, version, gone };
}

// `state` after it reads what is stored (`saved`). A save no newer than `before` (this
// tab's last copy, or what a storage event says was there before `written`) was made from
// an older copy: the changes added after the one it read, gone from it, were lost; they go
// back. A change taken out (`gone`, in any of them) stays out, should a copy older than
// that still hold it. True if `state` now differs from what is stored: to be saved.
export function merge(state, before, saved, written = null) {
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
  if (!lost.length && outbox.length === saved.outbox.length) return false; // nothing put back or taken out again
  for (const uid of lost.map(uidOf)) state.ids[uid] ??= before.ids?.[uid];
  state.outbox.push(...lost.map((change) => ({ ...change, v: state.version + 1 }))); // added by the next save
  return true;
}

// The API call that sends `change`: [method, path, body]. A match's id is in `state.ids`
// once its start is answered, or is the id of the match on the screen.
export function request(change, state) {
  const id = state.ids[uidOf(change)] ?? (state.match.uid === change.match ? state.match.id : null);
  const match = `/api/matches/${id}`;
  switch (change.kind) {
    case "start": {
      const { uid, game, target, players, rules, first_dealer } = change;
      const chosen = game === undefined ? {} : { game }; // else the server's: the last match's
      return ["POST", "/api/matches", { uid, ...chosen, target, players, rules, first_dealer }];
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
    case "correct": {
      const { player, outcome, number } = change;
      return ["PATCH", `${match}/deals/${number}`, { player, outcome }];
    }
    default: {
      const body = {};
      for (const name of ["game", "target", "players", "rules", "first_dealer", "play_on"]) {
        if (change[name] !== undefined) body[name] = change[name];
      }
      return ["PATCH", match, body];
    }
  }
}
