// Which tab of this browser sends the outbox: one at a time, from what is stored; the
// others show it. Web Locks choose it; over plain http, where there are none, a lease does
// (plain-http.js, loaded only then).
import { newId, STORE } from "./changes.js";

let sender = null; // the lease, once loaded
const theLease = () =>
  (sender ??= import("./plain-http.js").then((module) => module.lease(`${STORE}-sender`, newId())));

let holding = 0; // this tab's tasks under the lock (the lease counts its own)
const holdingTheLock = async (task) => {
  holding += 1;
  try {
    return await task();
  } finally {
    holding -= 1;
  }
};

// `task` once this tab is the sending one. Under a lease another tab holds, `elsewhere`
// instead, with how long before that lease expires (should the sending tab be closed).
export async function asTheSender(task, elsewhere) {
  if (navigator.locks) return navigator.locks.request(STORE, () => holdingTheLock(task));
  const lease = await theLease();
  return lease.whileHeld(task, () => elsewhere(lease.expires));
}

// `task` while no other tab sends, and none starts to; null if one does, or if that cannot
// be known (no lease to be had: offline over plain http, before plain-http.js came).
export async function whileNoneSends(task) {
  if (holding) return task(); // this tab holds the lock, and rereads before it sends the next
  let ran = false;
  const run = () => {
    ran = true;
    return task();
  };
  try {
    if (navigator.locks) {
      return await navigator.locks.request(STORE, { ifAvailable: true }, (lock) => (lock ? run() : null));
    }
    return await (await theLease()).whileHeld(run, () => null);
  } catch (error) {
    if (ran) throw error;
    return null;
  }
}
