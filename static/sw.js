// The counter's service worker: keeps the page shell (styles, script, icons and the
// last copy of each page) so the counter opens without a network. Deals are never
// stored here: the API always goes to the server, and a tap that cannot reach it fails.

const SHELL = "santase-shell-v1";
const ASSETS = [
  "/static/counter.css",
  "/static/counter.js",
  "/static/icon.svg",
  "/static/icon-192.png",
  "/manifest.webmanifest",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(ASSETS)));
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((names) =>
      Promise.all(names.filter((name) => name !== SHELL).map((name) => caches.delete(name))),
    ),
  );
  self.clients.claim();
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin || url.pathname.startsWith("/api/")) {
    return; // writes and the API always go to the network
  }
  if (request.mode === "navigate") {
    // Network first, so scores are fresh; the last copy when offline.
    event.respondWith(
      fetch(request)
        .then((response) => {
          const copy = response.clone();
          if (response.ok) caches.open(SHELL).then((cache) => cache.put(request, copy));
          return response;
        })
        .catch(() => caches.match(request).then((hit) => hit ?? caches.match("/"))),
    );
    return;
  }
  // Static files: from the cache, refreshed in the background.
  event.respondWith(
    caches.match(request).then((hit) => {
      const fresh = fetch(request)
        .then((response) => {
          if (response.ok) {
            const copy = response.clone();
            caches.open(SHELL).then((cache) => cache.put(request, copy));
          }
          return response;
        })
        .catch((error) => hit ?? Promise.reject(error));
      return hit ?? fresh;
    }),
  );
});
