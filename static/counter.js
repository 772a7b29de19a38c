// Santase Counter in the browser: a tap changes the score at once, whatever the network
// does. Every change goes into an outbox kept in this browser (localStorage) with its
// request id fixed at the tap, and is sent in order, retried until the server answers.
// Without this script every form still works by itself.
import { fold } from "./standing.js";

const root = document.getElementById("counter");
const words = root ? JSON.parse(root.dataset.words) : {};
const say = (template, values = {}) => template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));
const $ = (selector, within = root) => within.querySelector(selector);
const $$ = (selector, within = root) => [...within.querySelectorAll(selector)];

// A second tap on the same button this soon is the same tap: two real deals are minutes apart.
const SAME_TAP_MS = 600;
const STORE = "santase-counter";
// 128 random bits as 32 hex digits. crypto.getRandomValues works on every page;
// crypto.randomUUID only in a secure context, which http://<LAN address> is not.
const newId = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
// Each outcome's name, as its button says it.
const named = (outcome) => $(`button.deal[value="${outcome}"] .kind`).textContent;

// --- what this phone knows: the server's last answer, and its own changes not yet confirmed

let state; // {match, tables, rule_names, outbox: [change], ids: {uid: id}}
let lastTap = { key: null, at: -Infinity };
let refusals = []; // the taps the server refused since the player's last change
// An error of this page's own: in a tap (shown until the player's next change) or in
// sending the outbox (until it has all gone through).
let fault = null;
let syncFault = null;
// When a tap changed the board last: a finger's second tap that soon lands on whatever the
// first one brought under it (the New match of a won match, the Undo moving up), and is
// the same tap, not an order.
let lastChange = -Infinity;
const tooSoon = () => performance.now() - lastChange < SAME_TAP_MS;

function load() {
  const page = JSON.parse(root.dataset.state);
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(STORE)); } catch { saved = null; }
  // A page the server has just drawn is its truth; the service worker's copy, opened
  // offline, is older than what this phone saw last.
  const fresh = root.dataset.fresh === "1" || !saved;
  state = { ...page, match: fresh ? page.match : saved.match, outbox: saved?.outbox ?? [], ids: saved?.ids ?? {} };
  save();
}

// What another tab of this browser may have changed since.
function reread() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE));
    if (saved) Object.assign(state, { match: saved.match, outbox: saved.outbox, ids: saved.ids });
  } catch { /* nothing stored: this tab's own state stands */ }
}

function save() {
  const { match, outbox } = state;
  const ids = {}; // the ids still needed: those of matches with changes waiting
  for (const change of outbox) {
    const uid = change.match ?? change.uid;
    if (state.ids[uid]) ids[uid] = state.ids[uid];
  }
  state.ids = ids;
  try { localStorage.setItem(STORE, JSON.stringify({ match, outbox, ids })); } catch { /* full: memory only */ }
}

const view = () => fold(state.match, state.outbox, state);

// Each change carries what the player tapped, in words: a refusal names it.
function enqueue(change) {
  refusals = [];
  fault = null;
  state.outbox.push({ ...change, at: Date.now() });
  save();
  render();
  flush();
}

// Changes to a match not started yet on the server start it first, with what the screen shows.
function matchUid() {
  const shown = view();
  if (shown.uid) return shown.uid;
  const uid = newId();
  enqueue({
    kind: "start", uid, target: shown.target, first_dealer: shown.first_dealer,
    players: shown.players.map((player) => player.name), rules: shown.rules,
  });
  return uid;
}

// --- sending the outbox ------------------------------------------------------------------------

let sending = false;
let retryDelay = 1000;
let retryTimer = null;

class Refused extends Error {} // the counter said no: the change is dropped and named
class Gone extends Error {} // the match is no longer there
class Unreachable extends Error {} // no answer from the counter: the change waits its turn

async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method, credentials: "same-origin",
      headers: body ? { "Content-Type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    throw new Unreachable(error.message); // offline, or the connection broke
  }
  if (response.status === 204) return null;
  const answer = await response.json().catch(() => undefined);
  if (response.ok && answer !== undefined) return answer;
  // A busy server or database, too many requests, or an answer that is not the counter's
  // (a proxy's timeout, a Wi-Fi login page): the change waits its turn.
  if (response.ok || response.status >= 500 || response.status === 429 || answer?.error === undefined) {
    throw new Unreachable(answer?.error ?? response.statusText);
  }
  throw new (response.status === 404 ? Gone : Refused)(answer.error);
}

function request(change) {
  const id = state.ids[change.match ?? change.uid] ?? (state.match.uid === change.match ? state.match.id : null);
  const match = `/api/matches/${id}`;
  switch (change.kind) {
    case "start": {
      const { uid, target, players, rules, first_dealer } = change;
      return ["POST", "/api/matches", { uid, target, players, rules, first_dealer }];
    }
    case "deal":
      return ["POST", `${match}/deals`, { player: change.player, outcome: change.outcome, request_id: change.request_id }];
    case "undo": {
      const which = change.request_id ? `request_id=${encodeURIComponent(change.request_id)}` : `number=${change.number}`;
      return ["DELETE", `${match}/deals/last?${which}`];
    }
    default: {
      const body = {};
      for (const name of ["target", "players", "rules", "first_dealer", "play_on"]) {
        if (change[name] !== undefined) body[name] = change[name];
      }
      return ["PATCH", match, body];
    }
  }
}

function answered(change, match) {
  if (match && typeof match.uid !== "string") throw new TypeError("the answer holds no match");
  if (match) {
    state.ids[match.uid] = match.id;
    // The server's truth for that match, deals from another phone included.
    if (change.kind === "start" || !state.match.uid || match.uid === state.match.uid) state.match = match;
  }
  state.outbox.shift();
  save();
}

function refused(change, error) {
  state.outbox.shift();
  const uid = change.kind === "start" ? change.uid : change.match;
  if (error instanceof Gone || change.kind === "start") {
    // The match was deleted, or never started: nothing more can go to it.
    state.outbox = state.outbox.filter((each) => each.match !== uid);
  }
  const reason = error instanceof Gone ? words.gone : error.message;
  refusals.push(say(words.refused, { tap: describeChange(change), reason }));
  notify(refusals.join(" "), { error: true }); // every refused tap, until the next tap
  save();
}

// One tab of this browser sends at a time, from what is stored; the others show it. Web
// Locks choose it; over plain http, where there are none, a lease does (lease.js).
let sender = null; // the lease, once loaded

async function alone(task) {
  if (navigator.locks) return navigator.locks.request(STORE, task);
  sender ??= import("./lease.js").then((module) => module.lease(`${STORE}-sender`, newId()));
  const lease = await sender;
  return lease.alone(task, () => {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(flush, lease.expires); // should the sending tab be closed meanwhile
  });
}

const flush = () => alone(flushNow).catch(fail);
// Back online, back on screen, or just opened: send what waits, then look at the server.
const wakeUp = () => {
  retryDelay = 1000;
  alone(async () => { await flushNow(); await refresh(); render(); }).catch(fail);
};

async function flushNow() {
  if (sending) return;
  reread();
  if (!state.outbox.length) return;
  sending = true;
  clearTimeout(retryTimer);
  try {
    while (state.outbox.length) {
      const change = state.outbox[0];
      let answer;
      try {
        answer = await call(...request(change));
      } catch (error) {
        if (!(error instanceof Refused || error instanceof Gone)) throw error;
        refused(change, error);
        await refresh();
        continue;
      }
      answered(change, answer);
      retryDelay = 1000;
      render();
    }
    syncFault = null;
  } catch (error) {
    // No network, or the server is busy: try again later, each time waiting longer. Any
    // other error is this page's own: it is shown, never taken for a bad line.
    if (!(error instanceof Unreachable)) fail(error); // while sending: until it goes through
    retryTimer = setTimeout(flush, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 30000);
  } finally {
    sending = false;
    render();
  }
}

// The server's truth, when nothing is waiting to go: the match this browser played
// last, wherever it was played (another phone with the same matches included).
async function refresh() {
  if (state.outbox.length || !state.match.id) return;
  try {
    state.match = await call("GET", "/api/matches/current");
  } catch (error) {
    if (error instanceof Unreachable) return; // what this phone has stands
    if (!(error instanceof Gone)) throw error;
    state.match = blankAfter(state.match); // no match left here: a new one, not yet stored
  }
  save();
}

// What the counter shows when this browser has no match: the same players, nothing played.
function blankAfter(match) {
  const players = match.players.map((player) => ({ ...player, score: 0, games: 0 }));
  return {
    ...match, id: null, uid: null, deals: [], players, winner: null, finished: false,
    dealer: match.first_dealer, leader: 3 - match.first_dealer,
  };
}

// --- showing the match ----------------------------------------------------------------------------

function describe(match, deal) {
  if (!deal.player) return named(deal.outcome);
  return `+${deal.points} ${match.players[deal.player - 1].name} · ${named(deal.outcome)}`;
}

function describeChange(change) {
  return change.label ?? words.changes[change.kind];
}

function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function dealRow(match, deal) {
  const row = document.createElement("tr");
  const number = document.createElement("td");
  if (match.id && !deal.pending) {
    const fix = document.createElement("a");
    fix.className = "fix";
    fix.href = `/matches/${match.id}/deals/${deal.number}`;
    fix.textContent = deal.number;
    fix.setAttribute("aria-label", say(words.correctDeal, { number: deal.number }));
    number.append(fix);
  } else {
    number.textContent = deal.number;
  }
  const why = cell(named(deal.outcome));
  const note = deal.pending ? words.pending : deal.corrected ? words.corrected : null;
  if (note) {
    const mark = document.createElement("small");
    mark.className = deal.pending ? "pending" : "corrected";
    mark.textContent = note;
    why.append(" ", mark);
  }
  row.append(
    number,
    deal.player ? cell(`+${deal.points} ${match.players[deal.player - 1].name}`, `seat${deal.player}`) : cell("±0"),
    why, cell(deal.scores[0], "num"), cell(deal.scores[1], "num"),
  );
  if (deal.pending) row.className = "pending";
  return row;
}

const shownBefore = {}; // what the fields showed at the last render

function render() {
  const match = view();
  const [first, second] = match.players;
  const score = `${first.score}:${second.score}`;
  root.classList.toggle("fresh", match.deals.length === 0);
  root.classList.toggle("over", match.finished);
  for (const player of match.players) {
    const board = $(`.player[data-seat="${player.seat}"]`);
    $("[data-score]", board).textContent = player.score;
    $("[data-games]", board).textContent = player.games;
    $("[data-winner]", board).hidden = match.winner !== player.seat;
    $("[data-deals]", board).hidden = match.finished || match.dealer !== player.seat;
    board.classList.toggle("won", match.winner === player.seat);
    for (const label of $$(`[data-name="${player.seat}"]`)) {
      label.textContent = player.name;
      label.title = player.name;
    }
    for (const input of [$(`#player${player.seat}`), $(`#rename${player.seat}`)]) {
      if (shownBefore[`name${player.seat}`] !== player.name) input.value = player.name;
    }
    shownBefore[`name${player.seat}`] = player.name;
    $(".first-dealer", board).setAttribute("aria-pressed", String(match.dealer === player.seat));
  }
  $("[data-result]").textContent = match.finished
    ? say(words.wins, { name: match.players[match.winner - 1].name, score }) : "";
  $(".result").hidden = !match.finished;
  $(".result [name=target]").value = match.target;
  $(".result button").textContent = say(words.newMatch, { target: match.target });
  $(".record").hidden = match.finished;
  for (const button of $$(".record button.deal")) {
    const points = match.table.points[button.value];
    button.hidden = points === undefined;
    if (points !== undefined && button.value !== "tie") $(".points", button).textContent = `+${points}`;
  }
  $(".tie").hidden = match.table.points.tie === undefined;
  // A target a score has reached would end the match at once; above a winner's, it plays on.
  const top = Math.max(first.score, second.score);
  for (const button of $$(".targets button")) {
    const target = Number(button.value);
    button.setAttribute("aria-pressed", String(target === match.target));
    button.disabled = target === match.target || target <= top;
  }
  const undo = $(".undo button");
  undo.disabled = match.deals.length === 0;
  // Fields follow the match only when it changed: a choice being made stays as it is.
  const rules = JSON.stringify(match.rules);
  if (shownBefore.rules !== rules) {
    for (const select of $$(".rules-form select[id^=rule-]")) select.value = match.rules[select.name];
    shownBefore.rules = rules;
  }
  const rows = match.deals.toReversed().map((deal) => dealRow(match, deal));
  $(".deals tbody").replaceChildren(...rows);
  $(".deals").hidden = rows.length === 0;
  $(".empty").hidden = rows.length > 0;
  showSync();
  document.title = `${first.name} ${score} ${second.name} · ${document.title.split(" · ").pop()}`;
  keepAwake(!match.finished);
}

// "All saved" only when the server has confirmed every change, and no error of this page
// may have lost one.
function showSync() {
  const waiting = state.outbox.length;
  const sync = $("[data-sync]");
  const count = waiting === 0 ? words.saved : waiting === 1 ? words.waitingOne : say(words.waiting, { count: waiting });
  const reason = fault ?? syncFault;
  if (reason) sync.textContent = say(words.notSaved, { reason });
  else sync.textContent = navigator.onLine ? count : `${words.offline} · ${count}`;
  sync.classList.toggle("waiting", waiting > 0 || reason !== null);
  sync.classList.toggle("fault", reason !== null);
}

// An error of this page's own, in a tap, a sync or a drawing: logged, and said where the
// player looks, with the taps kept in the outbox for the next try.
function fail(error) {
  console.error(error);
  const reason = say(words.scriptFailed, { error: error?.message ?? String(error) });
  if (sending) syncFault = reason;
  else fault = reason;
  notify(say(words.notSaved, { reason }), { error: true });
  showSync();
}

// One line under the score: what the last tap did, with its Undo, or what went wrong.
// It never moves a button, and a confirmation leaves by itself after a few seconds.
let notifyTimer = null;

function notify(text, { error = false, undo = false, stays = false } = {}) {
  const box = $("[data-status]");
  const message = document.createElement("p");
  message.className = error ? "message error" : stays ? "message stays" : "message";
  const line = document.createElement("span");
  line.textContent = text;
  message.append(line);
  if (undo) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "inline-undo";
    button.textContent = words.undo;
    button.addEventListener("click", undoLast);
    message.append(" ", button);
  }
  box.replaceChildren(message);
  fade(box);
}

// A confirmation leaves after a few seconds (its Undo stays in the Undo button and the
// deal list); a refusal or a note stays until the next tap. A long one opens in full when tapped.
function fade(box) {
  clearTimeout(notifyTimer);
  if (!$(".error, .stays", box)) notifyTimer = setTimeout(() => box.replaceChildren(), 6000);
}

function announce(match) {
  const [first, second] = match.players;
  return say(words.score, { name1: first.name, score1: first.score, name2: second.name, score2: second.score });
}

// A confirmation in the page, for a step that is not taken back in one tap.
function ask(text, yes) {
  const dialog = document.createElement("dialog");
  dialog.className = "ask";
  const question = document.createElement("p");
  question.textContent = text;
  const buttons = document.createElement("form");
  buttons.method = "dialog";
  for (const [value, label] of [["yes", yes], ["no", words.cancel]]) {
    const button = document.createElement("button");
    button.value = value;
    button.textContent = label;
    if (value === "yes") button.className = "primary";
    buttons.append(button);
  }
  dialog.append(question, buttons);
  document.body.append(dialog);
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => { dialog.remove(); resolve(dialog.returnValue === "yes"); });
  });
}

// --- the table: screen awake, theme, face to face -------------------------------------------------

let wakeLock = null;
let wantAwake = false;

async function keepAwake(want) {
  wantAwake = want;
  if (!("wakeLock" in navigator)) return;
  if (want && !wakeLock && document.visibilityState === "visible") {
    try {
      wakeLock = await navigator.wakeLock.request("screen");
      wakeLock.addEventListener("release", () => { wakeLock = null; });
    } catch {
      wakeLock = null; // battery saver or a browser policy: the screen may sleep
    }
  } else if (!want && wakeLock) {
    await wakeLock.release();
  }
}

// --- what the buttons do --------------------------------------------------------------------------

function tapDeal(player, outcome) {
  const now = performance.now();
  const key = `${player}:${outcome}`;
  const again = lastTap.key === key && now - lastTap.at < SAME_TAP_MS;
  lastTap = { key, at: now };
  if (again) return; // the same tap: already in the outbox
  lastChange = now;
  const match = matchUid();
  const seat = player ? Number(player) : null;
  const before = view();
  const label = describe(before, { player: seat, outcome, points: before.table.points[outcome] });
  enqueue({ kind: "deal", match, player: seat, outcome, request_id: newId(), label });
  notify(`${label}. ${announce(view())}`, { undo: true });
}

function undoLast() {
  const shown = view();
  const deal = shown.deals.at(-1);
  if (!deal || tooSoon()) return;
  lastChange = performance.now();
  const last = state.outbox.at(-1);
  if (last && last.kind === "deal" && last.request_id === deal.request_id && !(sending && state.outbox.length === 1)) {
    state.outbox.pop(); // never sent: it goes from the outbox, and nothing travels
    save();
    render();
  } else {
    const label = say(words.undoOf, { number: deal.number, note: describe(shown, deal) });
    enqueue({ kind: "undo", match: shown.uid, request_id: deal.request_id, number: deal.number, label });
  }
  lastTap = { key: null, at: -Infinity };
  notify(`${say(words.undone, { number: deal.number, note: describe(shown, deal) })} ${announce(view())}`);
}

function changeSettings(change, message) {
  enqueue({ kind: "settings", match: matchUid(), ...change, label: message });
  notify(message);
}

const handlers = {
  deal: (form, button) => tapDeal(form.elements.player.value, button.value),
  undo: () => undoLast(),
  async target(_form, button) {
    const target = Number(button.value);
    const shown = view();
    let play_on;
    if (shown.finished) {
      const winner = shown.players[shown.winner - 1];
      const question = say(words.confirmPlayOn, { name: winner.name, score: `${shown.players[0].score}:${shown.players[1].score}`, target });
      if (!(await ask(question, say(words.playOn, { target })))) return;
      play_on = true;
    }
    changeSettings({ target, play_on }, say(words.targetNow, { target }));
  },
  names(form) {
    const typed = [form.elements.player1.value, form.elements.player2.value];
    const players = typed.map((name, index) => name.trim().replace(/\s+/g, " ") || words.defaultNames[index]);
    changeSettings({ players }, say(words.namesSaved, { first: players[0], second: players[1] }));
  },
  dealer(_form, button) {
    const seat = Number(button.value);
    changeSettings({ first_dealer: seat }, say(words.dealerSaved, { name: view().players[seat - 1].name }));
  },
  rules(form) {
    const preset = words.presets[form.elements.preset.value];
    const rules = {};
    for (const name of state.rule_names) rules[name] = form.elements[name].value;
    changeSettings(preset ?? { rules }, words.rulesSaved);
    form.elements.preset.value = "";
  },
  async new(form) {
    if (tooSoon()) return;
    const shown = view();
    if (shown.deals.length && !shown.finished) {
      const match = `${shown.players[0].name} – ${shown.players[1].name} ${shown.players[0].score}:${shown.players[1].score}`;
      if (!(await ask(say(words.confirmNew, { match }), words.startNew))) return;
    }
    const data = new FormData(form);
    const preset = words.presets[data.get("preset")];
    const change = { kind: "start", uid: newId(), target: Number(data.get("target")), first_dealer: shown.dealer };
    enqueue({ ...change, ...(preset ?? {}), label: words.changes.start });
    lastTap = { key: null, at: -Infinity };
    lastChange = performance.now();
    notify(say(words.started, { target: view().target }));
    form.reset?.();
  },
};

if (root) {
  document.body.classList.add("live");
  load();
  render();
  wakeUp(); // what a closed tab left unsent goes now
  const status = $("[data-status]");
  fade(status);
  status.addEventListener("click", (event) => {
    if (event.target.closest(".message") && !event.target.closest("button")) event.target.closest(".message").classList.toggle("open");
  });
  // With the script, a name counts as soon as it is typed: no button to find first.
  for (const input of $$(".name-input")) input.addEventListener("change", () => handlers.names($("#names")));
  root.addEventListener("submit", (event) => {
    const handler = handlers[event.target.dataset.action];
    if (!handler) return;
    event.preventDefault();
    Promise.resolve().then(() => handler(event.target, event.submitter)).catch(fail);
  });
  window.addEventListener("error", (event) => fail(event.error ?? event.message));
  window.addEventListener("unhandledrejection", (event) => fail(event.reason));
  window.addEventListener("pagehide", () => sender?.then((lease) => lease.release()));
  // Over plain http at the computer's address the server adds a note on what needs HTTPS
  // (installing, opening without a network): said once in this browser, then left out.
  const note = $("[data-plain-http]");
  try {
    if (note && (window.isSecureContext || localStorage.getItem(`${STORE}-http-noted`))) note.remove();
    else if (note) localStorage.setItem(`${STORE}-http-noted`, "1");
  } catch { /* no storage: the note stays */ }
  window.addEventListener("online", wakeUp);
  window.addEventListener("offline", render);
  // Another phone with these matches may have played meanwhile: look now and then.
  setInterval(() => {
    if (document.visibilityState === "visible" && navigator.onLine && !state.outbox.length) wakeUp();
  }, 20000);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") wakeUp(); });
  // Another tab of this browser changed the outbox or the match: show the same.
  window.addEventListener("storage", (event) => { if (event.key === STORE && !sending) { reread(); render(); } });
}

if (root) document.addEventListener("visibilitychange", () => keepAwake(wantAwake));
