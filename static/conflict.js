// Another phone recorded (or took back) a deal before this phone's tap arrived: was it the
// same deal? Asked in the server's words, with its two answers (docs/sync.md, "Two phones,
// one deal"). Loaded when first needed.
import { ask } from "./ask.js";
import * as outbox from "./outbox.js";

let asking = false;

export async function settle(change) {
  if (asking) return;
  asking = true;
  try {
    const choice = await ask(change.ask.question, change.ask.same, change.ask.add);
    if (choice) decide(change.id, choice === "no"); // closed unanswered: asked again later
  } finally {
    asking = false;
  }
}

// "Same deal": this phone's deal leaves the outbox. "Add mine": it goes again, after the
// deals the match has now. Either way the later deals of that match follow on from it.
function decide(id, addMine) {
  outbox.reread();
  const { state } = outbox;
  const index = state.outbox.findIndex((each) => each.id === id);
  if (index < 0) return; // another tab answered already
  const change = state.outbox[index];
  const known = state.match.uid === change.match ? state.match.deals.length : change.after;
  const shift = known - change.after;
  for (const each of state.outbox.slice(index + 1)) {
    if (each.kind === "deal" && each.match === change.match) each.after += addMine ? shift : shift - 1;
  }
  if (addMine) {
    change.after = known;
    delete change.ask;
  } else {
    state.outbox.splice(index, 1);
  }
  outbox.save();
  outbox.show.draw();
  outbox.flush();
}
