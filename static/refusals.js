// The line that names every change the server refused since the player's last change.
// Refusals come only from a server that answers, and seldom: this file and its words load
// with the first one.
import { fill, moreWords, notify, refusals, words } from "./board.js";
import { Gone } from "./api.js";

await moreWords();

export function refused(change, error) {
  const reason = error instanceof Gone ? words.gone : error.message;
  const template = change.kind === "settings" ? words.notChanged : words.refused;
  refusals.push(fill(template, { tap: change.label ?? words.started, reason }));
  notify(refusals.join(" "), { error: true });
}
