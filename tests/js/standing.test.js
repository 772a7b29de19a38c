// standing.js, the match the phone shows while changes wait: the server's match with
// the waiting changes scored by the rules the server sends as data.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fold, reached, shown } from "../../static/standing.js";

// The rules as counter/game/rulebook.py sends them, cut to the outcomes and house rules used here.
const RULES = {
  rule_names: ["next_dealer", "ties"],
  outcomes: {
    normal: { points: 1, button: true },
    schneider: { points: 2, button: true },
    schwarz: { points: 3, button: true },
    tie: { points: null, button: false },
  },
  choices: {
    next_dealer: { winner: {}, alternate: {} },
    ties: {
      not_recorded: { tie: { points: null, button: false } },
      no_points: { tie: { points: 0, button: true } },
    },
  },
  dealer: { winner: { won: "receiver", tie: "dealer" }, alternate: { won: "other", tie: "other" } },
  leader: "other",
  reach: "at_least",
  series: "same_game_and_names_either_seat",
  games: {
    santase: {
      target: 11,
      targets: [7, 11, 15],
      rules: { next_dealer: "winner", ties: "not_recorded", shutout: "once" },
      variants: { next_dealer: ["winner", "alternate"], ties: ["not_recorded", "no_points"], shutout: ["once"] },
      shown: "score",
      tally: "winner",
      marks: { once: [1, 1], twice: [1, 2] },
      sessions: { one: 1 },
    },
    schnapsen: {
      target: 7,
      targets: [7],
      rules: { next_dealer: "alternate", ties: "not_recorded", shutout: "twice" },
      variants: { next_dealer: ["alternate"], ties: ["not_recorded"], shutout: ["twice", "once"] },
      shown: "left",
      tally: "loser",
      marks: { once: [1, 1], twice: [1, 2] },
      sessions: { one: 1, best_of_three: 2 },
    },
  },
};
const UID = "a".repeat(32);

// A match as the server sends it to the page, no deal yet.
const serverMatch = ({ target = 11, houseRules = {}, games = [0, 0], game = "santase" } = {}) => ({
  id: 7,
  uid: UID,
  game,
  target,
  players: [
    { seat: 1, name: "Ana", score: 0, games: games[0] },
    { seat: 2, name: "Boris", score: 0, games: games[1] },
  ],
  winner: null,
  finished: false,
  rules: { ...RULES.games[game].rules, ...houseRules },
  first_dealer: 1,
  dealer: 1,
  leader: 2,
  deals: [],
});
const deal = (player, outcome, request_id = `r-${player}-${outcome}`) => ({
  kind: "deal",
  match: UID,
  player,
  outcome,
  request_id,
});
const scores = (view) => view.players.map((player) => player.score);

test("a deal adds its points to the player who received them", () => {
  assert.deepEqual(scores(fold(serverMatch(), [deal(2, "schneider")], RULES)), [0, 2]);
});

test("a deal waiting to be sent is listed as pending, with the scores after it", () => {
  const [shown] = fold(serverMatch(), [deal(1, "schwarz")], RULES).deals;
  assert.equal(shown.pending, true);
  assert.equal(shown.number, 1);
  assert.deepEqual(shown.scores, [3, 0]);
});

test("the server's match itself is left as it was", () => {
  const match = serverMatch();
  fold(match, [deal(1, "normal")], RULES);
  assert.deepEqual(match, serverMatch());
});

test("a deal with the request id of one the match has counts once", () => {
  const view = fold(serverMatch(), [deal(1, "normal", "same"), deal(1, "normal", "same")], RULES);
  assert.equal(view.deals.length, 1);
});

test("an outcome the house rules do not record changes nothing", () => {
  const view = fold(serverMatch(), [deal(null, "tie")], RULES);
  assert.equal(view.deals.length, 0);
});

test("a tie counts under the house rule that records it at no points", () => {
  const view = fold(serverMatch({ houseRules: { ties: "no_points" } }), [deal(null, "tie")], RULES);
  assert.deepEqual(
    view.deals.map((each) => each.points),
    [0],
  );
});

test("the winner of a deal deals next under the 'winner' rule", () => {
  assert.equal(fold(serverMatch(), [deal(2, "normal")], RULES).dealer, 2);
});

test("the deal passes to the other player under the 'alternate' rule", () => {
  const match = serverMatch({ houseRules: { next_dealer: "alternate" } });
  assert.equal(fold(match, [deal(1, "normal")], RULES).dealer, 2);
});

test("a score that reaches the target wins the match and its game", () => {
  const view = fold(serverMatch({ target: 3 }), [deal(1, "schwarz")], RULES);
  assert.equal(view.winner, 1);
  assert.equal(view.finished, true);
  assert.deepEqual(
    view.players.map((player) => player.games),
    [1, 0],
  );
});

test("a won match takes no more deals", () => {
  const view = fold(serverMatch({ target: 3 }), [deal(1, "schwarz"), deal(2, "normal")], RULES);
  assert.deepEqual(scores(view), [3, 0]);
});

test("undo takes back the last deal, its points and who dealt", () => {
  const changes = [deal(2, "normal"), { kind: "undo", match: UID, request_id: "r-2-normal" }];
  const view = fold(serverMatch(), changes, RULES);
  assert.deepEqual(scores(view), [0, 0]);
  assert.equal(view.deals.length, 0);
  assert.equal(view.dealer, 1);
});

test("undo of a deal that is no longer the last changes nothing", () => {
  const changes = [deal(1, "normal"), deal(2, "normal"), { kind: "undo", match: UID, request_id: "r-1-normal" }];
  assert.equal(fold(serverMatch(), changes, RULES).deals.length, 2);
});

test("a target a score has reached already is refused", () => {
  const changes = [deal(1, "schwarz"), { kind: "settings", match: UID, target: 3 }];
  assert.equal(fold(serverMatch(), changes, RULES).target, 11);
});

test("the same name for both players is refused, the whole change with it", () => {
  const change = { kind: "settings", match: UID, players: ["Ana", " Ana "], target: 15 };
  const view = fold(serverMatch(), [change], RULES);
  assert.deepEqual([view.target, view.players[1].name], [11, "Boris"]);
});

test("a new match by the same names carries their games on", () => {
  const start = { kind: "start", uid: "b".repeat(32), target: 7 };
  const view = fold(serverMatch({ games: [2, 1] }), [start], RULES);
  assert.equal(view.uid, start.uid);
  assert.deepEqual(
    view.players.map((player) => player.games),
    [2, 1],
  );
});

test("a new match by other names has games only the server knows", () => {
  const start = { kind: "start", uid: "b".repeat(32), players: ["Ana", "Vera"] };
  const view = fold(serverMatch({ games: [2, 1] }), [start], RULES);
  assert.deepEqual(
    view.players.map((player) => player.games),
    [null, null],
  );
});

test("changes for another match are left out", () => {
  const other = { ...deal(1, "schwarz"), match: "c".repeat(32) };
  assert.deepEqual(scores(fold(serverMatch(), [other], RULES)), [0, 0]);
});

test("a target is reached by a score equal to it", () => {
  const match = fold(serverMatch(), [deal(1, "schwarz")], RULES);
  assert.equal(reached(match, 3, RULES), true);
  assert.equal(reached(match, 4, RULES), false);
});

// The match after `deals` as the server sends it: the same fold, with nothing pending.
const played = (...deals) => {
  const numbered = deals.map((each, index) => ({ ...each, request_id: `r${index}` }));
  const view = fold(serverMatch(), numbered, RULES);
  for (const each of view.deals) each.pending = false;
  return view;
};
const correct = (number, player, outcome) => ({ kind: "correct", match: UID, number, player, outcome });

test("a correction of another phone's deal scores it, and the deals after it, again", () => {
  const match = played(deal(1, "normal"), deal(1, "normal"), deal(2, "normal"));
  const view = fold(match, [correct(2, 2, "schneider")], RULES);
  assert.deepEqual(
    view.deals.map((each) => each.scores),
    [
      [1, 0],
      [1, 2],
      [1, 3],
    ],
  );
  assert.deepEqual(scores(view), [1, 3]);
});

test("a correction moves the deal: the dealers after it follow the corrected deal", () => {
  const match = played(deal(1, "normal"), deal(1, "normal"));
  const view = fold(match, [correct(1, 2, "normal")], RULES);
  assert.deepEqual(
    view.deals.map((each) => each.dealer),
    [1, 2],
  );
  assert.equal(view.dealer, 1);
});

test("a corrected deal waits to be sent, marked corrected", () => {
  const [shown] = fold(played(deal(1, "normal")), [correct(1, 2, "schwarz")], RULES).deals;
  assert.deepEqual([shown.player, shown.points, shown.pending, shown.corrected], [2, 3, true, true]);
});

test("a correction of a deal the match does not have changes nothing", () => {
  assert.deepEqual(scores(fold(played(deal(1, "normal")), [correct(4, 2, "schwarz")], RULES)), [1, 0]);
});

// --- games of the family -------------------------------------------------------------------------

const schnapsen = (houseRules = {}) => serverMatch({ target: 7, game: "schnapsen", houseRules });

test("a Schnapsen score is shown as what is left to make", () => {
  const view = fold(schnapsen(), [deal(1, "schneider")], RULES);
  assert.deepEqual(
    view.players.map((player) => shown(view, player.score, RULES)),
    [5, 7],
  );
});

test("the loser of a Schnapsen match gets the Bummerl", () => {
  const view = fold(
    schnapsen(),
    [deal(2, "normal"), deal(1, "schwarz", "a"), deal(1, "schwarz", "b"), deal(1, "normal")],
    RULES,
  );
  assert.deepEqual(
    view.players.map((player) => player.games),
    [0, 1],
  );
});

test("a Schneider-Bummerl counts 2, or 1 where the house rule is off", () => {
  const run = [deal(1, "schwarz", "a"), deal(1, "schwarz", "b"), deal(1, "normal")];
  assert.deepEqual(
    fold(schnapsen(), run, RULES).players.map((player) => player.games),
    [0, 2],
  );
  const once = fold(schnapsen({ shutout: "once" }), run, RULES);
  assert.deepEqual(
    once.players.map((player) => player.games),
    [0, 1],
  );
});

test("a rule the game is not played with is refused whole", () => {
  const change = { kind: "settings", match: UID, rules: { next_dealer: "winner" }, target: 7 };
  assert.equal(fold(schnapsen(), [change], RULES).rules.next_dealer, "alternate");
});

test("the game changes only before the first deal", () => {
  const change = { kind: "settings", match: UID, game: "schnapsen" };
  assert.equal(fold(serverMatch(), [change], RULES).game, "schnapsen");
  assert.equal(fold(serverMatch(), [deal(1, "normal"), change], RULES).game, "santase");
});

// A Schnapsen match of a best of three, the server having counted `session` before it.
const bestOfThree = (session) => ({ ...schnapsen({ session: "best_of_three" }), session });
const bummerl = [deal(1, "schwarz", "a"), deal(1, "schwarz", "b"), deal(1, "normal")];

test("a Bummerl won counts in its best of three, and two win it", () => {
  const level = fold(bestOfThree([0, 1]), bummerl, RULES);
  assert.deepEqual([level.session, level.sessionWinner], [[1, 1], null]);
  const won = fold(bestOfThree([1, 1]), bummerl, RULES);
  assert.deepEqual([won.session, won.sessionWinner], [[2, 1], 1]);
});

test("the next Bummerl goes on with the best of three, or starts one once it is won", () => {
  const start = { kind: "start", uid: "b".repeat(32) };
  assert.deepEqual(fold(bestOfThree([0, 0]), [...bummerl, start], RULES).session, [1, 0]);
  assert.deepEqual(fold(bestOfThree([1, 0]), [...bummerl, start], RULES).session, [0, 0]);
});

test("a match played as one has no best of three", () => {
  assert.equal(fold(schnapsen(), bummerl, RULES).session, null);
});
