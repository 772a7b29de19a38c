// Where this browser keeps the match and its outbox: one record in IndexedDB. Every change
// of it is one readwrite transaction, which the browser runs one at a time for all the tabs
// of the site, so no tab ever writes over a copy newer than the one it read (docs/sync.md).
// The other tabs are told over a BroadcastChannel. Without IndexedDB: this tab's memory.
import { STORE } from "./changes.js";

const KEY = "state";
const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(STORE) : null;
let opening = null;
let memory = null; // where IndexedDB cannot be opened

const open = () =>
  (opening ??= new Promise((resolve) => {
    const request = indexedDB.open(STORE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(KEY);
    request.onsuccess = () => {
      const db = request.result;
      // Erased (Clear-Site-Data) or opened by a newer page: open it again when next needed.
      db.onclose = db.onversionchange = () => {
        db.close();
        opening = null;
      };
      resolve(db);
    };
    request.onerror = () => resolve(null);
  }).catch(() => null));

function transaction(db, mode, run) {
  return new Promise((resolve, reject) => {
    const done = db.transaction(KEY, mode);
    const records = done.objectStore(KEY);
    let result;
    records.get(KEY).onsuccess = (event) => {
      try {
        result = run(event.target.result ?? null, records);
      } catch (error) {
        done.abort();
        reject(error);
      }
    };
    done.oncomplete = () => resolve(result);
    done.onabort = () => reject(done.error);
  });
}

// The database is opened afresh should it have been closed meanwhile.
async function withDb(run, alone) {
  for (let tries = 1; ; tries += 1) {
    const db = await open();
    if (!db) return alone();
    try {
      return await run(db);
    } catch (error) {
      if (error?.name !== "InvalidStateError" || tries > 1) throw error;
      opening = null;
    }
  }
}

export const read = () =>
  withDb(
    (db) => transaction(db, "readonly", (saved) => saved),
    () => memory && structuredClone(memory),
  );

// `change(record)` (`fresh()` if there is none yet) in one transaction, stored if it says
// it changed it; then the other tabs are told. Returns the record as it is stored then.
export async function write(change, fresh) {
  let changed = false;
  const saved = await withDb(
    (db) =>
      transaction(db, "readwrite", (saved, records) => {
        const record = saved ?? fresh();
        changed = change(record) || !saved;
        if (changed) records.put(record, KEY);
        return record;
      }),
    () => {
      memory ??= fresh();
      change(memory);
      return structuredClone(memory);
    },
  );
  if (changed) channel?.postMessage(saved.version);
  return saved;
}

export const onChange = (then) => channel?.addEventListener("message", then);
