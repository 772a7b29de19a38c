// Two tabs of one browser keep one stored state (outbox.js), and each rereads it before it
// writes. Yet a browser hands one tab's write to its other tabs a moment later, so a tab
// can save a copy read just before another tab's change came, and that change is gone.
// Each save counts a version one higher than the one it read: a save whose version is no
// higher than the one it replaced was made without it. What such a save dropped from the
// outbox goes back in. Sending a change twice is safe (the server knows its request id or
// uid, docs/sync.md); losing one is not. Loaded when another tab first writes; should
// it not load (offline over plain http), the tabs only show each other's writes.
import * as outbox from "./outbox.js";

const parse = (value) => { try { return JSON.parse(value); } catch { return null; } };

// What the write `event` tells of dropped from the stored outbox, put back and sent.
export function recover(event) {
  const before = parse(event.oldValue);
  const after = parse(event.newValue);
  if (!before?.outbox || !after?.outbox || after.version > before.version) return;
  outbox.reread();
  const { state } = outbox;
  const kept = new Set(state.outbox.map((change) => change.id));
  const lost = before.outbox.filter((change) => !kept.has(change.id));
  if (!lost.length) return;
  for (const change of lost) {
    const uid = change.match ?? change.uid;
    state.ids[uid] ??= before.ids?.[uid];
  }
  state.outbox.push(...lost);
  outbox.save();
  outbox.flush();
}
