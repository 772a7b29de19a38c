// The player's answer to the server's question about a deal another phone overtook, as a
// change of what is stored (docs/sync.md). Apart from changes.js: it loads with
// other-phone.js, when first needed; no DOM here, so that Node's tests import it.

// "same" takes this phone's deal out, "mine" turns it into a correction of the other
// phone's deal, "add" sends it again after the deals the match has now. The later deals
// of that match follow on from it: after "same" or "mine" they may be the other phone's
// later deals too, so they still follow the deals this phone knew, and are asked about in
// turn. False if another tab answered already.
export function decided(saved, id, choice) {
  const index = saved.outbox.findIndex((each) => each.id === id);
  if (index < 0) return false;
  const change = saved.outbox[index];
  const addMine = choice === "add";
  const known = change.ask?.count ?? (saved.match.uid === change.match ? saved.match.deals.length : change.after);
  const shift = known - change.after;
  const moves = addMine ? shift : Math.min(shift, 1) - 1; // only by the deals taken back
  for (const each of saved.outbox.slice(index + 1)) {
    if (each.kind === "deal" && each.match === change.match) each.after += moves;
  }
  if (addMine) {
    change.after = known;
    delete change.ask;
  } else if (choice === "mine") {
    Object.assign(change, { kind: "correct", number: change.ask.deal, tried: false });
    delete change.ask;
    delete change.after;
  } else {
    saved.outbox.splice(index, 1);
  }
  return true;
}
