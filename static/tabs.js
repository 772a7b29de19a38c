// Two tabs of one browser keep one stored state (outbox.js), and each rereads it before it
// writes. Yet a browser hands one tab's write to its other tabs a moment later, so a tab
// can save a copy read just before another tab's change came, and that change is gone.
// Each save counts a version one higher than the one it read, and each change keeps the
// version of the save that added it (`v`). A save names the version it read (its own less
// one): a change added after that, gone from what it wrote, was never seen by that tab,
// so it was lost, not taken out, and goes back in. A change the writing tab saw and took
// out (answered, withdrawn, refused) stays out. Loaded by counter.js with the first such
// save; should it not load (offline over plain http), nothing is put back.
import * as outbox from "./outbox.js";

const parse = (value) => { try { return JSON.parse(value); } catch { return null; } };

// What the write `event` tells of lost from the stored outbox, put back and sent.
export function recover(event) {
  const before = parse(event.oldValue);
  const after = parse(event.newValue);
  if (!before?.outbox || !after?.outbox || after.version > before.version) return;
  const read = after.version - 1; // what the writing tab had read
  outbox.reread();
  const { state } = outbox;
  const kept = new Set(state.outbox.map((change) => change.id));
  const lost = before.outbox.filter((change) => change.v > read && !kept.has(change.id));
  if (!lost.length) return;
  for (const change of lost) {
    const uid = change.match ?? change.uid;
    state.ids[uid] ??= before.ids?.[uid];
    change.v = state.version + 1; // added again, by the save below
  }
  state.outbox.push(...lost);
  outbox.save();
  outbox.flush();
}
