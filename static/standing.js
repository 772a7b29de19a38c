// The match as the phone shows it: the server's last answer plus the changes it has not
// confirmed yet. The points of each outcome come from the server's rules as data
// (`tables`, keyed by the house rules' choices); this file only adds them up, compares
// the totals with the target and passes the deal on by the dealer rule.

const other = (seat) => 3 - seat;

// "by_tricks always_2 winner not_recorded": the key of a match's table of points.
export const tableKey = (rules, names) => names.map((name) => rules[name]).join(" ");

function settle(view) {
  const winner = view.players.find((player) => player.score >= view.target);
  view.winner = winner ? winner.seat : null;
  view.finished = view.winner !== null;
  view.leader = other(view.dealer);
  for (const player of view.players) {
    player.games = player.earlier + (view.winner === player.seat ? 1 : 0);
  }
  return view;
}

function deal(view, change) {
  const points = view.table.points[change.outcome];
  if (view.finished || points === undefined) return view; // the server will say why
  if (view.deals.some((each) => each.request_id === change.request_id)) return view; // it has it
  const scores = view.players.map((player) => player.score);
  if (change.player) scores[change.player - 1] += points;
  view.deals.push({
    number: view.deals.length + 1, player: change.player, outcome: change.outcome, points,
    scores, dealer: view.dealer, request_id: change.request_id, corrected: false, pending: true,
  });
  view.players.forEach((player, index) => { player.score = scores[index]; });
  // After a tie the same player deals again; otherwise the winner, or the other player.
  if (change.player) view.dealer = view.table.next_dealer === "winner" ? change.player : other(view.dealer);
  return settle(view);
}

function undo(view, change) {
  const last = view.deals.at(-1);
  if (!last || (change.request_id ? last.request_id !== change.request_id : last.number !== change.number)) {
    return view; // undone already, or no longer the last deal: the server will say
  }
  view.deals.pop();
  const before = view.deals.at(-1);
  view.players.forEach((player, index) => { player.score = before ? before.scores[index] : 0; });
  view.dealer = last.dealer;
  return settle(view);
}

function settings(view, change, state) {
  if (change.players) view.players.forEach((player, index) => { player.name = change.players[index]; });
  if (change.rules) {
    view.rules = { ...view.rules, ...change.rules };
    view.table = state.tables[tableKey(view.rules, state.rule_names)];
  }
  if (change.target) view.target = change.target;
  if (change.first_dealer && view.deals.length === 0) view.first_dealer = view.dealer = change.first_dealer;
  return settle(view);
}

function start(view, change, state) {
  if (view.uid === change.uid) return view; // the server started it already
  const names = change.players ?? view.players.map((player) => player.name);
  const samePair = names.every((name, index) => name === view.players[index].name);
  const rules = change.rules ? { ...view.rules, ...change.rules } : view.rules;
  const dealer = change.first_dealer ?? 1;
  return settle({
    id: null, uid: change.uid, target: change.target ?? view.target, rules,
    table: state.tables[tableKey(rules, state.rule_names)], first_dealer: dealer, dealer,
    deals: [], pending: true,
    // The games of a series carry over to its next match; another pair starts from 0.
    players: names.map((name, index) => ({
      seat: index + 1, name, score: 0, earlier: samePair ? view.players[index].games : 0,
    })),
  });
}

const steps = { deal, undo, settings, start };

// The match after `changes`, in order, over the server's `match`; changes for other
// matches are left out. `state` holds the tables of points.
export function fold(match, changes, state) {
  let view = structuredClone(match);
  for (const player of view.players) {
    player.earlier = player.games - (view.winner === player.seat ? 1 : 0);
  }
  for (const change of changes) {
    if (change.kind === "start" || change.match === view.uid) view = steps[change.kind](view, change, state);
  }
  return view;
}
