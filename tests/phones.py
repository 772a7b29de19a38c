"""Phones in Chromium, driven as a player drives them: a new phone (a browser context of
its own), its buttons and scores, a tap, a held clock, a wait until all is saved, a second
phone joined to the first's matches. For the browser tests and the production recipe's."""

from __future__ import annotations

import datetime as dt
import re
import weakref
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

CHROMIUM = Path("/usr/bin/chromium")
MISSING_CHROMIUM = (
    "Chromium not found at /usr/bin/chromium; install it (apt-get install chromium) "
    "to run the browser tests."
)
PHONE = {"width": 390, "height": 844}
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # A name for this computer as a phone on the home Wi-Fi reaches it: not localhost, so
    # plain http there is no secure context (see the section on plain http in
    # tests/browser/test_browser.py).
    "--host-resolver-rules=MAP counter.test 127.0.0.1",
]
LAN_NAME = "counter.test"
START = dt.datetime(2026, 11, 30, 20, 0, tzinfo=dt.UTC)
SAME_TAP_MS = 600  # as in counter.js: the same button again this soon is the same tap
# The phones whose clock the test holds (see held_clock): time there moves only when told.
HELD_CLOCKS: weakref.WeakSet[BrowserContext] = weakref.WeakSet()


def phone(browser: Browser, server: str, **options: object) -> BrowserContext:
    """A new phone: its own cookies and storage, like another browser."""
    settings: dict[str, object] = {
        "viewport": PHONE,
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
        "locale": "en-GB",
        "base_url": server,
        "service_workers": "block",
    }
    settings.update(options)
    return browser.new_context(**settings)  # type: ignore[arg-type]


def score(page: Page, seat: int) -> Any:
    return page.locator(f'.player[data-seat="{seat}"] [data-score]')


def button(page: Page, seat: int, outcome: str) -> Any:
    return page.locator(f"form.seat{seat} button[value={outcome}]")


def held_clock(page: Page) -> None:
    """Stop the page's clock at START before the page loads: it moves only as the test runs it.

    Called before ``page.goto``. A clock installed running and paused later at a fixed time
    could be told to jump into the past, should loading the page take longer than the jump.
    """
    page.clock.pause_at(START)
    HELD_CLOCKS.add(page.context)


def tap(page: Page, seat: int, outcome: str) -> None:
    """Tap a deal button as a player does: the deal shows in the list at once.

    The same button twice in a row is two deals only when the taps are apart (in
    play they are minutes apart), so a tap on the button tapped last waits that out.
    """
    rows = page.locator(".deals tbody tr")
    before = rows.count()
    key = f"{seat}:{outcome}"
    if page.evaluate("window.__lastTap") == key:
        next_tap(page)
    page.evaluate("key => { window.__lastTap = key; }", key)
    button(page, seat, outcome).click()
    expect(rows).to_have_count(before + 1)
    page.evaluate("() => { window.__lastTapAt = performance.now(); }")  # at or after the tap


def next_tap(page: Page) -> None:
    """Let a player's next tap come as it does at the table: not within the same tap.

    The page tells taps apart by its own clock (performance.now), so that is the clock
    waited on: run on by the test where it holds it, else watched until the window is over.
    """
    if page.context in HELD_CLOCKS:
        page.clock.run_for(SAME_TAP_MS)
        return
    page.wait_for_function(
        "ms => performance.now() - (window.__lastTapAt ?? -Infinity) >= ms", arg=SAME_TAP_MS
    )


def all_saved(page: Page) -> None:
    """Wait until the server has every change this phone made (in any language)."""
    expect(page.locator("[data-sync]")).not_to_have_class(re.compile("waiting"), timeout=15_000)


def name_players(page: Page, first: str, second: str) -> None:
    """Type the names in the score cards, as a new match offers them."""
    page.fill("#player1", first)
    page.fill("#player2", second)
    page.locator("#player2").blur()
    expect(page.locator('.player[data-seat="2"] .name')).to_have_text(second)


def open_settings(page: Page) -> None:
    """Unfold the match settings under the deals, as a player taps them open."""
    if page.locator("details.settings[open]").count() == 0:
        page.locator("details.settings summary").click()


# What the page keeps in the browser (static/store.js): one record in IndexedDB.
STORED = """() => new Promise((resolve, reject) => {
    const opened = indexedDB.open("santase-counter", 1);
    opened.onupgradeneeded = () => opened.result.createObjectStore("state");
    opened.onerror = () => reject(opened.error);
    opened.onsuccess = () => {
        const read = opened.result.transaction("state").objectStore("state").get("state");
        read.onsuccess = () => { opened.result.close(); resolve(read.result ?? null); };
        read.onerror = () => reject(read.error);
    };
})"""


def stored(page: Page) -> Any:
    """What ``page``'s browser keeps of the match and its outbox, as stored now."""
    return page.evaluate(STORED)


def stored_once(page: Page, test: str, timeout_ms: int = 10_000) -> Any:
    """What ``page``'s browser keeps, once the JavaScript function ``test`` holds of it
    (looked at every 50 ms: wait_for_function takes a promise as true at once)."""
    return page.evaluate(
        f"""async () => {{
            const until = performance.now() + {timeout_ms};
            for (;;) {{
                const saved = await ({STORED})();
                if (({test})(saved)) return saved;
                if (performance.now() > until) throw new Error("not stored in time: {test}");
                await new Promise((resolve) => setTimeout(resolve, 50));
            }}
        }}"""
    )


def server_match(page: Page) -> Any:
    """The match the server holds as this browser's current one."""
    return page.evaluate("fetch('/api/matches/current').then(r => r.json())")


def joined(browser: Browser, server: str, first: Page, requests: list[str] | None = None) -> Page:
    """Another phone that continued ``first``'s matches with a one-time link; ``requests``
    gets the address of each request it makes from the start."""
    first.goto("/matches")
    first.get_by_role("button", name="Continue on another device").click()
    link = first.locator("a.share-url").get_attribute("href")
    assert link
    context = phone(browser, server)
    if requests is not None:
        context.on("request", lambda request: requests.append(request.url))
    other = context.new_page()
    other.goto(link)
    other.get_by_role("button", name="Continue here").click()
    expect(other).to_have_url(re.compile(r"/$"))
    first.goto("/")
    return other
