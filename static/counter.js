// Santase Counter in the browser: taps go through the JSON API and the page is
// updated in place, with no reload. Without this script every form still works.

const root = document.getElementById("counter");
const words = root ? JSON.parse(root.dataset.words) : {};
const say = (template, values = {}) =>
  template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));

// A second tap on the same button this soon is the same tap (a double tap), and a
// tap again after a failure may repeat a deal that did arrive: both reuse the
// request id, so the server records the deal once. Two real deals are minutes apart.
const SAME_TAP_MS = 600;

let shown = null; // the match as the server last described it
let queue = Promise.resolve(); // changes go to the server one after another, in tap order
let lastTap = { key: null, at: 0, requestId: null, failed: false };

// --- talking to the server -----------------------------------------------------------

async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body ? { "Content-Type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new Error(words.offline);
  }
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new Error(answer?.error ?? words.failed);
  return answer;
}

async function currentMatchId() {
  if (root.dataset.matchId) return root.dataset.matchId;
  // Before the first deal nothing is stored yet: start the match shown on screen.
  const names = [1, 2].map((seat) => root.querySelector(`#player${seat}`).value);
  const target = Number(root.querySelector(".targets [aria-pressed=true]").value);
  const match = await call("POST", "/api/matches", { target, players: names });
  show(match);
  return String(match.id);
}

// --- showing a match -------------------------------------------------------------------

function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function show(match) {
  shown = match;
  root.dataset.matchId = match.id;
  const [first, second] = match.players;
  for (const player of match.players) {
    const board = root.querySelector(`.player[data-seat="${player.seat}"]`);
    board.querySelector(".name").textContent = player.name;
    board.querySelector("[data-score]").textContent = player.score;
    board.querySelector("[data-games]").textContent = player.games;
    board.querySelector("[data-winner]").hidden = match.winner !== player.seat;
    const turn = board.querySelector("[data-turn]");
    if (turn) {
      turn.hidden = match.finished;
      turn.querySelector("[data-deals]").hidden = match.dealer !== player.seat;
      turn.querySelector("[data-leads]").hidden = match.dealer === player.seat;
    }
    board.classList.toggle("won", match.winner === player.seat);
    for (const label of root.querySelectorAll(`[data-name="${player.seat}"]`)) {
      label.textContent = player.name;
    }
    root.querySelector(`#player${player.seat}`).value = player.name;
  }
  root.querySelector("[data-target]").textContent = match.target;
  for (const input of root.querySelectorAll("input[name=match_id]")) input.value = match.id;

  const rows = match.deals.toReversed().map((deal) => {
    const row = document.createElement("tr");
    const name = deal.player ? match.players[deal.player - 1].name : null;
    const fix = document.createElement("a");
    fix.className = "fix";
    fix.href = `/matches/${match.id}/deals/${deal.number}`;
    fix.textContent = deal.number;
    fix.setAttribute("aria-label", say(words.correctDeal, { number: deal.number }));
    const why = cell(words.outcomes[deal.outcome]);
    if (deal.corrected) {
      const mark = document.createElement("small");
      mark.className = "corrected";
      mark.textContent = words.corrected;
      why.append(" ", mark);
    }
    const number = document.createElement("td");
    number.append(fix);
    row.append(
      number,
      name ? cell(`+${deal.points} ${name}`, `seat${deal.player}`) : cell("±0"),
      why,
      cell(deal.scores[0], "num"),
      cell(deal.scores[1], "num"),
    );
    return row;
  });
  root.querySelector(".deals tbody").replaceChildren(...rows);
  root.querySelector(".deals").hidden = rows.length === 0;
  root.querySelector(".empty").hidden = rows.length > 0;

  const score = `${first.score}:${second.score}`;
  const winner = match.winner ? match.players[match.winner - 1].name : null;
  root.querySelector(".finished").hidden = !match.finished;
  root.querySelector("#record-closed").hidden = !match.finished;
  root.querySelector("[data-finished-text]").textContent = winner
    ? say(words.wins, { name: winner, score })
    : "";
  for (const fieldset of root.querySelectorAll("[data-action=deal] fieldset")) {
    fieldset.disabled = match.finished;
  }
  const undo = root.querySelector("[data-action=undo]");
  undo.querySelector("button").disabled = match.deals.length === 0;
  undo.querySelector("[name=deal_number]").value = match.deals.length || "";
  for (const button of root.querySelectorAll(".targets button")) {
    const chosen = Number(button.value) === match.target;
    button.disabled = chosen;
    button.setAttribute("aria-pressed", String(chosen));
  }
  for (const input of root.querySelectorAll(".new-match [name=target]")) {
    input.checked = Number(input.value) === match.target;
  }
  root.querySelector(".finished [name=target]").value = match.target;
  root.querySelector(".finished button").textContent = say(words.newMatch, { target: match.target });
  root.querySelector(".new-match").hidden = match.deals.length === 0;
  document.title = `${first.name} ${score} ${second.name} · ${document.title.split(" · ").pop()}`;
  keepAwake(!match.finished);
}

function tell(text, { error = false, undoDeal = null } = {}) {
  const box = root.querySelector(".messages");
  const message = document.createElement("p");
  message.className = error ? "message error" : "message";
  message.textContent = text;
  if (undoDeal) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "inline-undo";
    button.textContent = words.undo;
    button.addEventListener("click", () => act(() => undo(undoDeal)));
    message.append(" ", button);
  }
  box.replaceChildren(message);
}

function announce(match) {
  const [first, second] = match.players;
  return say(words.score, {
    name1: first.name, score1: first.score, name2: second.name, score2: second.score,
  });
}

// --- what the buttons do ---------------------------------------------------------------------

function act(change) {
  root.setAttribute("aria-busy", "true");
  queue = queue
    .then(change)
    .catch((error) => tell(error.message, { error: true }))
    .finally(() => root.removeAttribute("aria-busy"));
  return queue;
}

function requestIdFor(key) {
  const now = performance.now();
  const same = lastTap.key === key && (lastTap.failed || now - lastTap.at < SAME_TAP_MS);
  lastTap = { key, at: now, requestId: same ? lastTap.requestId : crypto.randomUUID(), failed: false };
  return lastTap;
}

async function recordDeal(player, outcome) {
  const tap = requestIdFor(`${player}:${outcome}`);
  const before = root.querySelectorAll(".deals tbody tr").length;
  let match;
  try {
    const matchId = await currentMatchId();
    match = await call("POST", `/api/matches/${matchId}/deals`, {
      player: player ? Number(player) : null, outcome, request_id: tap.requestId,
    });
  } catch (error) {
    tap.failed = true;
    throw error;
  }
  show(match);
  if (match.deals.length === before) return; // the same tap again: nothing new to say
  const deal = match.deals.at(-1);
  tell(`${describe(match, deal)}. ${announce(match)}`, { undoDeal: deal.number });
}

function describe(match, deal) {
  if (!deal.player) return words.outcomes[deal.outcome]; // a tie: nobody's points
  return say(words.note, {
    points: deal.points, name: match.players[deal.player - 1].name,
    outcome: words.outcomes[deal.outcome],
  });
}

async function undo(number) {
  // Only this deal: a second tap finds it gone and the server takes back nothing more.
  const matchId = root.dataset.matchId;
  const before = shown ?? (await call("GET", `/api/matches/${matchId}`));
  const deal = before.deals.find((candidate) => candidate.number === number);
  const match = await call("DELETE", `/api/matches/${matchId}/deals/last?number=${number}`);
  show(match);
  const note = deal ? describe(before, deal) : "";
  tell(`${say(words.undone, { number, note })} ${announce(match)}`);
}

const handlers = {
  deal: (form, button) => recordDeal(form.elements.player.value, button.value),
  undo: (form) => undo(Number(form.elements.deal_number.value)),
  async target(_form, button) {
    const target = Number(button.value);
    show(await call("PATCH", `/api/matches/${await currentMatchId()}`, { target }));
    tell(say(words.targetNow, { target }));
  },
  async names(form) {
    const players = [form.elements.player1.value, form.elements.player2.value];
    show(await call("PATCH", `/api/matches/${await currentMatchId()}`, { players }));
    tell(words.namesSaved);
  },
  async new(form) {
    lastTap = { key: null, at: 0, requestId: null, failed: false };
    const data = new FormData(form);
    const body = { target: Number(data.get("target")) };
    if (data.get("first_dealer")) body.first_dealer = Number(data.get("first_dealer"));
    const preset = words.presets[data.get("preset")];
    if (preset) Object.assign(body, preset);
    const match = await call("POST", "/api/matches", body);
    const rules = [match.rules.failed_close, match.rules.wrong_claim, match.rules.next_dealer];
    if (rules.join(" ") !== root.dataset.rules) {
      location.reload(); // other rules, other buttons: the server draws them
      return;
    }
    show(match);
    tell(say(words.started, { target: match.target }));
  },
};

if (root) {
  document.body.classList.add("live");
  const offline = () => tell(words.offlinePage, { error: true });
  if (!navigator.onLine) offline();
  window.addEventListener("offline", offline);
  window.addEventListener("online", () => act(async () => {
    // Back online: the score may have moved on another phone meanwhile.
    if (root.dataset.matchId) show(await call("GET", `/api/matches/${root.dataset.matchId}`));
    root.querySelector(".messages").replaceChildren();
  }));
  root.addEventListener("submit", (event) => {
    const form = event.target;
    const handler = handlers[form.dataset.action];
    if (!handler || !window.fetch) return;
    event.preventDefault();
    const button = event.submitter;
    act(() => handler(form, button));
  });
}

// --- the table: screen awake, theme, face to face -----------------------------------------------

let wakeLock = null;
let wantAwake = Boolean(root) && root.querySelector(".finished")?.hidden;

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

if (root) {
  keepAwake(wantAwake);
  document.addEventListener("visibilitychange", () => keepAwake(wantAwake));
}

const display = document.querySelector(".display");
const darkQuery = matchMedia("(prefers-color-scheme: dark)");

function applyDisplay() {
  const theme = localStorage.getItem("theme");
  const dark = theme ? theme === "dark" : darkQuery.matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  display.querySelector("[data-theme-toggle]").setAttribute("aria-pressed", String(dark));
  const facing = localStorage.getItem("facing") === "on";
  document.body.classList.toggle("facing", facing);
  display.querySelector("[data-facing-toggle]").setAttribute("aria-pressed", String(facing));
}

if (display) {
  display.hidden = false;
  display.querySelector("[data-theme-toggle]").addEventListener("click", () => {
    localStorage.setItem("theme", document.documentElement.dataset.theme === "dark" ? "light" : "dark");
    applyDisplay();
  });
  display.querySelector("[data-facing-toggle]").addEventListener("click", () => {
    localStorage.setItem("facing", document.body.classList.contains("facing") ? "off" : "on");
    applyDisplay();
  });
  darkQuery.addEventListener("change", applyDisplay);
  applyDisplay();
}

// Dates in the phone's own time zone.
const dates = new Intl.DateTimeFormat(document.documentElement.lang, {
  dateStyle: "medium", timeStyle: "short",
});
for (const time of document.querySelectorAll("time[datetime]")) {
  time.textContent = dates.format(new Date(time.dateTime));
}

// The page shell keeps loading when the network drops; deals still need the server.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});
}
