// What another phone on the same key did that this one's player is asked about, in the
// server's words (docs/sync.md): it recorded (or took back) a deal before this phone's tap
// arrived, or it started a new match. Loaded when first needed.
import { ask } from "./ask.js";
import { $, announce, element, moreWords, notify, words } from "./board.js";
import { decided } from "./choice.js";
import * as outbox from "./outbox.js";

// Each new match is offered once, however often its stream comes back (the server says
// it again to every stream of the old match: a phone back at the table); one this phone
// turned down is not offered again when the page is opened again.
const offered = new Set();
const STAYED = "santase-counter-stayed";
// A deal tapped while an offer stands is asked about.
let standing = null;

// Another phone that showed this match started a new one: offered, or shown at once
// where this match is over.
export function offer(event) {
  const next = JSON.parse(event.data);
  if (offered.has(next.id)) return;
  offered.add(next.id);
  // Nothing is left to play here: both players tapping "New match" would start two.
  if (outbox.view().finished) {
    follow(next.id).then((followed) => followed && notify(next.text));
    return;
  }
  if (localStorage.getItem(STAYED) === String(next.id)) return;
  // Beside the status line, not in it: a tap's confirmation does not take it away.
  const message = element("p", { className: "message offer" });
  message.dataset.offer = next.id;
  const answer = (textContent, then) => {
    const button = element("button", { type: "button", className: "inline-undo", textContent });
    button.addEventListener("click", then);
    return button;
  };
  message.append(
    element("span", { textContent: next.text }),
    " ",
    answer(next.button, () => follow(next.id)),
    " ",
    answer(next.keep, () => withdrawOffer(true)),
  );
  $("[data-offer]")?.remove();
  $("[data-status]").before(message);
  standing = next;
}

function withdrawOffer(stay = false) {
  $("[data-offer]")?.remove();
  try {
    if (stay) localStorage.setItem(STAYED, standing.id);
  } catch {
    // storage full or refused: offered again on the next reload, nothing worse
  }
  standing = null;
}

// Which match is a deal tapped during an offer for? True once that match is on the
// screen; false if the player closed the question, or the new match cannot be had
// (offline, or finished or deleted meanwhile): then the tap records nothing, and says so.
export async function dealGoesTo() {
  if (!standing || !$("[data-offer]")) return true;
  const { text, which, id } = standing;
  const answers = [
    ["new", standing.new],
    ["old", standing.old],
  ];
  const where = await ask(`${text} ${which}`, answers, { required: true });
  if (where === "new") {
    if (await follow(id)) return true;
    const said = () => notify(words.notForNew, { error: true });
    moreWords().then(said, () => {}); // unsaid offline without the words at hand
    return false;
  }
  if (where === "old") withdrawOffer(true);
  return where === "old";
}

async function follow(id) {
  const resumed = fetch(`/api/matches/${id}/resume`, { method: "POST", credentials: "same-origin" });
  const response = await resumed.catch(() => null);
  // Finished or deleted meanwhile, it is offered no more; offline, the offer stands.
  if ([404, 409].includes(response?.status)) withdrawOffer();
  if (!response?.ok) return false;
  withdrawOffer();
  const match = await response.json();
  await outbox.update((saved) => {
    if (saved.match.id) saved.ids[saved.match.uid] = saved.match.id; // for its changes still waiting
    saved.match = match;
  });
  outbox.show.draw();
  return true;
}

let asking = false;

// The server's answer (`match` as it is now, and the question `ask`) is kept: the deal
// waits first in line with its question until the player answers.
export async function settle(change, answer) {
  if (answer.match) await keep(change, answer);
  // An answer come too late is not kept with the deal.
  const waiting = outbox.state.outbox.find((each) => each.id === change.id && each.ask);
  if (asking || !waiting) return; // answered
  asking = true;
  try {
    const { question, same, mine, add } = waiting.ask;
    const answers = Object.entries({ same, mine, add }).filter(([, label]) => label);
    $("[data-status]").replaceChildren(); // the tap's confirmation counted the deal asked about
    const choice = await ask(question, answers, { required: true });
    if (choice) decide(change.id, choice);
    else setTimeout(() => settle(waiting, waiting), 3000); // closed unanswered: asked again soon
  } finally {
    asking = false;
  }
}

// A question answered since (the deal now follows another count of deals, or is gone)
// stays answered, and the match as it came since stays: an answer to the same deal sent
// twice (two wakings, one before the first answer was kept) can come after the player's.
const keep = (change, answer) =>
  outbox.update((saved) => {
    const waiting = saved.outbox.find((each) => each.id === change.id && each.after === change.after);
    if (!waiting) return;
    // How many deals the match has now, for "Add mine" (the match may be off the screen).
    waiting.ask = { ...answer.ask, count: answer.match.deals?.length ?? answer.ask.count };
    if (answer.match.uid === saved.match.uid) saved.match = answer.match;
  });

// Then the score as it now stands, not as the tap left it; where a later deal waits, which
// may be asked about in turn (the score would count it), once every deal has gone.
function decide(id, choice) {
  const waiting = outbox.state.outbox;
  const later = waiting.slice(waiting.findIndex((each) => each.id === id) + 1);
  const decides = outbox.update((saved) => decided(saved, id, choice));
  outbox.show.draw();
  const told = () => notify(announce(outbox.view()));
  if (!later.some((each) => each.kind === "deal")) told();
  decides.then(outbox.flush).then(() => {
    const sent = !outbox.state.outbox.some((each) => each.kind === "deal");
    if (sent && later.some((each) => each.kind === "deal")) told();
  }, outbox.fail);
}
