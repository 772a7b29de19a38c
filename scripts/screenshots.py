"""Take the README's phone screenshots: a real Chromium, a throw-away database.

    python scripts/screenshots.py           # writes docs/*.png

Needs Playwright (``pip install playwright``) and Chromium at /usr/bin/chromium
(Debian: ``apt-get install chromium``); Playwright's own browser download is
not used.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from playwright.sync_api import Page, sync_playwright
from werkzeug.serving import make_server

from counter import create_app

DOCS = Path(__file__).resolve().parents[1] / "docs"
PHONE = {"width": 390, "height": 844}


def play(page: Page, base: str) -> None:
    """A match between Иван and Мария, a few deals in, entered with taps."""
    page.goto(base + "/")
    page.fill("#player1", "Иван")
    page.fill("#player2", "Мария")
    page.click("text=Save names")
    for seat, outcome in [
        (1, "normal"),
        (2, "schneider"),
        (1, "schwarz"),
        (2, "wrong_claim"),
        (1, "schneider"),
    ]:
        page.click(f"form.seat{seat} button[value={outcome}]")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "SECRET_KEY": "screenshots-only-key",
                "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/s.sqlite",
            }
        )
        server = make_server("127.0.0.1", 0, app)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_port}"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=[
                    "--no-sandbox",
                    "--disable-background-networking",
                    "--disable-component-update",
                ],
            )
            for scheme in ("light", "dark"):
                context = browser.new_context(
                    viewport=PHONE,
                    device_scale_factor=2,
                    color_scheme=scheme,
                    java_script_enabled=False,
                    is_mobile=True,
                )
                page = context.new_page()
                play(page, base)
                page.wait_for_load_state("load")
                page.screenshot(path=DOCS / f"counter-{scheme}.png")
                context.close()
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
