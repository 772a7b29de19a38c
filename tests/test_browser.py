"""The counter in a real browser: Chromium at a phone's size, driven by Playwright.

Needs Chromium at /usr/bin/chromium (Debian: apt-get install chromium); without
it these tests skip and say so. CI installs it and fails if they did not run.
Set UPDATE_SCREENSHOTS=1 to write the README's screenshots into docs/.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from flask import Flask
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from werkzeug.serving import make_server

from counter.models import db

from conftest import TEST_DATABASE_URL, empty_tables, make_app

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        "Chromium not found at /usr/bin/chromium; install it (apt-get install chromium) "
        "to run the browser tests.",
        allow_module_level=True,
    )

PHONE = {"width": 390, "height": 844}
DOCS = Path(__file__).parents[1] / "docs"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def server(migrated_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on 127.0.0.1, served by a thread of this process."""
    if TEST_DATABASE_URL:
        url = migrated_database
    else:
        copy = tmp_path_factory.mktemp("browser") / "browser.sqlite"
        copy.write_bytes(Path(migrated_database.removeprefix("sqlite:///")).read_bytes())
        url = f"sqlite:///{copy}"
    app: Flask = make_app(url)
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_port}"
    http.shutdown()
    with app.app_context():
        if TEST_DATABASE_URL:
            empty_tables()
        db.engine.dispose()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


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


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    context = phone(browser, server)
    tab = context.new_page()
    yield tab
    context.close()


def score(page: Page, seat: int) -> str:
    return page.locator(f'.player[data-seat="{seat}"] [data-score]').inner_text()


SAME_TAP_MS = 600  # as in counter.js: the same button again this soon is a double tap


def tap(page: Page, seat: int, outcome: str) -> None:
    """Tap a deal button and wait, as a player does, until the deal shows in the list.

    The same button twice in a row is two deals only when the taps are apart
    (in play they are minutes apart), so the second waits out the double-tap window.
    """
    rows = page.locator(".deals tbody tr")
    before = rows.count()
    button = f"form.seat{seat} button[value={outcome}]"
    if page.evaluate("window.__lastTap") == button:
        page.wait_for_timeout(SAME_TAP_MS + 50)
    page.evaluate("button => { window.__lastTap = button; }", button)
    page.locator(button).click()
    expect(rows).to_have_count(before + 1)


def no_reload_marker(page: Page) -> None:
    page.evaluate("window.__sameDocument = true")


def still_same_document(page: Page) -> bool:
    return bool(page.evaluate("window.__sameDocument === true"))


def deal_count(page: Page) -> int:
    return int(
        page.evaluate("fetch('/api/matches/current').then(r => r.json()).then(m => m.deals.length)")
    )


def test_a_whole_match_to_11_by_taps_without_a_reload(page: Page) -> None:
    page.goto("/")
    no_reload_marker(page)
    page.fill("#player1", "Ivan")
    page.fill("#player2", "Maria")
    page.locator(".names button").click()
    expect(page.locator(".messages")).to_contain_text("Names saved.")
    for seat, outcome in [
        (1, "schwarz"),
        (2, "normal"),
        (1, "schneider"),
        (2, "wrong_claim"),
        (1, "failed_close_no_trick"),
        (1, "normal"),
    ]:
        before = score(page, seat)
        tap(page, seat, outcome)
        expect(page.locator(f'.player[data-seat="{seat}"] [data-score]')).not_to_have_text(before)
    tap(page, 1, "schneider")
    expect(page.locator(".finished")).to_be_visible()
    expect(page.locator("[data-finished-text]")).to_have_text("Ivan wins the match 11:3")
    assert (score(page, 1), score(page, 2)) == ("11", "3")
    expect(page.locator("form.seat1 button[value=normal]")).to_be_disabled()
    expect(page.locator("form.seat2 button[value=schwarz]")).to_be_disabled()
    expect(page.locator("#record-closed")).to_be_visible()
    expect(page.locator('.player[data-seat="1"] [data-games]')).to_have_text("1")
    assert page.locator(".deals tbody tr").count() == 7
    assert still_same_document(page)


def test_a_double_tap_records_one_deal(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "normal")
    expect(page.locator('.player[data-seat="1"] [data-score]')).to_have_text("1")
    page.locator("form.seat2 button[value=schwarz]").dblclick()
    expect(page.locator('.player[data-seat="2"] [data-score]')).to_have_text("3")
    page.wait_for_timeout(300)  # a second deal, had one been sent, would be in by now
    assert deal_count(page) == 2


def test_a_slow_double_tap_records_one_deal(page: Page) -> None:
    page.goto("/")
    button = page.locator("form.seat1 button[value=schneider]")
    button.click()
    expect(page.locator('.player[data-seat="1"] [data-score]')).to_have_text("2")
    page.wait_for_timeout(250)  # the answer came back before the second tap
    button.click()
    page.wait_for_timeout(300)
    assert deal_count(page) == 1
    assert score(page, 1) == "2"


def test_undo_right_from_the_confirmation(page: Page) -> None:
    page.goto("/")
    no_reload_marker(page)
    tap(page, 2, "schneider")
    expect(page.locator(".messages")).to_contain_text("+2 Player 2 · Schneider")
    page.locator(".inline-undo").click()
    expect(page.locator(".messages")).to_contain_text("Deal 1 undone")
    assert (score(page, 1), score(page, 2)) == ("0", "0")
    expect(page.locator(".undo button")).to_be_disabled()
    assert deal_count(page) == 0
    assert still_same_document(page)


def test_the_target_switch_and_its_refusal(page: Page) -> None:
    page.goto("/")
    no_reload_marker(page)
    page.locator(".targets button[value='7']").click()
    expect(page.locator("[data-target]")).to_have_text("7")
    for _ in range(2):
        tap(page, 1, "schwarz")
    expect(page.locator('.player[data-seat="1"] [data-score]')).to_have_text("6")
    page.locator(".targets button[value='15']").click()
    expect(page.locator("[data-target]")).to_have_text("15")
    for _ in range(3):
        tap(page, 2, "schwarz")
    expect(page.locator('.player[data-seat="2"] [data-score]')).to_have_text("9")
    page.locator(".targets button[value='7']").click()
    expect(page.locator(".message.error")).to_have_text(
        "Player 2 already has 9 game points, so a target of 7 would end the match at once."
    )
    expect(page.locator("[data-target]")).to_have_text("15")
    assert still_same_document(page)


def test_a_new_match_keeps_the_names_without_a_reload(page: Page) -> None:
    page.goto("/")
    no_reload_marker(page)
    page.fill("#player1", "Ivan")
    page.locator(".names button").click()
    tap(page, 1, "normal")
    page.locator(".new-match button").click()
    expect(page.locator(".messages")).to_contain_text("New match to 11 started.")
    assert (score(page, 1), score(page, 2)) == ("0", "0")
    expect(page.locator('.player[data-seat="1"] .name')).to_have_text("Ivan")
    assert still_same_document(page)


def test_a_deal_entered_wrong_is_corrected_from_the_list(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "normal")
    tap(page, 2, "normal")
    tap(page, 1, "schwarz")
    page.get_by_label("Correct deal 1").click()
    expect(page.locator("h1")).to_have_text("Correct deal 1")
    page.locator("input[name=player][value='2']").check()
    page.locator("input[name=outcome][value=schneider]").check()
    page.locator(".correction button").click()
    expect(page.locator(".messages")).to_contain_text("Deal 1 corrected: +2 Player 2 · Schneider.")
    assert (score(page, 1), score(page, 2)) == ("3", "3")
    expect(page.locator(".deals .corrected")).to_have_count(1)


def test_a_tie_is_recorded_where_the_house_rules_allow_it(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "normal")
    page.select_option("#rule-ties", "no_points")
    page.locator(".rules-form button").click()
    expect(page.locator(".tie button")).to_be_visible()
    rows = page.locator(".deals tbody tr")
    page.locator(".tie button").click()
    expect(rows).to_have_count(2)
    expect(page.locator(".messages")).to_contain_text("Tie")
    assert (score(page, 1), score(page, 2)) == ("1", "0")


def test_a_reload_keeps_everything(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "schwarz")
    tap(page, 2, "normal")
    expect(page.locator('.player[data-seat="2"] [data-score]')).to_have_text("1")
    page.reload()
    assert (score(page, 1), score(page, 2)) == ("3", "1")
    assert page.locator(".deals tbody tr").count() == 2


def test_another_browser_sees_none_of_it(page: Page, browser: Browser, server: str) -> None:
    page.goto("/")
    tap(page, 1, "schwarz")
    expect(page.locator('.player[data-seat="1"] [data-score]')).to_have_text("3")
    stranger = phone(browser, server)
    other = stranger.new_page()
    other.goto("/")
    assert (score(other, 1), score(other, 2)) == ("0", "0")
    other.goto("/matches")
    expect(other.locator(".empty")).to_be_visible()
    stranger.close()


def test_a_whole_match_in_bulgarian(browser: Browser, server: str) -> None:
    context = phone(browser, server, locale="bg-BG")
    page = context.new_page()
    page.goto("/")
    no_reload_marker(page)
    expect(page.locator("html")).to_have_attribute("lang", "bg")
    page.fill("#player1", "Иван")
    page.fill("#player2", "Мария")
    page.locator(".names button").click()
    expect(page.locator(".messages")).to_contain_text("Имената са запазени.")
    tap(page, 1, "schneider")
    expect(page.locator(".messages")).to_contain_text("+2 Иван · Под 33")
    for _ in range(3):
        tap(page, 1, "schwarz")
    expect(page.locator("[data-finished-text]")).to_have_text("Иван печели играта 11:0")
    assert still_same_document(page)
    page.goto("/matches")
    expect(page.locator(".history")).to_contain_text("Иван спечели 11:0")
    context.close()


def test_the_language_switch_in_the_footer(page: Page) -> None:
    page.goto("/rules")
    page.locator("footer button[value=bg]").click()
    expect(page.locator("h1")).to_have_text("Как се брои сантасето")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "bg")


def test_a_tap_without_a_network_says_so_and_counts_nothing(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "normal")
    expect(page.locator('.player[data-seat="1"] [data-score]')).to_have_text("1")
    page.context.set_offline(True)
    page.locator("form.seat1 button[value=schwarz]").click()
    expect(page.locator(".message.error")).to_contain_text("No connection to the server")
    assert score(page, 1) == "1"
    page.context.set_offline(False)
    expect(page.locator(".message.error")).to_have_count(0)
    assert deal_count(page) == 1


def test_the_counter_works_without_javascript(browser: Browser, server: str) -> None:
    context = phone(browser, server, java_script_enabled=False)
    page = context.new_page()
    page.goto("/")
    page.locator("form.seat2 button[value=schwarz]").click()
    page.wait_for_url("**/")
    assert score(page, 2) == "3"
    expect(page.locator(".messages")).to_contain_text("+3 Player 2 · Schwarz")
    page.locator(".undo button").click()
    assert score(page, 2) == "0"
    context.close()


@pytest.mark.parametrize("size", [{"width": 320, "height": 640}, {"width": 640, "height": 320}])
def test_nothing_overflows_a_small_phone(
    browser: Browser, server: str, size: dict[str, int]
) -> None:
    context = phone(browser, server, viewport=size)
    page = context.new_page()
    page.goto("/")
    page.fill("#player1", "Александра-Мария")
    page.locator(".names button").click()
    tap(page, 1, "failed_close_no_trick")
    expect(page.locator('.player[data-seat="1"] [data-score]')).to_have_text("3")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= size["width"]
    context.close()


def test_every_button_is_a_big_enough_target(page: Page) -> None:
    page.goto("/")
    small = page.evaluate(
        """[...document.querySelectorAll('button, nav a')]
            .filter(el => el.offsetParent !== null)
            .map(el => [el.textContent.trim(), el.getBoundingClientRect()])
            .filter(([, box]) => box.width < 48 || box.height < 48)
            .map(([label]) => label)"""
    )
    assert small == []


def test_scores_are_announced_to_screen_readers(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "normal")
    status = page.locator("[role=status][aria-live=polite]")
    expect(status).to_contain_text("Player 1 1, Player 2 0")


def test_the_theme_switch_is_remembered(page: Page) -> None:
    page.goto("/")
    page.locator("[data-theme-toggle]").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("[data-theme-toggle]")).to_have_attribute("aria-pressed", "true")


def test_face_to_face_turns_the_second_player_around(page: Page) -> None:
    page.goto("/")
    page.locator("[data-facing-toggle]").click()
    transform = page.evaluate(
        "getComputedStyle(document.querySelector('.scoreboard .seat2')).transform"
    )
    assert transform.startswith("matrix(-1")


def test_the_service_worker_keeps_the_shell_for_offline_use(browser: Browser, server: str) -> None:
    context = phone(browser, server, service_workers="allow")
    page = context.new_page()
    page.goto("/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # now under the worker's control, which keeps a copy of the page
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    context.set_offline(True)
    page.reload()
    expect(page.locator(".scoreboard")).to_be_visible()
    expect(page.locator(".message.error")).to_contain_text("You are offline")
    context.close()


PAGES = [
    "/",
    "/matches",
    "/rules",
    "/matches/{id}",
    "/matches/{id}/deals/1",
    "/statistics",
    "/import",
    "/continue/unknown",
    "/nowhere",
]


@pytest.mark.parametrize("locale", ["en-GB", "bg-BG"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_accessibility_violations_on_any_page(
    browser: Browser, server: str, locale: str, scheme: str
) -> None:
    context = phone(browser, server, locale=locale, color_scheme=scheme)
    page = context.new_page()
    page.goto("/")
    tap(page, 1, "schneider")
    expect(page.locator('.player[data-seat="1"] [data-score]')).to_have_text("2")
    match_id = page.evaluate("document.getElementById('counter').dataset.matchId")
    axe = Axe()
    found = {}
    for path in PAGES:
        page.goto(path.format(id=match_id))
        results = axe.run(page)
        found[path] = [violation["id"] for violation in results.response["violations"]]
    context.close()
    assert found == {path: [] for path in PAGES}


@pytest.mark.parametrize("locale", ["en-GB", "bg-BG"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_a_match_in_progress(
    browser: Browser, server: str, locale: str, scheme: str, tmp_path: Path
) -> None:
    context = phone(browser, server, locale=locale, color_scheme=scheme)
    page = context.new_page()
    page.goto("/")
    names = ("Иван", "Мария")
    page.fill("#player1", names[0])
    page.fill("#player2", names[1])
    page.locator(".names button").click()
    for seat, outcome in [
        (1, "normal"),
        (2, "schneider"),
        (1, "schwarz"),
        (2, "wrong_claim"),
        (1, "schneider"),
    ]:
        tap(page, seat, outcome)
    expect(page.locator('.player[data-seat="1"] [data-score]')).to_have_text("6")
    page.evaluate("window.scrollTo(0, 0)")
    folder = DOCS if os.environ.get("UPDATE_SCREENSHOTS") else tmp_path
    path = folder / f"counter-{locale[:2]}-{scheme}.png"
    page.screenshot(path=path)
    context.close()
    assert path.stat().st_size > 10_000
