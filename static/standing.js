// The match as the phone shows it: the server's last answer plus the changes it has not
// confirmed yet (docs/sync.md). No rule of the game is written here: they come from the
// server as data (`rules`, counter/game/rulebook.py), and a change the server would refuse
// changes nothing here either: the server says why.

// The seats a rule may pick, from the dealer and the player who received the points.
const ROLES = {
  receiver: (_dealer, receiver) => receiver,
  dealer: (dealer) => dealer,
  other: (dealer) => 3 - dealer,
};
const COMPARISONS = { at_least: (score, target) => score >= target };
// Schnapsen shows what is left to make.
const SHOWN = { score: (score) => score, left: (score, target) => Math.max(target - score, 0) };
const TALLIES = { winner: (won) => won, loser: (won) => 3 - won };

export const shown = (match, score, rules) => SHOWN[rules.games[match.game].shown](score, match.target);

// What `view`'s own win adds to each seat's tally: [first, second].
function ownMarks(view, rules) {
  const marks = [0, 0];
  if (view.winner === null) return marks;
  const game = rules.games[view.game];
  const loser = view.players[2 - view.winner];
  marks[TALLIES[game.tally](view.winner) - 1] = game.marks[view.rules.shutout][loser.score === 0 ? 1 : 0];
  return marks;
}

// 1 (a match played as one), 2 (best of three).
const sessionWins = (view, rules) => rules.games[view.game].sessions[view.rules.session] ?? 1;

// Each seat's matches won in `view`'s best of three, its own win included; null when it is
// played as one, or when the server has not said what came before it.
function sessionAfter(view, rules) {
  if (sessionWins(view, rules) < 2 || !view.sessionEarlier) return null;
  return view.sessionEarlier.map((won, index) => won + (view.winner === index + 1 ? 1 : 0));
}

const playable = (game, houseRules, target) =>
  game.targets.includes(target) &&
  Object.entries(game.variants).every(([name, choices]) => choices.includes(houseRules[name]));

// Each outcome's {points (null: refused), button}.
function outcomesUnder(houseRules, rules) {
  const outcomes = { ...rules.outcomes };
  for (const name of rules.rule_names) Object.assign(outcomes, rules.choices[name][houseRules[name]]);
  return outcomes;
}

// A target a score has reached: the match is won there, and the target is past.
export const reached = (match, target, rules) =>
  match.players.some((player) => COMPARISONS[rules.reach](player.score, target));

function settle(view, rules) {
  const winner = view.players.find((player) => COMPARISONS[rules.reach](player.score, view.target));
  view.winner = winner ? winner.seat : null;
  view.finished = view.winner !== null;
  view.leader = ROLES[rules.leader](view.dealer);
  view.outcomes = outcomesUnder(view.rules, rules);
  view.marks = ownMarks(view, rules);
  view.session = sessionAfter(view, rules);
  const taken = view.session?.findIndex((won) => won >= sessionWins(view, rules)) ?? -1;
  view.sessionWinner = taken < 0 ? null : taken + 1;
  for (const player of view.players) {
    // null: a series only the server knows (other names), until it answers
    player.games = player.earlier === null ? null : player.earlier + view.marks[player.seat - 1];
  }
  return view;
}

// A deal the player is asked about, and those after it, wait for the answer: the other
// phone's deals may be them.
function deal(view, change, rules) {
  const points = view.outcomes[change.outcome]?.points;
  if ((view.asked ||= change.ask) || view.finished || points == null) return view;
  if (view.deals.some((each) => each.request_id === change.request_id)) return view; // it has it
  const scores = view.players.map((player) => player.score);
  if (change.player) scores[change.player - 1] += points;
  view.deals.push({
    number: view.deals.length + 1,
    player: change.player,
    outcome: change.outcome,
    points,
    scores,
    dealer: view.dealer,
    request_id: change.request_id,
    corrected: false,
    pending: true,
  });
  view.players.forEach((player, index) => {
    player.score = scores[index];
  });
  const next = rules.dealer[view.rules.next_dealer][change.player ? "won" : "tie"];
  view.dealer = ROLES[next](view.dealer, change.player);
  return settle(view, rules);
}

function undo(view, change, rules) {
  const last = view.deals.at(-1);
  if (!last || (change.request_id ? last.request_id !== change.request_id : last.number !== change.number)) {
    return view; // undone already, or no longer the last deal
  }
  view.deals.pop();
  const before = view.deals.at(-1);
  view.players.forEach((player, index) => {
    player.score = before ? before.scores[index] : 0;
  });
  view.dealer = last.dealer;
  return settle(view, rules);
}

// Another phone's deal `number`, corrected to this phone's result (two phones disagreed,
// and this one was right): the deals from it on are scored again.
function correct(view, change, rules) {
  const deal = view.deals.find((each) => each.number === change.number);
  const points = view.outcomes[change.outcome]?.points;
  if (!deal || points == null) return view;
  Object.assign(deal, { player: change.player, outcome: change.outcome, points, corrected: true, pending: true });
  let { dealer } = deal;
  let scores = deal.number > 1 ? view.deals[deal.number - 2].scores : [0, 0];
  for (const each of view.deals.slice(deal.number - 1)) {
    scores = [...scores];
    if (each.player) scores[each.player - 1] += each.points;
    Object.assign(each, { dealer, scores });
    dealer = ROLES[rules.dealer[view.rules.next_dealer][each.player ? "won" : "tie"]](dealer, each.player);
  }
  view.players.forEach((player, index) => {
    player.score = scores[index];
  });
  view.dealer = dealer;
  return settle(view, rules);
}

// A settings change is taken whole or not at all, as the server takes it.
function settings(view, change, rules) {
  const other = change.game !== undefined && change.game !== view.game;
  if (other && view.deals.length) return view; // the game is chosen before the first deal
  const game = rules.games[change.game ?? view.game];
  const target = change.target ?? (other ? game.target : view.target);
  const houseRules = { ...(other ? game.rules : view.rules), ...(change.rules ?? {}) };
  if (!playable(game, houseRules, target)) return view;
  if (change.target !== undefined && change.target !== view.target) {
    if (reached(view, change.target, rules)) return view; // it would end the match at once
    if (view.finished && !change.play_on) return view; // a won match goes on only when asked
  }
  if (change.first_dealer && view.deals.length && change.first_dealer !== view.first_dealer) return view;
  // The server tidies names further; it has the last word.
  const [first, second] = (change.players ?? []).map((name) => name.trim());
  if (first && first === second) return view;
  if (change.players) {
    const earlier = carried(view, change.players, rules, "earlier");
    view.players.forEach((player, index) => {
      player.name = change.players[index];
      player.earlier = earlier[index];
    });
    view.sessionEarlier = null; // another pair's best of three: the server says
  }
  view.game = change.game ?? view.game;
  view.rules = houseRules;
  view.target = target;
  if (change.first_dealer && view.deals.length === 0) view.first_dealer = view.dealer = change.first_dealer;
  return settle(view, rules);
}

// Each name's `games` (or games `earlier` than this match) when the players become
// `names` in `game`: the same series as the match on the screen keeps them, by name;
// another series is unknown (null) until the server, which keeps every series, says.
function carried(view, names, rules, count = "games", game = view.game) {
  const games = new Map(view.players.map((player) => [player.name, player[count]]));
  const same =
    rules.series === "same_game_and_names_either_seat" &&
    game === view.game &&
    names[0] !== names[1] &&
    names.every((name) => games.has(name));
  return names.map((name) => (same ? games.get(name) : null));
}

function start(view, change, rules) {
  if (view.uid === change.uid) return view; // the server started it already
  const names = change.players ?? view.players.map((player) => player.name);
  const name = change.game ?? view.game;
  const game = rules.games[name];
  const earlier = carried(view, names, rules, "games", name);
  const dealer = change.first_dealer ?? 1;
  const houseRules = { ...(name === view.game ? view.rules : game.rules), ...(change.rules ?? {}) };
  const target = change.target ?? game.target;
  if (!playable(game, houseRules, target)) return view; // refused: the match on the screen stays
  // A best of three goes on with the same pair, or starts again once someone has won it.
  const pair = name === view.game && earlier.every((games) => games !== null);
  const sessionEarlier = view.sessionWinner ? [0, 0] : view.session;
  return settle(
    {
      id: null,
      uid: change.uid,
      game: name,
      target,
      rules: houseRules,
      first_dealer: dealer,
      dealer,
      deals: [],
      pending: true,
      players: names.map((name, index) => ({ seat: index + 1, name, score: 0, earlier: earlier[index] })),
      sessionEarlier:
        pair && sessionEarlier
          ? names.map((each) => sessionEarlier[view.players.findIndex((player) => player.name === each)])
          : null,
    },
    rules,
  );
}

const steps = { deal, undo, correct, settings, start };

// Changes for other matches are left out.
export function fold(match, changes, rules) {
  let view = structuredClone(match);
  const marks = ownMarks(view, rules);
  for (const player of view.players) {
    player.earlier = player.games === null ? null : player.games - marks[player.seat - 1];
  }
  view.sessionEarlier = view.session?.map((won, index) => won - (view.winner === index + 1 ? 1 : 0)) ?? null;
  view = settle(view, rules);
  for (const change of changes) {
    if (change.kind === "start" || change.match === view.uid) view = steps[change.kind](view, change, rules);
  }
  return view;
}
