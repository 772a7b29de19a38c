// What the counter needs over plain http, where a phone on the home Wi-Fi reaches it at
// the computer's address: the page is no secure context there. Loaded only there.
//
// One sending tab without Web Locks: a lease in localStorage chooses the tab of this
// browser that sends the outbox. A tab claims the lease when no other tab holds one, then
// waits a moment in case another tab claimed it at the same time: the last claim stands.
// It renews the lease while it sends and gives it up when it is done; a closed tab's lease
// simply expires.

const LEASE_MS = 10000;
const CLAIM_MS = 100;

export function lease(name, tab) {
  let holding = 0; // this tab's tasks running under the lease
  const held = () => JSON.parse(localStorage.getItem(name) ?? "null");
  const claim = () => localStorage.setItem(name, JSON.stringify({ tab, until: Date.now() + LEASE_MS }));

  async function take() {
    try {
      const other = held();
      if (other && other.tab !== tab && other.until > Date.now()) return false;
      claim();
      await new Promise((resolve) => {
        setTimeout(resolve, CLAIM_MS);
      });
      return held()?.tab === tab;
    } catch {
      return true; // no storage: this tab is the only one that knows its outbox
    }
  }

  function release() {
    try {
      if (held()?.tab === tab) localStorage.removeItem(name);
    } catch {
      /* nothing to give up */
    }
  }

  // Runs `task` if this tab holds the lease, else calls `refused` (another tab sends).
  async function whileHeld(task, refused) {
    if (!holding && !(await take())) return refused();
    holding += 1;
    const renew = setInterval(claim, LEASE_MS / 3);
    try {
      return await task();
    } finally {
      clearInterval(renew);
      holding -= 1;
      if (!holding) release();
    }
  }

  addEventListener("pagehide", release);
  return { whileHeld, expires: LEASE_MS };
}

// The server adds a note on what needs HTTPS (installing, opening without a network):
// said once in this browser, then left out.
const note = document.querySelector("[data-plain-http]");
try {
  if (note && localStorage.getItem("santase-counter-http-noted")) note.remove();
  else if (note) localStorage.setItem("santase-counter-http-noted", "1");
} catch {
  /* no storage: the note stays */
}
