"""Tap to paint: from the finger on a deal button to the first frame that shows the new score.

    python -m bench.tap            # 60 taps in each condition, about 2 minutes
    python -m bench.tap --quick    # 20 taps each

Debian's Chromium (/usr/bin/chromium) at 390x844 through Playwright, against the app
served on loopback: plain, with 300 ms and 2 s added to every request (Chrome's own
network emulation), and offline. Each tap is timed in the page: from the touch's
``pointerdown`` event to the start of the first animation frame after the score
changed, the frame that paints it. Between taps the deal is undone, and the next
tap waits out the double-tap window. The figures are written into bench/RESULTS.md,
between the markers of their section; nothing asserts them.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright
from werkzeug.serving import make_server

from bench import sections
from bench.run import HERE, SECRET, machine
from counter import create_app

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
CONDITIONS = [("loopback", None), ("300 ms latency", 300), ("2 s latency", 2000), ("offline", -1)]

# Two clocks per tap: from the event's own time stamp (when the touch reached the
# browser), and from when the page's code first saw it; the difference is Chromium's
# input pipeline, the same for any page.
TIMER = """(selector) => {
  window.__taps = [];
  let down = null;
  document.addEventListener("pointerdown", (event) => {
    down = [event.timeStamp, performance.now()];
  }, true);
  new MutationObserver(() => {
    if (down === null) return;
    const [stamp, seen] = down;
    down = null;
    requestAnimationFrame((frame) => {
      window.__taps.push([frame - stamp, frame - seen]);
    });
  }).observe(document.querySelector(selector), { childList: true, subtree: true });
}"""
SCORE = '.player[data-seat="1"] [data-score]'
# A counter that keeps everything in the page and does nothing else: the floor.
FLOOR = """<!doctype html><meta name="viewport" content="width=device-width">
<button style="font-size:2rem;padding:1rem">+1</button> <output>0</output>
<script>
const out = document.querySelector("output");
document.querySelector("button").addEventListener("click", () => {
  out.textContent = Number(out.textContent) + 1;
});
</script>"""


def taps(page: Page, count: int, *, score: str = SCORE, undo: bool = True) -> list[list[float]]:
    """Tap Win for the first player ``count`` times, undoing each, and read the timings."""
    page.evaluate(TIMER, score)
    win = page.locator("form.seat1 button[value=normal]" if undo else "button")
    for done in range(1, count + 1):
        win.tap()
        page.wait_for_function("count => window.__taps.length === count", arg=done)
        page.wait_for_timeout(650)  # past the double-tap window: a tap, not the same tap
        if undo:
            page.locator(".undo button").evaluate("button => button.click()")  # not timed
    return list(page.evaluate("window.__taps"))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(base: str, count: int) -> list[tuple[str, list[float]]]:
    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for label, latency in CONDITIONS:
            context = browser.new_context(
                viewport={"width": 390, "height": 844},
                is_mobile=True,
                has_touch=True,
                device_scale_factor=2,
                base_url=base,
                service_workers="block",
            )
            page = context.new_page()
            page.goto("/")
            page.locator("form.seat2 button[value=normal]").tap()  # the match exists now
            page.wait_for_function(
                "() => !document.querySelector('[data-sync]').matches('.waiting')"
            )
            if latency == -1:
                context.set_offline(True)
            elif latency:
                network = context.new_cdp_session(page)
                network.send("Network.enable")
                network.send(
                    "Network.emulateNetworkConditions",
                    {
                        "offline": False,
                        "latency": latency,
                        "downloadThroughput": -1,
                        "uploadThroughput": -1,
                    },
                )
            results.append((label, taps(page, count)))
            context.close()
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
        )
        page = context.new_page()
        page.set_content(FLOOR)
        results.append(
            ("floor: a bare page counter", taps(page, count, score="output", undo=False))
        )
        browser.close()
    return results


def section(results: list[tuple[str, list[Any]]], count: int) -> str:
    lines = [
        "## Tap to paint",
        "",
        f"`python -m bench.tap`, {machine()}: Chromium at 390x844, {count} taps of *Win* per",
        "condition (each undone before the next), from the touch's `pointerdown` to the first",
        "animation frame after the score changed. Goal: p95 within one frame (16.7 ms) in",
        "every condition. Before this round, a tap waited for the server: 25 ms median on",
        "loopback, 2,091 ms with 2 s latency.",
        "",
        "The first columns count from the touch's time stamp; the last two from the moment",
        "the page's code first saw the touch, which leaves out Chromium's own input pipeline.",
        "The floor is a bare page that adds 1 to a number on each click.",
        "",
        "| condition | taps | p50 ms | p95 ms | max ms | seen → frame p50 | p95 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, timings in results:
        stamped = [stamp for stamp, _seen in timings]
        seen = [seen for _stamp, seen in timings]
        lines.append(
            f"| {label} | {len(timings)} | {statistics.median(stamped):.1f} | "
            f"{percentile(stamped, 0.95):.1f} | {max(stamped):.1f} | "
            f"{statistics.median(seen):.1f} | {percentile(seen, 0.95):.1f} |"
        )
    return "\n".join(lines) + "\n"


def write(text: str, path: Path) -> None:
    """Put ``text`` in place of this benchmark's section of ``path``, or at its end."""
    sections.write(path, "tap-to-paint", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 taps per condition")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    arguments = parser.parse_args()
    count = 20 if arguments.quick else 60
    with tempfile.TemporaryDirectory(prefix="santase-tap-") as folder:
        app = create_app(
            {
                "SECRET_KEY": SECRET,
                "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/tap.sqlite",
                "RATELIMIT_ENABLED": False,
            }
        )
        http = make_server("127.0.0.1", 0, app, threaded=True)
        thread = threading.Thread(target=http.serve_forever, daemon=True)
        thread.start()
        try:
            results = measure(f"http://127.0.0.1:{http.server_port}", count)
        finally:
            http.shutdown()
    text = section(results, count)
    write(text, arguments.output)
    print(text)


if __name__ == "__main__":
    main()
