// changes.js, the outbox's changes as data: ids, each change of what is stored
// (docs/sync.md) and the request each change makes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { decided } from "../../static/choice.js";

// prettier-ignore
import { answered, arrival, kept, newId, next, parse, refused, request, takeOut, uidOf, undoLast } from "../../static/changes.js";

const MATCH = "a".repeat(32);
const OTHER = "b".repeat(32);
const shown = { id: 7, uid: MATCH, deals: [] };
const deal = (id, match = MATCH) => ({ kind: "deal", id, match, player: 1, outcome: "normal", request_id: id });
const undo = (id) => ({ kind: "undo", id: `u-${id}`, match: MATCH, request_id: id });
// What is stored: the match, the outbox, the ids of matches, the version.
const copy = ({ outbox = [], ids = {}, version = 1 } = {}) => ({ match: shown, outbox, ids, version });
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

// --- a change of what is stored --------------------------------------------------------------------

test("a change to be stored counts the version up", () => {
  assert.equal(kept(copy({ version: 4 })).version, 5);
});

test("a change to be stored keeps the ids only of matches with changes waiting", () => {
  const saved = copy({ outbox: [deal("d1")], ids: { [MATCH]: 7, [OTHER]: 8 } });
  assert.deepEqual(kept(saved).ids, { [MATCH]: 7 });
});

test("a change taken out leaves the others in order", () => {
  const saved = copy({ outbox: [deal("d1"), deal("d2"), deal("d3")] });
  takeOut(saved, (change) => change.id === "d2");
  assert.deepEqual(idsOf(saved.outbox), ["d1", "d3"]);
});

test("undo of a deal no tab has tried to send withdraws it, and nothing travels", () => {
  const saved = copy({ outbox: [deal("d1"), deal("d2")] });
  assert.equal(undoLast(saved, undo("d2")), true);
  assert.deepEqual(idsOf(saved.outbox), ["d1"]);
});

test("undo of a deal tried already goes as a change of its own", () => {
  const saved = copy({ outbox: [{ ...deal("d1"), tried: true }] });
  assert.equal(undoLast(saved, undo("d1")), false);
  assert.deepEqual(idsOf(saved.outbox), ["d1", "u-d1"]);
});

test("undo of a deal the server has goes as a change of its own", () => {
  const saved = copy({ outbox: [deal("d2")] });
  assert.equal(undoLast(saved, undo("d1")), false);
  assert.deepEqual(idsOf(saved.outbox), ["d2", "u-d1"]);
});

test("the change sent next is the first, marked tried where it is stored", () => {
  const saved = copy({ outbox: [deal("d1"), deal("d2")] });
  assert.equal(next(saved).id, "d1");
  assert.deepEqual(
    saved.outbox.map((change) => Boolean(change.tried)),
    [true, false],
  );
});

test("nothing is sent next when nothing waits", () => {
  assert.equal(next(copy()), null);
});

test("a deal that waits for its player's answer is not marked tried", () => {
  const saved = copy({ outbox: [{ ...deal("d1"), ask: { question: "?" } }] });
  assert.ok(next(saved).ask);
  assert.equal(saved.outbox[0].tried, undefined);
});

test("an answered change leaves, and its answer is the match", () => {
  const saved = copy({ outbox: [deal("d1"), deal("d2")] });
  const answer = { ...shown, deals: [{ number: 1 }] };
  answered(saved, deal("d1"), answer);
  assert.deepEqual(idsOf(saved.outbox), ["d2"]);
  assert.equal(saved.match, answer);
});

test("the answer to a start gives its match's id to the changes that wait for it", () => {
  const start = { kind: "start", id: "s", uid: OTHER };
  const saved = copy({ outbox: [start, deal("d1", OTHER)] });
  answered(saved, start, { id: 9, uid: OTHER, deals: [] });
  assert.equal(saved.ids[OTHER], 9);
  assert.equal(saved.match.uid, OTHER);
});

test("an answer about another match than the one shown leaves the one shown", () => {
  const saved = copy({ outbox: [deal("d1", OTHER)] });
  answered(saved, deal("d1", OTHER), { id: 9, uid: OTHER, deals: [] });
  assert.equal(saved.match, shown);
});

test("a refused change leaves, the others stay", () => {
  const saved = copy({ outbox: [deal("d1"), deal("d2")] });
  refused(saved, deal("d1"), false);
  assert.deepEqual(idsOf(saved.outbox), ["d2"]);
});

test("a change for a match that is gone takes every change of that match with it", () => {
  const saved = copy({ outbox: [deal("d1"), deal("d2", OTHER), deal("d3")] });
  refused(saved, deal("d1"), true);
  assert.deepEqual(idsOf(saved.outbox), ["d2"]);
});

// --- another phone's match, pushed ----------------------------------------------------------------

const pushed = (deals, played_at = "2026-01-01T10:00:00") => ({ ...shown, played_at, deals: Array(deals).fill({}) });

test("a pushed match with more deals is taken, and says how many came", () => {
  const saved = copy();
  saved.match = pushed(1);
  assert.deepEqual(arrival(saved, pushed(2, "2026-01-01T10:01:00")), { before: 1, after: 2 });
  assert.equal(saved.match.deals.length, 2);
});

test("a pushed match is not taken while a change waits to go", () => {
  const saved = copy({ outbox: [deal("d1")] });
  assert.equal(arrival(saved, pushed(2)), null);
});

test("a pushed match older than the one stored is not taken", () => {
  const saved = copy();
  saved.match = pushed(2, "2026-01-01T10:01:00");
  assert.equal(arrival(saved, pushed(3, "2026-01-01T10:00:00")), null);
  assert.equal(arrival(saved, pushed(1, "2026-01-01T10:01:00")), null);
});

// --- the player's answer about a deal another phone overtook --------------------------------------

const asked = (extra = {}) => ({ ...deal("d1"), after: 1, ask: { count: 2, deal: 2 }, ...extra });

test("the same deal: this phone's leaves, and the next deals follow the other phone's", () => {
  const saved = copy({ outbox: [asked(), { ...deal("d2"), after: 2 }] });
  assert.equal(decided(saved, "d1", "same"), true);
  assert.deepEqual(
    saved.outbox.map((change) => [change.id, change.after]),
    [["d2", 2]],
  );
});

test("the same as one of several deals: the next deals are asked about the rest", () => {
  const saved = copy({ outbox: [asked({ ask: { count: 3 } }), { ...deal("d2"), after: 2 }] });
  decided(saved, "d1", "same");
  assert.deepEqual(
    saved.outbox.map((change) => [change.id, change.after]),
    [["d2", 2]],
  );
});

test("dropped after the other phone took a deal back: the next deals follow what is left", () => {
  const saved = copy({ outbox: [asked({ after: 2, ask: { count: 1 } }), { ...deal("d2"), after: 3 }] });
  decided(saved, "d1", "same");
  assert.deepEqual(
    saved.outbox.map((change) => [change.id, change.after]),
    [["d2", 1]],
  );
});

test("add mine: it goes again after the deals the match has now, and so do the next", () => {
  const saved = copy({ outbox: [asked(), { ...deal("d2"), after: 2 }] });
  decided(saved, "d1", "add");
  assert.deepEqual(
    saved.outbox.map((change) => [change.id, change.after, change.ask]),
    [
      ["d1", 2, undefined],
      ["d2", 3, undefined],
    ],
  );
});

test("mine: the deal corrects the other phone's", () => {
  const saved = copy({ outbox: [asked({ tried: true })] });
  decided(saved, "d1", "mine");
  const [change] = saved.outbox;
  assert.deepEqual([change.kind, change.number, change.tried, change.after], ["correct", 2, false, undefined]);
});

test("an answer given in another tab already changes nothing", () => {
  assert.equal(decided(copy(), "d1", "same"), false);
});

// --- the request of each change -------------------------------------------------------------------

test("a start posts the new match with its uid", () => {
  const start = { kind: "start", id: "s", uid: OTHER, target: 11, players: ["A", "B"], rules: {}, first_dealer: 2 };
  const body = { uid: OTHER, target: 11, players: ["A", "B"], rules: {}, first_dealer: 2 };
  assert.deepEqual(request(start, copy()), ["POST", "/api/matches", body]);
});

test("a deal posts to the match its start was answered with", () => {
  const [method, path] = request(deal("d1", OTHER), copy({ ids: { [OTHER]: 9 } }));
  assert.deepEqual([method, path], ["POST", "/api/matches/9/deals"]);
});

test("a deal of the match on the screen posts to that match's id", () => {
  const [, path] = request(deal("d1"), copy());
  assert.equal(path, "/api/matches/7/deals");
});

test("a deal sends what the server needs, and no more", () => {
  const [, , body] = request({ ...deal("d1"), label: "+1 Ana", after: 3 }, copy());
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
