// Live: the server pushes each change of the match on the screen, from any phone, as
// Server-Sent Events (docs/sync.md). EventSource reconnects by itself and resumes with
// Last-Event-ID; a stream the server refuses (429) leaves the page looking every 20 s.
let source = null;
let watching = null;

export function follow(id, arrived, gone) {
  if (id === watching) return;
  stop();
  watching = id;
  if (!id || !window.EventSource) return;
  source = new EventSource(`/api/matches/${id}/events`);
  source.onmessage = (event) => arrived(JSON.parse(event.data));
  source.addEventListener("gone", gone);
}

export const isLive = () => source?.readyState === EventSource.OPEN;

export function stop() {
  source?.close();
  source = watching = null;
}
