// A shared match, live: the page is drawn again as soon as the match changes, pushed by the
// server (Server-Sent Events). Without a stream (no EventSource, or the server refused one)
// it reloads every 10 s, as it does without JavaScript.
const page = document.querySelector("[data-event]");
const again = () => location.reload();
const source = window.EventSource && new EventSource(`${location.pathname.replace(/^\/shared/, "/api/shared")}/events`);
if (source) {
  // Silent for two heartbeats (a proxy holding the stream back): the page looks itself.
  let silence = null;
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(again, 2000 * Number(page.dataset.beat || 15));
  };
  heard();
  source.addEventListener("beat", heard);
  source.onmessage = (event) => {
    heard();
    if (event.lastEventId !== page.dataset.event) again();
  };
  source.addEventListener("gone", again);
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) setTimeout(again, 10000);
  };
} else {
  setTimeout(again, 10000);
}
