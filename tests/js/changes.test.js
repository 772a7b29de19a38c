// changes.js, the outbox's changes as data: ids, what a save keeps, the merge of another
// tab's save (docs/sync.md, "Two tabs") and the request each change makes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { merge, newId, nextSave, parse, request, uidOf } from "../../static/changes.js";

const MATCH = "a".repeat(32);
const OTHER = "b".repeat(32);
const shown = { id: 7, uid: MATCH, deals: [] };
const deal = (id, v, match = MATCH) => ({ kind: "deal", id, v, match, player: 1, outcome: "normal", request_id: id });
// A copy of the stored state, as a tab holds it or localStorage keeps it.
const copy = ({ outbox = [], ids = {}, version = 1, gone = [] } = {}) => ({ match: shown, outbox, ids, version, gone });
const idsOf = (changes) => changes.map((change) => change.id);

test("an id is 32 hex digits", () => {
  assert.match(newId(), /^[0-9a-f]{32}$/);
});

test("two ids differ", () => {
  assert.notEqual(newId(), newId());
});

test("stored text that is not JSON reads as nothing", () => {
  assert.equal(parse("{"), null);
});

test("a change belongs to its match, a start to the match it starts", () => {
  assert.deepEqual([uidOf({ match: MATCH }), uidOf({ kind: "start", uid: OTHER })], [MATCH, OTHER]);
});

// --- a save ---------------------------------------------------------------------------------------

test("a save counts the version up", () => {
  assert.equal(nextSave(copy({ version: 4 })).version, 5);
});

test("a save keeps the last 64 ids of changes taken out", () => {
  const gone = Array.from({ length: 70 }, (_, index) => `gone-${index}`);
  const state = copy({ gone });
  assert.deepEqual(nextSave(state).gone, gone.slice(6));
  assert.deepEqual(state.gone, gone.slice(6));
});

test("a save keeps the ids only of matches with changes waiting", () => {
  const state = copy({ outbox: [deal("d1", 1)], ids: { [MATCH]: 7, [OTHER]: 8 } });
  assert.deepEqual(nextSave(state).ids, { [MATCH]: 7 });
});

test("a save stores the match, the outbox, the ids, the version and gone, nothing else", () => {
  const stored = nextSave({ ...copy(), rules: {}, extra: 1 });
  assert.deepEqual(Object.keys(stored), ["match", "outbox", "ids", "version", "gone"]);
});

// --- another tab's save ---------------------------------------------------------------------------

test("what another tab stored becomes this tab's state", () => {
  const state = copy();
  const saved = copy({ outbox: [deal("d1", 2)], version: 2 });
  merge(state, { ...state }, saved);
  assert.deepEqual(idsOf(state.outbox), ["d1"]);
  assert.equal(state.version, 2);
});

test("nothing to save when the stored copy is taken as it is", () => {
  const state = copy();
  assert.equal(merge(state, { ...state }, copy({ outbox: [deal("d1", 2)], version: 2 })), false);
});

test("a change this tab took out stays out of an older stored copy, which is saved again", () => {
  const state = copy({ version: 3, gone: ["d1"] });
  const saved = copy({ outbox: [deal("d1", 2), deal("d2", 3)], version: 3 });
  assert.equal(merge(state, { ...state }, saved), true);
  assert.deepEqual(idsOf(state.outbox), ["d2"]);
});

test("the stored ids taken out come last, so that a save keeps the newest", () => {
  const state = copy({ gone: ["s1", "own"] });
  merge(state, { ...state }, copy({ gone: ["s1", "s2"] }));
  assert.deepEqual(state.gone, ["own", "s1", "s2"]);
});

test("a change lost by a save from an older copy is put back, as added by the next save", () => {
  // This tab added d2 at version 3; another tab, from a copy before it, saved version 3 too.
  const before = copy({ outbox: [deal("d1", 2), deal("d2", 3)], ids: { [OTHER]: 9 }, version: 3 });
  const state = { ...before };
  const saved = copy({ outbox: [deal("d1", 2)], version: 3 });
  assert.equal(merge(state, before, saved), true);
  assert.deepEqual(
    state.outbox.map(({ id, v }) => [id, v]),
    [
      ["d1", 2],
      ["d2", 4],
    ],
  );
});

test("a lost change of a match the server has started gets that match's id back", () => {
  const before = copy({ outbox: [deal("d2", 3, OTHER)], ids: { [OTHER]: 9 }, version: 3 });
  const state = { ...before };
  merge(state, before, copy({ version: 3 }));
  assert.equal(state.ids[OTHER], 9);
});

test("a newer save than this tab's copy lost nothing: a change gone from it was taken out", () => {
  const before = copy({ outbox: [deal("d1", 2)], version: 2 });
  const state = { ...before };
  assert.equal(merge(state, before, copy({ version: 3 })), false);
  assert.deepEqual(state.outbox, []);
});

test("a change taken out is not put back, though a save from an older copy dropped it", () => {
  const before = copy({ outbox: [deal("d2", 3)], version: 3 });
  const state = { ...before };
  merge(state, before, copy({ version: 3, gone: ["d2"] }));
  assert.deepEqual(state.outbox, []);
});

test("a storage event's copies say what a save lost, though a later save is stored since", () => {
  // The event: version 5, which held d5, replaced by a version 4 made from an older copy.
  const before = copy({ outbox: [deal("d5", 5)], version: 5 });
  const written = copy({ version: 4 });
  const state = copy({ version: 5 });
  merge(state, before, copy({ version: 6 }), written);
  assert.deepEqual(idsOf(state.outbox), ["d5"]);
});

// --- the request of each change -------------------------------------------------------------------

test("a start posts the new match with its uid", () => {
  const start = { kind: "start", id: "s", uid: OTHER, target: 11, players: ["A", "B"], rules: {}, first_dealer: 2 };
  const body = { uid: OTHER, target: 11, players: ["A", "B"], rules: {}, first_dealer: 2 };
  assert.deepEqual(request(start, copy()), ["POST", "/api/matches", body]);
});

test("a deal posts to the match its start was answered with", () => {
  const [method, path] = request(deal("d1", 1, OTHER), copy({ ids: { [OTHER]: 9 } }));
  assert.deepEqual([method, path], ["POST", "/api/matches/9/deals"]);
});

test("a deal of the match on the screen posts to that match's id", () => {
  const [, path] = request(deal("d1", 1), copy());
  assert.equal(path, "/api/matches/7/deals");
});

test("a deal sends what the server needs, and no more", () => {
  const [, , body] = request({ ...deal("d1", 1), label: "+1 Ana", after: 3 }, copy());
  assert.deepEqual(body, { player: 1, outcome: "normal", request_id: "d1", after: 3 });
});

test("an undo names the deal by its request id, escaped", () => {
  const undo = { kind: "undo", match: MATCH, request_id: "a b&c", number: 2 };
  assert.deepEqual(request(undo, copy()), ["DELETE", "/api/matches/7/deals/last?request_id=a%20b%26c"]);
});

test("an undo of a deal recorded without a request id names its number", () => {
  const undo = { kind: "undo", match: MATCH, number: 2 };
  assert.deepEqual(request(undo, copy()), ["DELETE", "/api/matches/7/deals/last?number=2"]);
});

test("a settings change patches only what it changes", () => {
  const change = { kind: "settings", match: MATCH, target: 15, play_on: undefined, label: "Match to 15" };
  assert.deepEqual(request(change, copy()), ["PATCH", "/api/matches/7", { target: 15 }]);
});

test("a correction patches the deal it names, with this phone's result", () => {
  const correct = { kind: "correct", match: MATCH, number: 2, player: 2, outcome: "schneider", request_id: "d1" };
  assert.deepEqual(request(correct, copy()), ["PATCH", "/api/matches/7/deals/2", { player: 2, outcome: "schneider" }]);
});
