// A shared match, live: the page is drawn again as soon as the match changes, pushed by the
// server (Server-Sent Events). Without a stream (no EventSource, or the server refused one)
// it reloads every 10 s, as it does without JavaScript.
const page = document.querySelector("[data-event]");
const again = () => location.reload();
const source = window.EventSource && new EventSource(`${location.pathname.replace(/^\/shared/, "/api/shared")}/events`);
if (source) {
  source.onmessage = (event) => { if (event.lastEventId !== page.dataset.event) again(); };
  source.addEventListener("gone", again);
  source.onerror = () => { if (source.readyState === EventSource.CLOSED) setTimeout(again, 10000); };
} else {
  setTimeout(again, 10000);
}
