// Santase Counter in the browser: what each button does. A tap changes the score at once,
// whatever the network does (outbox.js, docs/sync.md); without this script every form
// still works by itself.
// prettier-ignore
import { $, $$, describe, draw, drawSync, fade, failed, fill, moreWords, notify, once, renamable, root, told, words } from "./board.js";
import { newId } from "./changes.js";
// prettier-ignore
import { arrived, enqueue, fail, knownBefore, load, matchUid, show, state, undo, view, wakeUp } from "./outbox.js";

// A second tap on the same button this soon is the same tap: two real deals are minutes apart.
const SAME_TAP_MS = 600;
let lastTap = { key: null, at: -Infinity };
// A finger's second tap that soon after a change lands on whatever the first one brought
// under it (the New match of a won match, the Undo moving up): the same tap, not an order.
let lastChange = -Infinity;
const tooSoon = () => performance.now() - lastChange < SAME_TAP_MS;

// What the server refused before is old news once the player changes something.
function change(each, into = enqueue) {
  told();
  into(each);
  loadSwitches().catch(() => {}); // offline: with the next change
  loadSettings().catch(() => {});
}

// Said again, so that a player who meant two changes knows the second did not count.
const sameTap = (said, options) =>
  moreWords().then(
    () => notify(`${words.sameTap} ${said}`, options),
    () => {},
  );

function tapDeal(player, outcome) {
  const now = performance.now();
  const key = `${player}:${outcome}`;
  const again = lastTap.key === key && now - lastTap.at < SAME_TAP_MS;
  lastTap = { key, at: now, said: lastTap.said };
  if (again) {
    sameTap(lastTap.said, { score: view() });
    return;
  }
  lastChange = now;
  // Another phone's new match is offered: the player says which match this deal is for.
  if ($("[data-offer]")) {
    otherPhone()
      .then((module) => module.dealGoesTo())
      .then((goes) => goes && record(player, outcome), fail);
    return;
  }
  record(player, outcome);
}

function record(player, outcome) {
  const match = matchUid();
  const seat = player ? Number(player) : null;
  const before = view();
  const label = describe(before, { player: seat, outcome, points: before.outcomes[outcome].points });
  // `after` lets the server tell when another phone recorded a deal first; one that came
  // from another phone just now may be this very deal.
  const after = knownBefore(before.deals.length);
  change({ kind: "deal", match, player: seat, outcome, request_id: newId(), after, label });
  lastTap.said = label;
  notify(label, { score: view() });
}

// Undo counts right after a deal too ("wrong button"); only a second Undo in the same
// instant is the same tap.
let lastUndo = { at: -Infinity, said: "" };

function undoLast() {
  const now = performance.now();
  if (now - lastUndo.at < SAME_TAP_MS) {
    sameTap(lastUndo.said);
    return;
  }
  const shown = view();
  const deal = shown.deals.at(-1);
  if (!deal) return;
  lastUndo = { at: now, said: "" };
  lastChange = now;
  lastTap = { key: null, at: -Infinity };
  const note = describe(shown, deal);
  const label = fill(words.undoOf, { number: deal.number, note });
  change({ kind: "undo", match: shown.uid, request_id: deal.request_id, number: deal.number, label }, undo);
  // Its words came with the first change; offline where they could not, the score alone.
  const score = view();
  moreWords().then(
    () => notify((lastUndo.said = fill(words.undone, { number: deal.number, note })), { score }),
    () => notify("", { score }),
  );
}

// settings.js loads with the first change or the first setting tapped, and makes its
// changes with `tap`.
const tap = {
  change,
  tooSoon,
  started() {
    lastTap = { key: null, at: -Infinity };
    lastChange = performance.now();
  },
};
const loadSettings = once(() => import("./settings.js"));
const setting = (name) => (form, button) => loadSettings().then((module) => module[name](form, button, tap));

const handlers = {
  deal: (form, button) => tapDeal(form.elements.player.value, button.value),
  undo: undoLast,
  target: setting("target"),
  names: setting("names"),
  dealer: setting("dealer"),
  rules: setting("rules"),
  new: setting("start"),
};

// --- the screen stays awake during a match ---------------------------------------------------------

let wakeLock = null;
let wantAwake = false;
let awake = null;

async function keepAwake(want) {
  wantAwake = want;
  if (!("wakeLock" in navigator)) {
    // Plain http: awake.js, from the first tap on (a tap is what lets its video play).
    if (awake || navigator.userActivation?.isActive) {
      awake ??= import("./awake.js");
      awake.then((module) => module.keep(want && visible())).catch(() => {});
    }
    return;
  }
  if (want && !wakeLock && visible()) {
    try {
      wakeLock = await navigator.wakeLock.request("screen");
      wakeLock.addEventListener("release", () => {
        wakeLock = null;
      });
    } catch {
      wakeLock = null; // battery saver or a browser policy: the screen may sleep
    }
  } else if (!want && wakeLock) {
    await wakeLock.release();
  }
}

// --- live: the server pushes each change of the match, from any phone (docs/sync.md) ---------------
// EventSource reconnects and resumes with Last-Event-ID; refused (429), the page looks every
// 20 s; open but silent for two heartbeats (a proxy holding it), it is opened afresh.

let source = null;
let following = null;
let silence = null;
const SILENT_MS = 2000 * Number(root.dataset.beat || 15);

function heard() {
  clearTimeout(silence);
  silence = setTimeout(() => {
    const id = following;
    follow(null);
    follow(id);
    wakeUp();
  }, SILENT_MS);
}

function follow(id) {
  if (id === following) return;
  source?.close();
  clearTimeout(silence);
  following = id;
  source = id && new EventSource(`/api/matches/${id}/events`);
  if (!id) return;
  heard();
  source.addEventListener("beat", heard);
  source.onmessage = (event) => {
    heard();
    arrived(JSON.parse(event.data));
  };
  source.addEventListener("gone", wakeUp); // deleted, or no longer this phone's
  source.addEventListener("next", (event) => {
    heard();
    otherPhone().then((module) => module.offer(event));
  });
}

const visible = () => document.visibilityState === "visible";

function redraw() {
  const shown = draw();
  keepAwake(!shown.finished);
  if (visible()) follow(shown.id);
}

const otherPhone = () => import("./other-phone.js");
const overtaken = (change, answer) =>
  otherPhone().then(
    (module) => module.settle(change, answer),
    () => {},
  );

document.body.classList.add("live");
const showRefused = (change, error) =>
  import("./refusals.js").then((module) => module.refused(change, error)).catch(fail);
Object.assign(show, {
  draw: redraw,
  refused: showRefused,
  failed,
  overtaken,
  blank: () => moreWords().then(() => words.blank),
});
load(JSON.parse(root.dataset.state), root.dataset.fresh === "1"); // draws once it has read the store
wakeUp(); // what a closed tab left unsent goes now
const status = $("[data-status]");
fade(status);
status.addEventListener("click", (event) => {
  if (!event.target.closest("button")) event.target.closest(".message")?.classList.toggle("open");
});
// Each tap makes its change after the one before it, even one waiting for settings.js: a
// target tapped just before a deal counts first.
let lastTurn = Promise.resolve();
const inTurn = (run) => {
  lastTurn = lastTurn.then(run).catch(fail);
};
// A name counts as soon as it is typed: no button to find first.
for (const input of $$(".name-input"))
  input.addEventListener("change", () => inTurn(() => handlers.names($("#names"))));
renamable();
// A preset chosen shows at once what it will set.
root.addEventListener("change", (event) => {
  if (event.target.matches(".rules-form [name=preset]"))
    loadSettings().then((module) => module.preview(event.target.form), fail);
});
root.addEventListener("submit", (event) => {
  const handler = handlers[event.target.dataset.action];
  if (!handler) return;
  event.preventDefault();
  inTurn(() => handler(event.target, event.submitter));
});
window.addEventListener("error", (event) => fail(event.error ?? event.message));
window.addEventListener("unhandledrejection", (event) => fail(event.reason));
// The footer's display switches work offline once display.js has loaded, with the first
// change or switch (before either, over plain http and offline, a switch waits).
const display = document.querySelector("form.display");
const loadSwitches = once(() => import("./display.js"));
display.addEventListener("submit", (event) => {
  event.preventDefault();
  loadSwitches().then(
    (module) => module.switchDisplay(event.submitter, display),
    () => {},
  );
});
// No theme chosen yet: the switch shows the phone's own.
if (!document.documentElement.dataset.theme && matchMedia("(prefers-color-scheme: dark)").matches) {
  display.elements.theme.setAttribute("aria-pressed", "true");
  display.elements.theme.value = display.elements.theme.dataset.off;
}
// A service worker needs a secure context (HTTPS, or this computer).
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
if (window.isSecureContext) $("[data-plain-http]")?.remove(); // said where there is none (plain-http.js)
window.addEventListener("online", wakeUp);
window.addEventListener("offline", drawSync);
// Another phone may have played meanwhile: without a live stream, look now and then.
setInterval(() => {
  if (visible() && navigator.onLine && !state.outbox.length && source?.readyState !== 1) wakeUp();
}, 20000);
document.addEventListener("visibilitychange", () => {
  if (visible()) wakeUp();
  else follow(null); // a page out of sight holds no stream open
  keepAwake(wantAwake);
});
