// An evening's board, live: its body is drawn again from each push of its stream (the server
// renders it). A new round ends the stream ("gone"): the page is loaded again, with the new
// round's tables. Without a stream it reloads every 10 s, as it does without JavaScript.
const board = document.getElementById("board");
const again = () => location.reload();
const source = window.EventSource && new EventSource(board.dataset.events);
if (source) {
  let silence = null;
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(again, 2000 * Number(board.dataset.beat || 15));
  };
  heard();
  source.addEventListener("beat", heard);
  source.onmessage = (event) => {
    heard();
    board.innerHTML = JSON.parse(event.data).html;
  };
  source.addEventListener("gone", again);
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) setTimeout(again, 10000);
  };
} else {
  setTimeout(again, 10000);
}
