// The counter's service worker: the counter opens without a network. It keeps the page
// shell (the counter page, styles, scripts, icons); the score itself lives in the page's
// script, which keeps what this phone saw last and the taps it has not sent yet. The API
// always goes to the network, and nothing personal but the counter page is kept here.

const SHELL = "santase-shell-v13";
const ASSETS = [
  "/",
  "/static/counter.css",
  "/static/pages.css",
  "/static/counter.js",
  // The modules counter.js imports, and those it loads when first needed.
  "/static/outbox.js",
  "/static/store.js",
  "/static/changes.js",
  "/static/api.js",
  "/static/sender.js",
  "/static/board.js",
  "/static/standing.js",
  "/static/other-phone.js",
  "/static/choice.js",
  "/static/ask.js",
  "/static/display.js",
  "/static/settings.js",
  "/static/refusals.js",
  "/words/bg.json",
  "/words/en.json",
  "/words/de.json",
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
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== SHELL).map((name) => caches.delete(name)))),
  );
  self.clients.claim();
});

// Marked as a copy, the page shows the score this phone saw last rather than the copy's.
async function counterCopy() {
  const stored = await caches.match("/");
  if (!stored) return Response.error();
  const page = (await stored.text()).replace('data-fresh="1"', 'data-fresh="0"');
  return new Response(page, { headers: stored.headers });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin || url.pathname.startsWith("/api/")) {
    return; // writes and the API always go to the network
  }
  if (request.mode === "navigate") {
    // Only the counter page is kept for later; another page asked for offline leads to
    // the counter, which works without a network.
    event.respondWith(
      fetch(request)
        .then((response) => {
          if (response.ok && url.pathname === "/") {
            const copy = response.clone();
            caches.open(SHELL).then((cache) => cache.put("/", copy));
          }
          return response;
        })
        .catch(() => (url.pathname === "/" ? counterCopy() : Response.redirect("/", 303))),
    );
    return;
  }
  // Static files: from the cache, refreshed in the background.
  event.respondWith(
    caches.match(request).then((hit) => {
      const fresh = fetch(request)
        .then((response) => {
          if (response.ok && /^\/(static|words)\//.test(url.pathname)) {
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
