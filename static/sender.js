// Which tab of this browser sends the outbox, one at a time: Web Locks choose it; over plain
// http, where there are none, a lease does (plain-http.js, loaded only then).
import { newId, STORE } from "./changes.js";

let sender = null;
const theLease = () =>
  (sender ??= import("./plain-http.js").then((module) => module.lease(`${STORE}-sender`, newId())));

// Under a lease another tab holds, `elsewhere` instead, with how long before that lease
// expires (should the sending tab be closed).
export async function asTheSender(task, elsewhere) {
  if (navigator.locks) return navigator.locks.request(STORE, task);
  const lease = await theLease();
  return lease.whileHeld(task, () => elsewhere(lease.expires));
}
