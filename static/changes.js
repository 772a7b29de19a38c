// The outbox's changes as data: their ids, each change of what is stored, and the request
// each change makes (docs/sync.md). No DOM, storage or network, so that Node's tests
// import it as it is.

export const STORE = "santase-counter";

// crypto.randomUUID works only in a secure context, which http://<LAN address> is not.
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

// The changes of what is stored (`saved`: {match, outbox, ids, version}), each made in
// one transaction of the store and, at once, on this tab's copy (outbox.js).

// The version counted up tells an answer asked for before it is old.
export function kept(saved) {
  saved.version = (saved.version ?? 0) + 1;
  const ids = {};
  for (const uid of saved.outbox.map(uidOf)) if (saved.ids[uid]) ids[uid] = saved.ids[uid];
  saved.ids = ids;
  return saved;
}

export function takeOut(saved, leaves) {
  saved.outbox = saved.outbox.filter((change) => !leaves(change));
}

// The last deal is taken out unsent if no tab has tried to send it (true); else `undo`
// waits to go, as a change of its own.
export function undoLast(saved, undo) {
  const last = saved.outbox.at(-1);
  if (last?.kind === "deal" && last.request_id === undo.request_id && !last.tried) {
    saved.outbox.pop();
    return true;
  }
  saved.outbox.push(undo);
  return false;
}

// The change to send next, marked `tried` (Undo can no longer take it back unsent)
// unless it waits for its player's answer (`ask`).
export function next(saved) {
  const first = saved.outbox[0];
  if (!first) return null;
  if (!first.ask) first.tried = true;
  return { ...first };
}

// The answer (none: 204) is the server's truth for that match, deals from another phone
// included.
export function answered(saved, change, match) {
  takeOut(saved, (each) => each.id === change.id);
  if (!match) return;
  saved.ids[match.uid] = match.id;
  if (change.kind === "start" || !saved.match.uid || match.uid === saved.match.uid) saved.match = match;
}

// When the match is gone (or never started) every change for it leaves with it.
export function refused(saved, change, all) {
  const uid = uidOf(change);
  takeOut(saved, (each) => each.id === change.id || (all && uidOf(each) === uid));
}

// The match as another phone left it, pushed by the server: taken when nothing waits to go
// (the answers bring it then) and it is no older than the one stored (`played_at`, then
// the count of deals). Returns how many deals the match had before and after, or null.
export function arrival(saved, match) {
  const known = saved.match.deals.length;
  const { played_at } = saved.match;
  if (
    saved.outbox.length ||
    match.uid !== saved.match.uid ||
    match.played_at < played_at ||
    (match.played_at === played_at && match.deals.length < known)
  ) {
    return null;
  }
  saved.match = match;
  return { before: known, after: match.deals.length };
}

// [method, path, body]. A match's id is in `state.ids` once its start is answered, or is
// the id of the match on the screen.
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
