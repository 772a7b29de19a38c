// Drawing the match on the counter page, and the one line under the score that says what
// the last tap did or what went wrong. The words come from the page, in its language.
import { state, trouble, view } from "./outbox.js";
import { reached, shown } from "./standing.js";

export const root = document.getElementById("counter");
export const words = JSON.parse(root.dataset.words);
// Fills "%(name)s" fields, as the server's messages are written.
export const fill = (template, values = {}) => template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));
export const $ = (selector, within = root) => within.querySelector(selector);
export const $$ = (selector, within = root) => [...within.querySelectorAll(selector)];
export const element = (tag, properties) => Object.assign(document.createElement(tag), properties);

// `load()` once; should it fail, again on the next call.
export const once = (load) => {
  let loading = null;
  return () =>
    (loading ??= load().catch((error) => {
      loading = null;
      throw error;
    }));
};

// A mistake is named as the opponent's (words.py's deal_note).
const outcomeName = (match, outcome) => words.received[match.game][outcome] ?? words.outcomes[match.game][outcome];
// A declaration, not a const: this module's imports run first and may already draw.
export function said(match, score) {
  return shown(match, score, state.rules);
}
export const scoreLine = (match) => match.players.map((player) => said(match, player.score)).join(":");
const receives = (match, deal) =>
  fill(words.receives, { points: deal.points, name: match.players[deal.player - 1].name });

// "+2 Иван · Schneider", or "±0 Tie".
export function describe(match, deal) {
  if (!deal.player) return `${words.noPoints} ${outcomeName(match, deal.outcome)}`;
  return fill(words.dealNote, { receives: receives(match, deal), outcome: outcomeName(match, deal.outcome) });
}

// The winner's points first, as a result is said.
export function wonBy(match) {
  const winner = match.players[match.winner - 1];
  return {
    name: winner.name,
    score: `${said(match, winner.score)}:${said(match, match.players[2 - match.winner].score)}`,
  };
}

export function announce(match) {
  const [first, second] = match.players;
  return fill(words.score, {
    name1: first.name,
    score1: said(match, first.score),
    name2: second.name,
    score2: said(match, second.score),
  });
}

function cell(text, className) {
  const td = element("td", { textContent: text });
  if (className) td.className = className;
  return td;
}

function dealRow(match, deal) {
  const row = document.createElement("tr");
  const number = document.createElement("td");
  if (match.id && !deal.pending) {
    const fix = element("a", {
      className: "fix",
      href: `/matches/${match.id}/deals/${deal.number}`,
      textContent: deal.number,
    });
    fix.setAttribute("aria-label", fill(words.correctDeal, { number: deal.number }));
    number.append(fix);
  } else {
    number.textContent = deal.number;
  }
  const why = cell(outcomeName(match, deal.outcome));
  const note = deal.pending ? "pending" : deal.corrected ? "corrected" : null;
  if (note) why.append(" ", element("small", { className: note, textContent: words[note] }));
  row.append(
    number,
    deal.player ? cell(receives(match, deal), `seat${deal.player}`) : cell(words.noPoints),
    why,
    cell(said(match, deal.scores[0]), "num"),
    cell(said(match, deal.scores[1]), "num"),
  );
  if (deal.pending) row.className = "pending";
  return row;
}

const shownBefore = {}; // what the fields showed at the last drawing

function drawPlayers(match) {
  for (const player of match.players) {
    const card = $(`.player[data-seat="${player.seat}"]`);
    $("[data-score]", card).textContent = said(match, player.score);
    $("[data-games]", card).textContent = player.games ?? "…"; // a series the server will count
    $("[data-tally]", card).textContent = words.tally[match.game];
    $("[data-winner]", card).hidden = match.winner !== player.seat;
    $("[data-deals]", card).hidden = match.finished || match.dealer !== player.seat;
    card.classList.toggle("won", match.winner === player.seat);
    for (const label of $$(`[data-name="${player.seat}"]`)) {
      label.textContent = player.name;
      label.title = player.name;
    }
    // A span for each word: a line breaks between words only, never at a hyphen inside
    // one (macros.html draws it the same way).
    const parts = player.name.split(" ").map((word) => element("span", { textContent: word }));
    $(".name", card).replaceChildren(...parts.flatMap((word, index) => (index ? [" ", word] : [word])));
    const field = $(`#player${player.seat}`); // a name not given yet is its placeholder
    // Until the first drawing a field shows the server's name: what is typed there stays.
    const before = shownBefore[`name${player.seat}`] ?? (field.defaultValue || field.placeholder);
    if (before !== player.name) {
      field.value = player.name === field.placeholder ? "" : player.name;
      $(`#rename${player.seat}`).value = player.name;
    }
    shownBefore[`name${player.seat}`] = player.name;
    $(".first-dealer", card).setAttribute("aria-pressed", String(match.dealer === player.seat));
  }
}

function drawChoices(match) {
  const names = words.outcomes[match.game];
  for (const button of $$(".record button.deal")) {
    const outcome = match.outcomes[button.value];
    $(".kind", button).textContent = names[button.value];
    button.hidden = !outcome?.button;
    if (outcome?.button && button.value !== "tie") $(".points", button).textContent = `+${outcome.points}`;
  }
  $(".tie").hidden = !match.outcomes.tie?.button;
  const game = state.rules.games[match.game];
  $("[data-game]").textContent = `${words.games[match.game]} ·`;
  $("[data-game]").hidden = match.game === "santase"; // the counter's own game goes unnamed
  $("#target-label").textContent = words.match[match.game].matchTo;
  for (const button of $$(".targets button")) {
    const target = Number(button.value);
    button.hidden = !game.targets.includes(target);
    button.setAttribute("aria-pressed", String(target === match.target));
    // A target a score has reached would end the match at once.
    button.disabled = target === match.target || reached(match, target, state.rules);
  }
  // Fields follow the match only when its rules changed, whatever order an answer names
  // them in (a pushed match's is not the API's): a choice being made stays as it is.
  const rules = match.game + JSON.stringify(match.rules, state.rules.rule_names);
  if (shownBefore.rules !== rules) {
    for (const select of $$(".rules-form select[id^=rule-]")) {
      for (const option of select.options) option.hidden = !game.variants[select.name].includes(option.value);
      // A rule the game plays one way only is no choice: it is not shown.
      select.hidden = select.labels[0].hidden = game.variants[select.name].length < 2;
      select.labels[0].textContent = words.ruleLabels[match.game][select.name];
      select.value = match.rules[select.name];
    }
    shownBefore.rules = rules;
  }
}

// A best of three as it stands, or who has won it (the winner's matches first).
function drawSession(match) {
  const line = $("[data-session]");
  line.hidden = !match.session;
  if (!match.session) return;
  const [first, second] = match.players;
  const won = match.sessionWinner;
  line.textContent = won
    ? fill(words.sessionWon, {
        name: match.players[won - 1].name,
        score: `${match.session[won - 1]}:${match.session[2 - won]}`,
      })
    : fill(words.session, { name1: first.name, won1: match.session[0], name2: second.name, won2: match.session[1] });
}

export function draw() {
  const match = view();
  const [first, second] = match.players;
  root.classList.toggle("fresh", match.deals.length === 0);
  root.classList.toggle("over", match.finished);
  drawPlayers(match);
  $("[data-result]").textContent = match.finished ? fill(words.match[match.game].wins, wonBy(match)) : "";
  drawSession(match);
  $(".result").hidden = !match.finished;
  $(".result [name=target]").value = match.target;
  $(".result button").textContent = fill(words.match[match.game].newMatch, { target: match.target });
  $(".record").hidden = match.finished;
  drawChoices(match);
  $(".undo button").disabled = match.deals.length === 0;
  const rows = match.deals.toReversed().map((deal) => dealRow(match, deal));
  $(".deals tbody").replaceChildren(...rows);
  $(".deals").hidden = rows.length === 0;
  $(".empty").hidden = rows.length > 0;
  drawSync();
  document.title = `${first.name} ${scoreLine(match)} ${second.name} · ${document.title.split(" · ").pop()}`;
  return match;
}

const notSaved = (error) => fill(words.notSaved, { reason: fill(words.scriptFailed, { error }) });

// "All saved" only when the server has confirmed every change, and no error of the
// page's own may have lost one.
export function drawSync() {
  const waiting = state.outbox.length;
  const sync = $("[data-sync]");
  const count =
    waiting === 0 ? words.saved : waiting === 1 ? words.waitingOne : fill(words.waiting, { count: waiting });
  const error = trouble.tap ?? trouble.sync;
  if (error) sync.textContent = notSaved(error);
  else sync.textContent = navigator.onLine ? count : `${words.offline} · ${count}`;
  sync.classList.toggle("waiting", waiting > 0 || error !== null);
  sync.classList.toggle("fault", error !== null);
}

// --- the line under the score ---------------------------------------------------------------------

export const refusals = []; // the changes the server refused since the player's last change
let notifyTimer = null;

// A confirmation leaves by itself after a few seconds, an error stays until the next tap;
// the line never moves a button. With `score` (a match) the score leads, so that a long
// line is cut in its words, never in the score.
export function notify(text, { error = false, score = null } = {}) {
  const box = $("[data-status]");
  const message = element("p", { className: error ? "message error" : "message" });
  if (score) {
    const echo = element("strong", { className: "echo" });
    echo.append(
      element("span", { ariaHidden: "true", textContent: scoreLine(score) }),
      element("span", { className: "visually-hidden", textContent: `${announce(score)}. ` }), // for a screen reader
    );
    message.append(echo);
  }
  message.append(element("span", { textContent: text }));
  box.replaceChildren(message);
  fade(box);
}

export function fade(box) {
  clearTimeout(notifyTimer);
  if (!$(".error", box)) notifyTimer = setTimeout(() => box.replaceChildren(), 6000);
}

export const told = () => {
  refusals.length = 0;
};

// The words needed only sometimes (the settings', a refusal's), kept by the service worker
// for use offline.
export const moreWords = once(() =>
  fetch(`/words/${document.documentElement.lang}.json`)
    .then((response) => response.json())
    .then((loaded) => Object.assign(words, loaded)),
);

export function failed() {
  notify(notSaved(trouble.tap ?? trouble.sync), { error: true });
  drawSync();
}

// A name is changed in its score card at any time: a tap on it shows its field.
export function renamable() {
  for (const name of $$(".player .name")) {
    const rename = (event) => {
      if (event.type === "keydown" && event.key !== "Enter") return;
      const card = name.closest(".player");
      card.classList.add("renaming");
      const field = $(".name-input", card);
      field.focus();
      field.addEventListener("blur", () => card.classList.remove("renaming"), { once: true });
    };
    name.addEventListener("click", rename);
    name.addEventListener("keydown", rename);
  }
}
