// What the settings' buttons do on the counter: the target, the names, the first dealer,
// the house rules and a new match. Loaded when first needed; `tap` (counter.js) makes the
// change and guards against the same tap twice.
import { $, element, fill, moreWords, notify, scoreLine, wonBy, words } from "./board.js";
import { newId } from "./changes.js";
import { matchUid, state, view } from "./outbox.js";

await moreWords();
// Its questions (ask.js) are drawn by the other pages' styles.
document.head.append(element("link", { rel: "stylesheet", href: "/static/pages.css" }));

// The browser's own confirmation if ask.js cannot be loaded (offline over plain http).
async function ask(text, yes) {
  try {
    const { ask: inPage } = await import("./ask.js");
    const answers = [
      ["yes", yes],
      ["no", words.cancel],
    ];
    return (await inPage(text, answers)) === "yes";
  } catch {
    return window.confirm(text);
  }
}

// `what` names the change if the server refuses it ("Match to 7"); `message` says it is made.
function changeSettings(tap, settings, message, what) {
  tap.change({ kind: "settings", match: matchUid(), ...settings, label: what });
  notify(message);
}

export async function target(_form, button, tap) {
  const target = Number(button.value);
  const shown = view();
  let play_on;
  if (shown.finished) {
    const question = fill(words.confirmPlayOn, { ...wonBy(shown), target });
    if (!(await ask(question, fill(words.playOn, { target })))) return;
    play_on = true;
  }
  changeSettings(
    tap,
    { target, play_on },
    fill(words.targetNow, { target }),
    `${$("#target-label").textContent} ${target}`,
  );
}

// Names go as typed: the server tidies them. Enter in a name field both changes it and
// submits the form: the second time nothing is new.
export function names(form, _button, tap) {
  // An empty score card's name is the one its placeholder shows.
  const players = [1, 2].map((seat) => {
    const input = form.elements[`player${seat}`];
    return input.value.trim() || input.placeholder || input.value;
  });
  if (players.every((name, index) => name === view().players[index].name)) return;
  changeSettings(
    tap,
    { players },
    fill(words.namesSaved, { first: players[0], second: players[1] }),
    players.join(" – "),
  );
}

export function dealer(_form, button, tap) {
  const seat = Number(button.value);
  const name = view().players[seat - 1].name;
  changeSettings(tap, { first_dealer: seat }, fill(words.dealerSaved, { name }), `${button.textContent}: ${name}`);
}

// A preset shows its rules in the selects beside it before it is saved, where a rule can
// still be chosen otherwise: what is saved is what the selects show.
export function preview(form) {
  const preset = words.presets[form.elements.preset.value];
  if (!preset) return;
  for (const [name, choice] of Object.entries(preset.rules)) form.elements[name].value = choice;
}

export function rules(form, _button, tap) {
  const preset = words.presets[form.elements.preset.value];
  const rules = {};
  for (const name of state.rules.rule_names) rules[name] = form.elements[name].value;
  // A preset comes with its target (and game), and says so when that changes the match's.
  const target = preset?.target;
  const moved = target !== undefined && target !== view().target;
  const message = moved ? `${words.rulesSaved} ${fill(words.targetNow, { target })}` : words.rulesSaved;
  changeSettings(tap, { rules, target, game: preset?.game }, message, $("legend", form).textContent);
  form.elements.preset.value = "";
}

export async function start(form, _button, tap) {
  if (tap.tooSoon()) return;
  const shown = view();
  if (shown.deals.length && !shown.finished) {
    const [first, second] = shown.players;
    const match = `${first.name} – ${second.name} ${scoreLine(shown)}`;
    if (!(await ask(fill(words.confirmNew, { match }), words.startNew))) return;
  }
  const data = new FormData(form);
  const preset = words.presets[data.get("preset")];
  // A game other than the match's is played to its own targets: the form's, if it offers it.
  const game = data.get("game") || shown.game;
  const targets = state.rules.games[game].targets;
  const asked = Number(data.get("target"));
  const target = targets.includes(asked) ? asked : state.rules.games[game].target;
  const start = { kind: "start", uid: newId(), game, target, first_dealer: shown.dealer };
  tap.change({ ...start, ...(preset ?? {}), label: words.started });
  tap.started();
  const started = view();
  notify(fill(words.match[started.game].startedTo, { target: started.target }));
  // The form offers the new match's game and target next, not those the page was drawn with.
  const next = { game: started.game, target: started.target, preset: "" };
  for (const [name, value] of Object.entries(next)) if (form.elements[name]) form.elements[name].value = value;
}
