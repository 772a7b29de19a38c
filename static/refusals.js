// The line that names every change the server refused since the player's last change.
// Refusals come only from a server that answers, and seldom: this file and its words load
// with the first one.
import { fill, moreWords, notify, refusals, words } from "./board.js";
import { Gone } from "./api.js";

await moreWords();

export function refused(change, error) {
  const reason = error instanceof Gone ? words.gone : error.message;
  const template = change.kind === "settings" ? words.notChanged : words.refused;
  const line = fill(template, { tap: change.label ?? words.started, reason });
  // A setting refused again is said once; each refused deal is a tap of its own.
  if (change.kind !== "settings" || !refusals.includes(line)) refusals.push(line);
  notify(refusals.join(" "), { error: true });
}
