"""The counter in a real browser: Chromium at a phone's size, driven by Playwright
(its server, Chromium and pages: tests/browser/conftest.py).

Set UPDATE_SCREENSHOTS=1 to write the README's screenshots into docs/.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, Request, Route, expect

from phones import (
    PHONE,
    SAME_TAP_MS,
    all_saved,
    button,
    held_clock,
    name_players,
    next_tap,
    open_settings,
    phone,
    score,
    server_match,
    stored,
    stored_once,
    tap,
)

pytestmark = pytest.mark.slow  # Chromium: minutes in all

DOCS = Path(__file__).parents[2] / "docs"
LATENCY_MS = 2000  # a slow line: each request's answer comes this much later


def no_reload_marker(page: Page) -> None:
    page.evaluate("window.__sameDocument = true")


def still_same_document(page: Page) -> bool:
    return bool(page.evaluate("window.__sameDocument === true"))


def posts_of_deals(page: Page) -> list[Request]:
    """Every deal the page sends from now on."""
    sent: list[Request] = []
    page.on(
        "request",
        lambda request: (
            sent.append(request)
            if request.method == "POST" and request.url.endswith("/deals")
            else None
        ),
    )
    return sent


# --- a match at the table ---------------------------------------------------------------------


def test_a_whole_match_to_11_by_taps_without_a_reload(page: Page) -> None:
    page.goto("/")
    no_reload_marker(page)
    name_players(page, "Ivan", "Maria")
    for seat, outcome in [
        (1, "schwarz"),
        (2, "normal"),
        (1, "schneider"),
        (2, "wrong_claim"),
        (1, "failed_close_no_trick"),
        (1, "normal"),
    ]:
        before = score(page, seat).inner_text()
        tap(page, seat, outcome)
        expect(score(page, seat)).not_to_have_text(before)
    tap(page, 1, "schneider")
    expect(page.locator("[data-result]")).to_have_text("Ivan won the match 11:3")
    expect(page.locator(".record")).to_be_hidden()  # the buttons fold into the result
    expect(page.locator(".result button")).to_have_text("New match to 11")
    expect(page.locator('.player[data-seat="1"] [data-games]')).to_have_text("1")
    all_saved(page)
    server = server_match(page)
    assert [player["score"] for player in server["players"]] == [11, 3]
    assert server["winner"] == 1
    assert still_same_document(page)


def test_a_new_match_names_its_players_in_one_tap_each(page: Page) -> None:
    """The default names are placeholders: typing replaces them, nothing to delete first."""
    page.goto("/")
    expect(page.locator("#player1")).to_have_value("")
    expect(page.locator("#player1")).to_have_attribute("placeholder", "Player 1")
    page.locator("#player1").click()
    page.keyboard.type("Ana")
    page.keyboard.press("Enter")
    expect(page.locator('.player[data-seat="1"] .name')).to_have_text("Ana")
    expect(page.locator('.player[data-seat="2"] .name')).to_have_text("Player 2")
    all_saved(page)
    assert [player["name"] for player in server_match(page)["players"]] == ["Ana", "Player 2"]


# Types "Ana" into the first name field as soon as the page has it, before its script has
# run; `window.drawn` once the script has drawn the names (each drawing sets their titles).
TYPE_BEFORE_THE_SCRIPT = """
window.drawn = false;
new MutationObserver((records) => {
  const field = document.getElementById("player1");
  if (field && !field.dataset.typed) Object.assign(field, { value: "Ana" }).dataset.typed = "1";
  if (records.some((record) => record.type === "attributes")) window.drawn = true;
}).observe(document, { childList: true, subtree: true, attributeFilter: ["title"] });
"""


def test_a_name_typed_before_the_script_has_drawn_the_page_stays(page: Page) -> None:
    page.add_init_script(TYPE_BEFORE_THE_SCRIPT)
    page.goto("/")
    page.wait_for_function("() => window.drawn")
    expect(page.locator("#player1")).to_have_value("Ana")
    page.locator("#player2").click()
    page.keyboard.type("Boris")
    page.keyboard.press("Enter")
    expect(page.locator('.player[data-seat="2"] .name')).to_have_text("Boris")
    all_saved(page)
    assert [player["name"] for player in server_match(page)["players"]] == ["Ana", "Boris"]


def test_a_name_is_changed_in_its_score_card_after_the_first_deal(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "normal")
    page.locator('.player[data-seat="2"] .name').click()
    expect(page.locator("#player2")).to_be_focused()
    page.keyboard.type("Boris")
    page.keyboard.press("Enter")
    expect(page.locator('.player[data-seat="2"] .name')).to_have_text("Boris")
    all_saved(page)
    assert [player["name"] for player in server_match(page)["players"]] == ["Player 1", "Boris"]


def test_the_first_dealer_is_chosen_in_the_card_and_then_shown_there(page: Page) -> None:
    page.goto("/")
    name_players(page, "Ivan", "Maria")
    page.locator('.player[data-seat="2"] .first-dealer').click()
    expect(page.locator('.player[data-seat="2"] .first-dealer')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator("[data-status]")).to_contain_text("Maria deals first.")
    tap(page, 1, "normal")
    expect(page.locator(".first-dealer")).to_have_count(2)
    expect(page.locator(".first-dealer").first).to_be_hidden()
    expect(page.locator('.player[data-seat="1"] [data-deals]')).to_be_visible()  # the winner
    all_saved(page)
    assert [deal["dealer"] for deal in server_match(page)["deals"]] == [2]


def test_a_double_tap_records_one_deal_whatever_the_gap(page: Page) -> None:
    held_clock(page)
    page.goto("/")
    sent = posts_of_deals(page)
    for gap in (50, 100, 300):
        button(page, 1, "normal").click()
        page.clock.run_for(gap)
        button(page, 1, "normal").click()
        page.clock.run_for(SAME_TAP_MS)  # then the next deal is a new tap
    all_saved(page)
    assert len(server_match(page)["deals"]) == 3
    assert len({request.post_data_json["request_id"] for request in sent}) == 3


def test_on_a_slow_line_a_double_tap_counts_once_and_shows_at_once(
    page: Page, browser: Browser
) -> None:
    held_clock(page)
    page.goto("/")
    tap(page, 2, "normal")  # the match exists on the server before the line gets slow
    all_saved(page)
    network = page.context.new_cdp_session(page)
    network.send("Network.enable")
    network.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": LATENCY_MS, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    sent = posts_of_deals(page)
    for gap in (50, 100, 300):
        before = int(score(page, 1).inner_text())
        button(page, 1, "normal").click()
        # Sooner than any answer could come: shown without a round trip.
        expect(score(page, 1)).to_have_text(str(before + 1), timeout=LATENCY_MS // 2)
        expect(page.locator("[data-sync]")).to_contain_text("waiting to send")
        page.clock.run_for(gap)
        button(page, 1, "normal").click()
        page.clock.run_for(SAME_TAP_MS)
        expect(score(page, 1)).to_have_text(str(before + 1))
    all_saved(page)
    assert [player["score"] for player in server_match(page)["players"]] == [3, 1]
    assert len(sent) == 3


def test_a_lost_answer_ends_with_the_screen_equal_to_the_server(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "normal")
    all_saved(page)

    def lose_the_answer(route: Route) -> None:
        route.fetch()  # the server records the deal...
        route.abort("connectionreset")  # ...and its answer never arrives

    page.route("**/deals", lose_the_answer, times=1)
    button(page, 2, "schwarz").click()
    expect(score(page, 2)).to_have_text("3")
    all_saved(page)  # the retry, with the same request id, is answered by the stored deal
    server = server_match(page)
    assert [deal["outcome"] for deal in server["deals"]] == ["normal", "schwarz"]
    expect(page.locator(".deals tbody tr")).to_have_count(2)
    expect(score(page, 2)).to_have_text("3")


def test_a_double_tap_on_the_winning_deal_does_not_start_a_new_match(page: Page) -> None:
    held_clock(page)
    page.goto("/")
    page.locator(".targets button[value='7']").click()
    tap(page, 1, "schwarz")
    tap(page, 1, "schwarz")
    button(page, 1, "normal").click()  # 6 + 1: won, and the buttons fold into the result
    page.clock.run_for(SAME_TAP_MS // 2)
    page.locator(".result button").click()  # a double tap's second
    expect(page.locator("[data-result]")).to_be_visible()
    all_saved(page)
    assert len(page.evaluate("fetch('/api/matches').then(r => r.json())")["matches"]) == 1
    assert server_match(page)["winner"] == 1


def test_the_new_match_under_a_won_match_starts_it_without_a_fault(page: Page) -> None:
    page.goto("/")
    page.locator(".targets button[value='7']").click()
    for _ in range(3):
        tap(page, 1, "schwarz")
    next_tap(page)
    page.locator(".result button").click()
    expect(page.locator("[data-status]")).to_have_text("New match to 7 started.")
    expect(score(page, 1)).to_have_text("0")
    all_saved(page)
    assert server_match(page)["winner"] is None


def test_a_double_tap_on_undo_takes_back_one_deal(page: Page) -> None:
    held_clock(page)  # the two clicks of the double tap come at one moment of the page's time
    page.goto("/")
    tap(page, 1, "normal")
    tap(page, 2, "normal")
    next_tap(page)
    page.locator(".undo button").dblclick()
    # The undo is on the screen once it is in the outbox (or has taken the deal out of
    # it); until then nothing waits, and the line under the score says so.
    expect(page.locator(".deals tbody tr")).to_have_count(1)
    all_saved(page)
    assert [deal["player"] for deal in server_match(page)["deals"]] == [1]


def test_an_undo_right_after_a_deal_takes_that_deal_back(page: Page) -> None:
    """The "wrong button" reflex: Undo a quarter of a second after the deal."""
    held_clock(page)
    page.goto("/")
    tap(page, 1, "normal")
    page.clock.run_for(250)
    page.locator(".undo button").click()
    expect(page.locator(".deals tbody tr")).to_have_count(0)
    expect(score(page, 1)).to_have_text("0")
    all_saved(page)
    assert server_match(page)["deals"] == []


def test_a_second_undo_in_the_same_instant_is_said_to_be_the_same_tap(page: Page) -> None:
    held_clock(page)
    page.goto("/")
    tap(page, 1, "normal")
    tap(page, 2, "normal")
    next_tap(page)
    page.locator(".undo button").click()
    expect(page.locator("[data-status]")).to_contain_text("Undone: +1 Player 2 · Win.")
    page.clock.run_for(200)
    page.locator(".undo button").click()
    expect(page.locator("[data-status]")).to_contain_text(
        "The same tap, counted once: Undone: +1 Player 2"
    )
    expect(page.locator(".deals tbody tr")).to_have_count(1)


def test_undo_beside_the_confirmation(page: Page) -> None:
    page.goto("/")
    no_reload_marker(page)
    tap(page, 2, "schneider")
    expect(page.locator("[data-status]")).to_contain_text("+2 Player 2 · Schneider")
    next_tap(page)
    page.locator(".undo button").click()
    expect(page.locator("[data-status]")).to_contain_text("Undone: +2 Player 2 · Schneider.")
    expect(score(page, 2)).to_have_text("0")
    expect(page.locator(".undo button")).to_be_disabled()
    all_saved(page)
    assert server_match(page)["deals"] == []
    assert still_same_document(page)


def test_the_confirmation_leaves_by_itself_and_hides_no_button(page: Page) -> None:
    held_clock(page)
    page.goto("/")
    tap(page, 1, "normal")
    status = page.locator("[data-status] .message")
    expect(status).to_be_visible()
    page.clock.run_for(7000)
    expect(status).to_have_count(0)
    expect(page.locator(".undo button")).to_be_enabled()  # its Undo is still at hand


def test_targets_a_score_has_reached_are_off_and_playing_on_asks_first(page: Page) -> None:
    page.goto("/")
    name_players(page, "Ivan", "Maria")
    page.locator(".targets button[value='7']").click()
    expect(page.locator(".targets button[value='7']")).to_have_attribute("aria-pressed", "true")
    for _ in range(3):
        tap(page, 1, "schwarz")
    expect(page.locator("[data-result]")).to_have_text("Ivan won the match 9:0")
    expect(page.locator(".targets button[value='7']")).to_be_disabled()
    page.locator(".targets button[value='11']").click()
    dialog = page.locator("dialog.ask")
    expect(dialog).to_contain_text("Ivan has won 9:0. Play on to 11?")
    dialog.locator("button[value=no]").click()
    expect(page.locator("[data-result]")).to_be_visible()
    page.locator(".targets button[value='11']").click()
    dialog.locator("button[value=yes]").click()
    expect(page.locator(".record")).to_be_visible()
    expect(page.locator(".targets button[value='11']")).to_have_attribute("aria-pressed", "true")
    all_saved(page)
    assert server_match(page)["winner"] is None


@pytest.mark.parametrize("script", [True, False])
def test_the_settings_are_folded_under_the_deals_one_tap_away(
    browser: Browser, server: str, script: bool
) -> None:
    """The counter is the buttons and the deals: the settings (a new match, names, house
    rules) open with one tap on their heading, with or without the page's script."""
    context = phone(browser, server, java_script_enabled=script)
    page = context.new_page()
    page.goto("/")
    settings = page.locator("details.settings")
    expect(page.locator(".new-match button")).to_be_hidden()
    expect(page.locator("#rule-ties")).to_be_hidden()
    settings.locator("summary").click()
    expect(page.locator(".new-match button")).to_be_visible()
    expect(page.locator("#rule-ties")).to_be_visible()
    context.close()


def test_a_new_match_asks_first_and_keeps_the_names(page: Page) -> None:
    page.goto("/")
    no_reload_marker(page)
    name_players(page, "Ivan", "Maria")
    tap(page, 1, "normal")
    next_tap(page)
    open_settings(page)
    page.locator(".new-match button").click()
    dialog = page.locator("dialog.ask")
    expect(dialog).to_contain_text("Ivan – Maria 1:0 stays in the history")
    dialog.locator("button[value=yes]").click()
    expect(page.locator("[data-status]")).to_contain_text("New match to 11 started.")
    expect(score(page, 1)).to_have_text("0")
    expect(page.locator('.player[data-seat="1"] .name-input')).to_have_value("Ivan")
    all_saved(page)
    assert len(page.evaluate("fetch('/api/matches').then(r => r.json())")["matches"]) == 2
    assert still_same_document(page)


def test_a_deal_entered_wrong_is_corrected_from_the_list(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "normal")
    tap(page, 2, "normal")
    tap(page, 1, "schwarz")
    all_saved(page)
    page.get_by_label("Correct deal 1").click()
    expect(page.locator("h1")).to_have_text("Correct deal 1")
    page.locator("input[name=player][value='2']").check()
    page.locator("input[name=outcome][value=schneider]").check()
    page.locator(".correction button").click()
    expect(page.locator("[data-status]")).to_contain_text(
        "Deal 1 corrected: +2 Player 2 · Schneider."
    )
    expect(score(page, 1)).to_have_text("3")
    expect(score(page, 2)).to_have_text("3")
    expect(page.locator(".deals .corrected")).to_have_count(1)


def test_a_tie_is_recorded_where_the_house_rules_allow_it(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "normal")
    open_settings(page)
    page.select_option("#rule-ties", "no_points")
    page.locator(".rules-form button").click()
    expect(page.locator(".tie button")).to_be_visible()  # no reload: the rules came as data
    rows = page.locator(".deals tbody tr")
    page.locator(".tie button").click()
    expect(rows).to_have_count(2)
    expect(page.locator("[data-status]")).to_contain_text("Tie")
    all_saved(page)
    assert [deal["outcome"] for deal in server_match(page)["deals"]] == ["normal", "tie"]


def test_a_preset_shows_what_it_sets_and_keeps_a_rule_chosen_beside_it(page: Page) -> None:
    """Set to 15, then the clubs' preset with 65:65 recorded: the selects show the preset's
    rules before saving, the choice made beside it is kept, and the new target is said."""
    page.goto("/")
    page.locator(".targets button[value='15']").click()
    tap(page, 1, "normal")
    all_saved(page)
    open_settings(page)
    page.select_option("#rules-preset", "clubs")
    expect(page.locator("#rule-failed_close")).to_have_value("always_3")
    expect(page.locator("#rule-next_dealer")).to_have_value("alternate")
    page.select_option("#rule-ties", "no_points")
    page.locator(".rules-form button").click()
    expect(page.locator("[data-status]")).to_contain_text("The match is now played to 11")
    all_saved(page)
    match = server_match(page)
    assert match["target"] == 11
    assert match["rules"] == {
        "failed_close": "always_3",
        "wrong_claim": "always_2",
        "next_dealer": "alternate",
        "ties": "no_points",
        "shutout": "once",
        "session": "one",  # Santase's only choice
    }


def test_without_script_a_preset_keeps_a_rule_chosen_beside_it(
    browser: Browser, server: str
) -> None:
    context = phone(browser, server, java_script_enabled=False)
    page = context.new_page()
    page.goto("/")
    page.locator("form.seat1 button[value=normal]").click()
    open_settings(page)
    page.select_option("#rules-preset", "clubs")
    page.select_option("#rule-ties", "no_points")
    page.locator(".rules-form button").click()
    expect(page.locator(".messages, [data-status]").first).to_contain_text("played to 11")
    answer = context.request.get(f"{server}/api/matches/current").json()
    assert answer["rules"]["ties"] == "no_points"
    assert answer["rules"]["failed_close"] == "always_3"
    context.close()


def test_a_house_rule_being_chosen_stays_when_the_match_comes_again(page: Page) -> None:
    """A live stream names a match's rules in another order than the page and the API do."""
    page.goto("/")
    tap(page, 1, "normal")
    all_saved(page)
    open_settings(page)
    page.select_option("#rule-ties", "no_points")  # chosen, not saved yet
    page.evaluate(
        """async () => {
            const outbox = await import("/static/outbox.js"); // the page's own module
            const match = structuredClone(outbox.state.match);
            match.rules = Object.fromEntries(Object.entries(match.rules).reverse());
            outbox.arrived(match);
        }"""
    )
    expect(page.locator("#rule-ties")).to_have_value("no_points")


def test_a_reload_right_after_the_first_tap_shows_it_though_the_page_was_drawn_before(
    page: Page,
) -> None:
    """The reload's page can be drawn before the tap's answers are in, with no match yet."""
    drawn_before = page.context.request.get("/").text()
    page.goto("/")
    tap(page, 1, "normal")
    all_saved(page)
    page.route(
        "**/",
        lambda route: (
            route.fulfill(status=200, content_type="text/html", body=drawn_before)
            if route.request.resource_type == "document"
            else route.continue_()
        ),
    )
    page.reload()
    page.unroute("**/")
    expect(page.locator(".deals tbody tr")).to_have_count(1)
    expect(score(page, 1)).to_have_text("1")


def test_an_erase_leaves_nothing_of_the_matches_on_the_phone(page: Page) -> None:
    page.goto("/")
    name_players(page, "Zlatomira", "Boris")
    tap(page, 1, "normal")
    all_saved(page)
    page.goto("/privacy")
    page.get_by_role("button", name="Erase everything").click()
    page.get_by_role("button", name="Erase everything").click()  # the confirmation
    expect(page.locator('.player[data-seat="1"] .name')).to_have_text("Player 1")
    assert "Zlatomira" not in page.evaluate("() => JSON.stringify(localStorage)")
    assert "Zlatomira" not in json.dumps(stored(page))


def test_a_reload_keeps_everything(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "schwarz")
    tap(page, 2, "normal")
    all_saved(page)
    page.reload()
    expect(score(page, 1)).to_have_text("3")
    expect(score(page, 2)).to_have_text("1")
    expect(page.locator(".deals tbody tr")).to_have_count(2)


def test_another_browser_sees_none_of_it(page: Page, browser: Browser, server: str) -> None:
    page.goto("/")
    tap(page, 1, "schwarz")
    all_saved(page)
    stranger = phone(browser, server)
    other = stranger.new_page()
    other.goto("/")
    expect(score(other, 1)).to_have_text("0")
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
    page.locator("#player2").blur()
    expect(page.locator("[data-status]")).to_contain_text("Имената са запазени: Иван и Мария.")
    tap(page, 1, "schneider")
    expect(page.locator("[data-status]")).to_contain_text("+2 Иван · Под 33")
    for _ in range(3):
        tap(page, 1, "schwarz")
    expect(page.locator("[data-result]")).to_have_text("Иван спечели играта – 11:0")
    expect(page.locator("[data-sync]")).to_have_text("Всичко е записано", timeout=15_000)
    assert still_same_document(page)
    page.goto("/matches")
    expect(page.locator(".history")).to_contain_text("Иван спечели, 11:0")
    context.close()


def test_the_language_switch_in_the_footer(page: Page) -> None:
    page.goto("/rules")
    page.locator("footer button[value=bg]").click()
    expect(page.locator("h1")).to_have_text("Как се брои сантасето")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "bg")


def test_the_counter_works_without_javascript(browser: Browser, server: str) -> None:
    context = phone(browser, server, java_script_enabled=False)
    page = context.new_page()
    page.goto("/")
    button(page, 2, "schwarz").click()
    page.wait_for_url("**/")
    expect(score(page, 2)).to_have_text("3")
    expect(page.locator("[data-status]")).to_contain_text("+3 Player 2 · Schwarz")
    page.locator(".undo button").click()
    expect(score(page, 2)).to_have_text("0")
    button(page, 1, "normal").click()
    open_settings(page)
    page.locator(".new-match button").click()  # asks first, on a page of its own
    expect(page.locator("h1")).to_have_text("Start a new match?")
    page.locator(".confirm button").click()
    expect(score(page, 1)).to_have_text("0")
    context.close()


# --- on a bad line, offline, and on two phones --------------------------------------------------


def counted_phone(browser: Browser, server: str) -> tuple[BrowserContext, Page]:
    """A phone whose service worker keeps the counter for offline use, ready and in control."""
    context = phone(browser, server, service_workers="allow")
    page = context.new_page()
    page.goto("/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    return context, page


def test_an_offline_evening_reaches_the_server_in_order(browser: Browser, server: str) -> None:
    context, page = counted_phone(browser, server)
    name_players(page, "Ivan", "Maria")
    tap(page, 1, "normal")
    all_saved(page)
    context.set_offline(True)
    for seat, outcome in [(1, "schwarz"), (2, "normal"), (2, "schneider"), (1, "normal")]:
        tap(page, seat, outcome)
    tap(page, 2, "wrong_claim")
    next_tap(page)
    page.locator(".undo button").click()  # never sent: it simply leaves the outbox
    expect(page.locator("[data-sync]")).to_have_text("Offline · 4 waiting to send")
    page.reload()  # from the service worker, with what this phone saw and kept
    expect(page.locator("[data-sync]")).to_have_text("Offline · 4 waiting to send")
    expect(page.locator(".deals tbody tr.pending")).to_have_count(4)
    expect(score(page, 1)).to_have_text("5")
    expect(score(page, 2)).to_have_text("3")
    tap(page, 1, "schneider")
    tap(page, 2, "failed_close")
    next_tap(page)
    open_settings(page)
    page.locator(".new-match button").click()
    page.locator("dialog.ask button[value=yes]").click()
    expect(page.locator(".deals tbody tr")).to_have_count(0)
    tap(page, 2, "schwarz")
    expect(page.locator("[data-sync]")).to_have_text(
        "Offline · 8 waiting to send"
    )  # the new match too
    context.set_offline(False)
    all_saved(page)
    listed = page.evaluate("fetch('/api/matches').then(r => r.json())")["matches"]
    newest, first = (
        page.evaluate(f"fetch('/api/matches/{match['id']}').then(r => r.json())")
        for match in listed[:2]
    )
    assert [(deal["player"], deal["outcome"]) for deal in first["deals"]] == [
        (1, "normal"),
        (1, "schwarz"),
        (2, "normal"),
        (2, "schneider"),
        (1, "normal"),
        (1, "schneider"),
        (2, "failed_close"),
    ]
    assert [(deal["player"], deal["outcome"]) for deal in newest["deals"]] == [(2, "schwarz")]
    assert [player["name"] for player in newest["players"]] == ["Ivan", "Maria"]
    context.close()


def test_taps_left_in_a_closed_tab_are_sent_when_it_opens_again(
    browser: Browser, server: str
) -> None:
    context, page = counted_phone(browser, server)
    tap(page, 1, "normal")
    all_saved(page)
    context.set_offline(True)
    tap(page, 2, "schwarz")
    tap(page, 1, "schneider")
    # Kept on the phone once its transaction commits, a few milliseconds after the tap.
    stored_once(page, "(saved) => saved.outbox.length === 2")
    page.close()
    context.set_offline(False)
    later = context.new_page()
    later.goto("/")
    expect(score(later, 2)).to_have_text("3")  # the script has drawn the taps it kept
    all_saved(later)  # no tap needed
    assert [deal["outcome"] for deal in server_match(later)["deals"]] == [
        "normal",
        "schwarz",
        "schneider",
    ]
    context.close()


def test_a_tap_refused_by_the_server_is_named(browser: Browser, server: str) -> None:
    """Two phones with the same matches: one wins the match while the other is offline."""
    first = phone(browser, server)
    mine = first.new_page()
    mine.goto("/")
    name_players(mine, "Ivan", "Maria")
    mine.locator(".targets button[value='7']").click()
    tap(mine, 2, "schwarz")
    all_saved(mine)
    second = phone(browser, server)
    second.add_cookies(first.cookies())
    theirs = second.new_page()
    theirs.goto("/")
    first.set_offline(True)
    tap(mine, 1, "normal")
    for _ in range(2):
        tap(theirs, 2, "schwarz")
    all_saved(theirs)
    first.set_offline(False)
    refused = mine.locator("[data-status] .message.error")
    expect(refused).to_contain_text("Not recorded: +1 Ivan · Win. The match is over: Maria won")
    expect(score(mine, 2)).to_have_text("9")  # the server's truth
    expect(score(mine, 1)).to_have_text("0")
    first.close()
    second.close()


def a_played_match(browser: Browser, server: str) -> tuple[BrowserContext, Page]:
    """A phone whose match has one deal, all of it saved."""
    context = phone(browser, server)
    page = context.new_page()
    page.goto("/")
    tap(page, 1, "normal")
    all_saved(page)
    return context, page


def deleted_on_another_phone(browser: Browser, server: str, page: Page, match_id: int) -> None:
    """The match deleted by another phone of the browser key of ``page``."""
    other = phone(browser, server)
    other.add_cookies(page.context.cookies())
    deleting = other.new_page()
    deleting.goto("/")
    deleting.evaluate(f"fetch('/api/matches/{match_id}', {{method: 'DELETE'}})")
    other.close()


def test_taps_waiting_for_a_deleted_match_are_dropped_with_a_message(
    browser: Browser, server: str
) -> None:
    context, page = a_played_match(browser, server)
    match_id = server_match(page)["id"]
    context.set_offline(True)
    tap(page, 2, "schwarz")
    deleted_on_another_phone(browser, server, page, match_id)
    context.set_offline(False)
    refused = page.locator("[data-status] .message.error")
    expect(refused).to_contain_text(
        "Not recorded: +3 Player 2 · Schwarz. That match is no longer on this phone"
    )
    all_saved(page)
    context.close()


def test_a_match_deleted_on_another_phone_leaves_the_blank_counter_here(
    browser: Browser, server: str
) -> None:
    context, page = a_played_match(browser, server)
    deleted_on_another_phone(browser, server, page, server_match(page)["id"])
    expect(page.locator(".deals tbody tr")).to_have_count(0)
    expect(score(page, 1)).to_have_text("0")
    context.close()


def test_the_page_opened_offline_shows_the_match_not_an_old_copy(
    browser: Browser, server: str
) -> None:
    context, page = counted_phone(browser, server)
    tap(page, 1, "schwarz")
    tap(page, 1, "schwarz")
    tap(page, 1, "schwarz")
    tap(page, 1, "schwarz")  # 12:0, won
    all_saved(page)
    next_tap(page)
    page.locator(".result button").click()  # a new match: the kept page copy is the old one
    tap(page, 2, "normal")
    all_saved(page)
    context.set_offline(True)
    page.reload()
    expect(score(page, 1)).to_have_text("0")
    expect(score(page, 2)).to_have_text("1")
    expect(page.locator(".record")).to_be_visible()
    context.close()


# --- at the computer's address on the home Wi-Fi: plain http, no secure context ---------------


def page_errors(page: Page) -> list[str]:
    """Every uncaught error and console error of ``page`` from now on."""
    seen: list[str] = []
    page.on("pageerror", lambda error: seen.append(str(error)))
    page.on(
        "console", lambda message: seen.append(message.text) if message.type == "error" else None
    )
    return seen


def test_a_plain_http_address_offers_none_of_the_secure_context_apis(lan_page: Page) -> None:
    lan_page.goto("/")
    assert lan_page.evaluate(
        """({
            secure: isSecureContext,
            randomUUID: typeof crypto.randomUUID,
            locks: "locks" in navigator,
            serviceWorker: "serviceWorker" in navigator,
            wakeLock: "wakeLock" in navigator,
        })"""
    ) == {
        "secure": False,
        "randomUUID": "undefined",
        "locks": False,
        "serviceWorker": False,
        "wakeLock": False,
    }


def test_at_a_plain_http_address_taps_undo_and_settings_reach_the_server_once(
    lan_page: Page,
) -> None:
    page = lan_page
    errors = page_errors(page)
    sent = posts_of_deals(page)
    page.goto("/")
    name_players(page, "Ivan", "Maria")
    page.locator(".first-dealer").nth(1).click()
    page.locator(".targets button[value='15']").click()
    tap(page, 1, "schwarz")
    tap(page, 2, "schneider")
    tap(page, 1, "normal")
    next_tap(page)
    page.locator(".undo button").click()
    expect(page.locator(".deals tbody tr")).to_have_count(2)
    open_settings(page)
    page.select_option("#rule-failed_close", "always_3")
    page.locator(".rules-form button").click()
    tap(page, 2, "failed_close")
    all_saved(page)
    server = server_match(page)
    assert [player["name"] for player in server["players"]] == ["Ivan", "Maria"]
    assert (server["target"], server["first_dealer"], server["rules"]["failed_close"]) == (
        15,
        2,
        "always_3",
    )
    assert [(deal["player"], deal["outcome"], deal["points"]) for deal in server["deals"]] == [
        (1, "schwarz", 3),
        (2, "schneider", 2),
        (2, "failed_close", 3),
    ]
    assert len(sent) == 4  # each tap sent once, the undone one too
    expect(score(page, 2)).to_have_text("5")
    assert errors == []


def test_at_a_plain_http_address_a_slow_line_and_a_reload_lose_no_tap(lan_page: Page) -> None:
    page = lan_page
    errors = page_errors(page)
    page.goto("/")
    tap(page, 1, "normal")
    all_saved(page)
    network = page.context.new_cdp_session(page)
    network.send("Network.enable")
    network.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 2000, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    tap(page, 2, "schwarz")
    tap(page, 1, "schneider")
    expect(page.locator("[data-sync]")).to_contain_text("waiting to send")
    page.reload()  # with a request on the line and one waiting in this phone's storage
    expect(page.locator(".deals tbody tr")).to_have_count(3)
    network.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    all_saved(page)
    assert [deal["outcome"] for deal in server_match(page)["deals"]] == [
        "normal",
        "schwarz",
        "schneider",
    ]
    expect(score(page, 1)).to_have_text("3")
    assert errors == []


def test_two_tabs_at_a_plain_http_address_send_each_tap_once(
    browser: Browser, lan_server: str
) -> None:
    """Without Web Locks a lease in the browser's storage chooses the one tab that sends."""
    context = phone(browser, lan_server)
    sent: list[Request] = []
    context.on(  # those that reached the server: offline tries fail on the phone
        "requestfinished",
        lambda request: sent.append(request) if request.method == "POST" else None,
    )
    first, second = context.new_page(), context.new_page()
    first.goto("/")
    tap(first, 1, "normal")
    all_saved(first)
    second.goto("/")
    context.set_offline(True)
    for seat in (2, 1, 2):
        tap(first, seat, "schneider")
    expect(second.locator(".deals tbody tr")).to_have_count(4)  # shown in the other tab too
    context.set_offline(False)  # both tabs are told, and both would send
    all_saved(first)
    all_saved(second)
    assert len(server_match(first)["deals"]) == 4
    assert len([request for request in sent if request.url.endswith("/deals")]) == 4
    context.close()


def slow_line(page: Page, latency_ms: int) -> None:
    network = page.context.new_cdp_session(page)
    network.send("Network.enable")
    network.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": latency_ms, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def two_tabs(browser: Browser, server: str) -> tuple[BrowserContext, Page, Page]:
    """Two tabs of one browser on a match with one deal."""
    context = phone(browser, server)
    first, second = context.new_page(), context.new_page()
    first.goto("/")
    tap(first, 1, "normal")
    all_saved(first)
    second.goto("/")
    expect(second.locator(".deals tbody tr")).to_have_count(1)
    return context, first, second


def two_tabs_on_a_slow_line(browser: Browser, server: str) -> tuple[BrowserContext, Page, Page]:
    """Two tabs of one browser on a match with one deal, each request then taking 1.5 s."""
    context, first, second = two_tabs(browser, server)
    for page in (first, second):
        slow_line(page, 1500)
    return context, first, second


@pytest.mark.parametrize("address", ["server", "lan_server"], ids=["secure", "plain http"])
def test_a_change_made_in_one_tab_while_the_other_sends_is_sent_too(
    browser: Browser, request: pytest.FixtureRequest, address: str
) -> None:
    context, first, second = two_tabs_on_a_slow_line(browser, request.getfixturevalue(address))
    tap(first, 1, "schneider")  # on its way for 1.5 s
    expect(second.locator(".deals tbody tr")).to_have_count(2)
    tap(second, 2, "wrong_claim")  # added to the outbox meanwhile, in the other tab
    all_saved(first)
    all_saved(second)
    assert [deal["outcome"] for deal in server_match(first)["deals"]] == [
        "normal",
        "schneider",
        "wrong_claim",
    ]
    context.close()


@pytest.mark.parametrize("address", ["server", "lan_server"], ids=["secure", "plain http"])
def test_an_undo_in_one_tab_of_a_deal_the_other_is_sending_is_sent(
    browser: Browser, request: pytest.FixtureRequest, address: str
) -> None:
    context, first, second = two_tabs_on_a_slow_line(browser, request.getfixturevalue(address))
    tap(first, 2, "schneider")  # on its way for 1.5 s
    expect(second.locator(".deals tbody tr")).to_have_count(2)
    second.locator(".undo button").click()  # it cannot be taken back unsent any more
    all_saved(first)
    all_saved(second)
    assert [deal["outcome"] for deal in server_match(first)["deals"]] == ["normal"]
    expect(second.locator(".deals tbody tr")).to_have_count(1)
    context.close()


def held_back(page: Page) -> None:
    """The deals ``page`` sends fail, and wait in its outbox, until ``let_through``."""
    page.route("**/deals", lambda route: route.abort())


def let_through(page: Page) -> None:
    """The deals go through again, and the page tries at once, as back online."""
    page.unroute("**/deals")
    page.evaluate("() => window.dispatchEvent(new Event('online'))")


# `count` deals for `seat`, made through the page's own module at once, one after the other
# without waiting for any to be stored (no `after`: the two tabs are one phone).
BURST = """async ([seat, count]) => {
    const outbox = await import("/static/outbox.js"); // the page's own module
    for (let n = 0; n < count; n += 1) {
        const request_id = Array.from(crypto.getRandomValues(new Uint32Array(4))).join("-");
        const match = outbox.view().uid;
        outbox.enqueue({ kind: "deal", match, player: seat, outcome: "normal", request_id });
    }
}"""


@pytest.mark.parametrize("address", ["server", "lan_server"], ids=["secure", "plain http"])
def test_taps_in_two_tabs_at_the_same_moment_are_all_kept_and_sent_once(
    browser: Browser, request: pytest.FixtureRequest, address: str
) -> None:
    """Each tab adds its taps to what is stored in a transaction of its own, which the
    browser runs one at a time: no tab writes over a copy newer than the one it read."""
    context, first, second = two_tabs(browser, request.getfixturevalue(address))
    held_back(first)
    held_back(second)
    first.evaluate(BURST, [1, 5])
    second.evaluate(BURST, [2, 5])
    stored_once(first, "(saved) => saved.outbox.length === 10")
    expect(second.locator(".deals tbody tr")).to_have_count(11)
    expect(first.locator(".deals tbody tr")).to_have_count(11)
    let_through(first)
    let_through(second)
    all_saved(first)
    all_saved(second)
    seats = [deal["player"] for deal in server_match(first)["deals"]]
    assert (seats.count(1), seats.count(2)) == (6, 5)
    context.close()


@pytest.mark.parametrize("address", ["server", "lan_server"], ids=["secure", "plain http"])
def test_a_tab_closed_while_it_sends_leaves_its_tap_to_the_other_which_sends_it_once(
    browser: Browser, request: pytest.FixtureRequest, address: str
) -> None:
    context, first, second = two_tabs_on_a_slow_line(browser, request.getfixturevalue(address))
    tap(first, 2, "schneider")  # on its way for 1.5 s
    expect(second.locator(".deals tbody tr")).to_have_count(2)
    first.close()
    second.evaluate("() => window.dispatchEvent(new Event('online'))")
    all_saved(second)
    assert [deal["outcome"] for deal in server_match(second)["deals"]] == ["normal", "schneider"]
    context.close()


def test_an_undo_of_a_deal_no_tab_has_tried_to_send_withdraws_it(page: Page) -> None:
    """The first deal waiting is tried (and fails); the second waits behind it, untried."""
    sent = posts_of_deals(page)
    page.goto("/")
    held_back(page)
    tap(page, 1, "normal")
    tap(page, 2, "schneider")
    next_tap(page)
    page.locator(".undo button").click()
    stored_once(page, "(saved) => saved.outbox.length === 1")
    expect(page.locator(".deals tbody tr")).to_have_count(1)
    let_through(page)
    all_saved(page)
    assert [deal["outcome"] for deal in server_match(page)["deals"]] == ["normal"]
    assert all("schneider" not in (request.post_data or "") for request in sent)


def test_at_a_plain_http_address_the_screen_stays_awake_during_a_match(lan_page: Page) -> None:
    """No Wake Lock there: a muted looping video (NoSleep.js) plays during the match, from
    the first tap, and stops when the match is won."""
    lan_page.add_init_script(
        """for (const name of ["play", "pause"]) {
            const real = HTMLMediaElement.prototype[name];
            HTMLMediaElement.prototype[name] = function (...args) {
                document.documentElement.dataset.media = name;
                return real.apply(this, args);
            };
        }"""
    )
    lan_page.goto("/")
    assert lan_page.evaluate("'wakeLock' in navigator") is False
    html = lan_page.locator("html")
    tap(lan_page, 1, "schwarz")
    expect(html).to_have_attribute("data-media", "play")
    assert lan_page.evaluate("window.NoSleep !== undefined")
    for _ in range(3):
        tap(lan_page, 1, "schwarz")  # 12: won
    expect(html).to_have_attribute("data-media", "pause")


def test_at_a_plain_http_address_what_needs_https_is_said_once(lan_page: Page) -> None:
    lan_page.goto("/")
    expect(lan_page.locator("[data-status] .message")).to_have_count(0)  # not the first line
    note = lan_page.locator(".deal-list [data-plain-http]")
    expect(note).to_contain_text("open it without a network")
    lan_page.reload()
    expect(lan_page.locator(".counter")).to_be_visible()
    expect(note).to_have_count(0)


def test_the_https_note_is_not_shown_where_the_page_is_a_secure_context(page: Page) -> None:
    page.goto("/")
    expect(page.locator("[data-sync]")).to_have_text("All saved")
    expect(page.locator("[data-status] .message")).to_have_count(0)
    expect(page.locator("[data-plain-http]")).to_have_count(0)


# --- the status line never lies -------------------------------------------------------------------


def test_an_error_of_the_page_during_a_tap_is_shown_as_not_saved(lan_page: Page) -> None:
    page = lan_page
    errors = page_errors(page)
    page.goto("/")
    # The first draw says "All saved"; an error said before it would be drawn over.
    expect(page.locator("[data-sync]")).to_have_text("All saved")
    page.evaluate(
        "() => { crypto.getRandomValues = () => { throw new Error('no randomness here'); }; }"
    )
    button(page, 1, "normal").click()
    sync = page.locator("[data-sync]")
    expect(sync).to_have_text(re.compile(r"^Not saved: .*no randomness here"))
    expect(sync).to_have_class(re.compile("fault"))
    expect(page.locator("[data-status] .message.error")).to_contain_text("no randomness here")
    expect(score(page, 1)).to_have_text("0")
    assert any("no randomness here" in error for error in errors)  # and logged


def test_an_error_of_the_page_while_sending_is_shown_until_the_tap_goes_through(
    page: Page,
) -> None:
    page.goto("/")
    tap(page, 1, "normal")
    all_saved(page)
    page.route(
        "**/deals",
        lambda route: route.fulfill(status=201, content_type="application/json", body="{}"),
    )
    tap(page, 2, "schwarz")
    sync = page.locator("[data-sync]")
    expect(sync).to_have_text(re.compile(r"^Not saved: .*the answer holds no match"))
    expect(sync).to_have_class(re.compile("fault"))
    page.unroute("**/deals")
    expect(sync).to_have_text("All saved", timeout=15_000)  # the next try went through
    assert [deal["outcome"] for deal in server_match(page)["deals"]] == ["normal", "schwarz"]


def test_an_answer_that_is_not_the_counters_keeps_the_tap_waiting(page: Page) -> None:
    """A Wi-Fi login page answers 200 with HTML: that is no acknowledgement of the deal."""
    page.goto("/")
    tap(page, 1, "normal")
    all_saved(page)
    login_pages: list[str] = []

    def login_page(route: Route) -> None:
        login_pages.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<p>Log in to the Wi-Fi</p>")

    page.route("**/deals", login_page)
    with page.expect_event(  # answered, and tried again a second later
        "requestfinished",
        lambda request: request.url.endswith("/deals") and len(login_pages) >= 2,
        timeout=10_000,
    ):
        tap(page, 2, "schwarz")
        page.wait_for_function("document.querySelector('[data-sync]').textContent.length > 0")
    assert len(login_pages) >= 2
    expect(page.locator("[data-sync]")).to_have_text("1 waiting to send")
    page.unroute("**/deals")
    all_saved(page)  # the next try reaches the counter
    assert [deal["outcome"] for deal in server_match(page)["deals"]] == ["normal", "schwarz"]


# --- every phone, one screen ---------------------------------------------------------------------

LONGEST = ("Александра-Мария Петрова-Ивановска Ст", "Константин Христов Димитров-Петков")
SIZES = [(320, 568), (360, 740), (390, 844), (412, 915), (844, 390), (740, 360)]
ON_SCREEN = """() => {
  const inside = (element) => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.top >= 0 && box.left >= 0
      && box.bottom <= innerHeight && box.right <= innerWidth;
  };
  const most = ["normal", "schneider", "schwarz"].flatMap((outcome) =>
    [1, 2].map((seat) => document.querySelector(`form.seat${seat} button[value=${outcome}]`)));
  return {
    wider: document.documentElement.scrollWidth - innerWidth,
    scores: [...document.querySelectorAll("[data-score]")].every(inside),
    buttons: most.every(inside),
  };
}"""
BROKEN_WORDS = """() => {
  // A word wrapped inside itself spans two lines: two boxes, one under the other.
  const texts = document.querySelectorAll(
    ".name, [data-name], .deal .kind, .deals td, .deals th, .history .names, legend");
  const broken = [];
  for (const element of texts) {
    if (!element.offsetParent) continue;
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].map((box) => Math.round(box.top)));
        if (tops.size > 1) broken.push(match[0]);
      }
    }
  }
  return broken;
}"""


def layout_of(page: Page) -> dict[str, Any]:
    page.evaluate("window.scrollTo(0, 0)")
    return page.evaluate(ON_SCREEN)  # type: ignore[no-any-return]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_phone_shows_the_scores_and_the_main_buttons_on_one_screen(
    browser: Browser, server: str, width: int, height: int, scheme: str
) -> None:
    context = phone(
        browser,
        server,
        viewport={"width": width, "height": height},
        locale="bg-BG",
        color_scheme=scheme,
    )
    page = context.new_page()
    page.goto("/")
    name_players(page, *LONGEST)
    tap(page, 1, "schwarz")
    tap(page, 2, "failed_close_no_trick")
    all_saved(page)
    page.reload()
    assert layout_of(page) == {"wider": 0, "scores": True, "buttons": True}
    page.evaluate("window.scrollTo(0, 0)")
    button(page, 1, "normal").click()  # a confirmation appears, and hides nothing
    expect(page.locator("[data-status] .message")).to_be_visible()
    assert layout_of(page) == {"wider": 0, "scores": True, "buttons": True}
    assert page.evaluate(BROKEN_WORDS) == []
    context.close()


@pytest.mark.parametrize(("width", "height"), [(320, 568), (740, 360)])
def test_a_new_match_fits_one_screen_with_its_choices(
    browser: Browser, server: str, width: int, height: int
) -> None:
    context = phone(browser, server, viewport={"width": width, "height": height}, locale="bg-BG")
    page = context.new_page()
    page.goto("/")
    assert layout_of(page) == {"wider": 0, "scores": True, "buttons": True}
    for part in ("#player1", "#player2", ".first-dealer >> nth=1", ".targets button >> nth=0"):
        box = page.locator(part).bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= height
    context.close()


def test_no_button_moves_when_the_first_deal_is_recorded(page: Page) -> None:
    page.goto("/")
    name_players(page, "Ivan", "Maria")
    before = button(page, 2, "normal").bounding_box()
    tap(page, 1, "normal")  # the name becomes text, the first-dealer choice a mark
    page.locator("[data-status] .message").wait_for()
    after = button(page, 2, "normal").bounding_box()
    assert before is not None
    assert after is not None
    assert after["y"] == pytest.approx(before["y"], abs=0.5)  # less than a pixel


def test_every_button_is_a_big_enough_target(page: Page) -> None:
    """44 by 44 px at least, as the platforms' guidelines have it."""
    page.goto("/")
    tap(page, 1, "normal")
    small = page.evaluate(
        """[...document.querySelectorAll('button, nav a')]
            .filter(el => el.offsetParent !== null)
            .map(el => [el.textContent.trim(), el.getBoundingClientRect()])
            .filter(([, box]) => box.width < 44 || box.height < 44)
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
    page.locator("form.display [name=theme]").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("form.display [name=theme]")).to_have_attribute("aria-pressed", "true")


def test_the_display_switches_work_without_a_network_on_the_counter(page: Page) -> None:
    page.goto("/")
    tap(page, 1, "normal")  # the switches load with the first change
    all_saved(page)
    page.context.set_offline(True)
    page.locator("form.display [name=facing]").click()
    expect(page.locator("body")).to_have_class(re.compile("facing"))
    page.locator("form.display [name=theme]").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.context.set_offline(False)
    page.goto("/rules")  # every page shows the choice, drawn by the server
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("body")).to_have_class(re.compile("facing"))


def test_the_display_switches_work_without_javascript(browser: Browser, server: str) -> None:
    context = phone(browser, server, java_script_enabled=False)
    page = context.new_page()
    page.goto("/rules")
    page.locator("form.display [name=theme]").click()
    page.wait_for_url("**/rules")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("form.display [name=theme]")).to_have_attribute("aria-pressed", "true")
    page.locator("form.display [name=theme]").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    context.close()


def test_face_to_face_puts_the_most_used_button_nearest_each_player(page: Page) -> None:
    page.goto("/")
    page.locator("form.display [name=facing]").click()
    expect(page.locator("body")).to_have_class(re.compile("facing"))
    transform = page.evaluate(
        "getComputedStyle(document.querySelector('.scoreboard .seat2')).transform"
    )
    assert transform.startswith("matrix(-1")
    win = [button(page, seat, "normal").bounding_box() for seat in (1, 2)]
    wrong = [button(page, seat, "wrong_claim").bounding_box() for seat in (1, 2)]
    assert all(box is not None for box in win + wrong)
    # The first player sits at the bottom edge, the second (turned) at the top.
    assert win[0]["y"] > wrong[0]["y"]  # type: ignore[index]
    assert win[1]["y"] < wrong[1]["y"]  # type: ignore[index]


# --- every page, for everyone --------------------------------------------------------------------

PAGES = [
    "/",
    "/matches",
    "/rules",
    "/privacy",
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
    all_saved(page)
    match_id = server_match(page)["id"]
    axe = Axe()
    found = {}
    for path in PAGES:
        page.goto(path.format(id=match_id))
        results = axe.run(page)
        found[path] = [violation["id"] for violation in results.response["violations"]]
    page.goto("/")
    open_settings(page)
    page.locator(".new-match button").click()  # the page's own confirmation
    page.locator("dialog.ask").wait_for()
    found["dialog"] = [v["id"] for v in axe.run(page).response["violations"]]
    context.close()
    assert found == {path: [] for path in [*PAGES, "dialog"]}


SCREENSHOTS = [("bg-BG", "light", PHONE), ("bg-BG", "dark", PHONE), ("en-GB", "light", PHONE)]
SCREENSHOTS += [("bg-BG", "light", {"width": 844, "height": 390})]


@pytest.mark.parametrize(("locale", "scheme", "size"), SCREENSHOTS)
def test_screenshots_of_a_match_in_progress(
    browser: Browser, server: str, locale: str, scheme: str, size: dict[str, int], tmp_path: Path
) -> None:
    context = phone(browser, server, locale=locale, color_scheme=scheme, viewport=size)
    page = context.new_page()
    page.goto("/")
    name_players(page, "Иван", "Мария")
    for seat, outcome in [
        (1, "normal"),
        (2, "schneider"),
        (1, "schwarz"),
        (2, "wrong_claim"),
        (1, "schneider"),
    ]:
        tap(page, seat, outcome)
    all_saved(page)
    expect(score(page, 1)).to_have_text("6")
    page.evaluate("window.scrollTo(0, 0)")
    folder = DOCS if os.environ.get("UPDATE_SCREENSHOTS") else tmp_path
    shape = "landscape" if size["width"] > size["height"] else "portrait"
    path = folder / f"counter-{locale[:2]}-{scheme}-{shape}.png"
    page.screenshot(path=path)
    context.close()
    assert path.stat().st_size > 10_000


def test_a_new_match_is_offered_once_however_often_its_stream_says_so(page: Page) -> None:
    """Each stream of the old match says it again when it opens (out of sight and back, or
    at the end of its lifetime): the page offers it once, until it is opened again."""
    page.goto("/")
    tap(page, 1, "normal")
    all_saved(page)
    say = """async () => {
        const other = await import("/static/other-phone.js");
        const next = {
            id: 999, text: "Another phone started a new match: A – B.", button: "Show", keep: "Stay"
        };
        other.offer({ data: JSON.stringify(next) });
    }"""
    offer = page.locator("[data-offer]")
    page.evaluate(say)
    expect(offer).to_contain_text("Another phone started a new match: A – B.")
    offer.get_by_role("button", name="Stay").click()
    page.evaluate(say)
    expect(offer).to_have_count(0)
