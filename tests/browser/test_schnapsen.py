"""A Schnapsen Bummerl played through on a phone, in German as an Austrian reads it and in
Bulgarian: the numbers count down from 7, the loser gets the Bummerl (a Schneider-Bummerl
counts 2), and the tally shows beside each name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from phones import (
    all_saved,
    name_players,
    next_tap,
    open_settings,
    phone,
    score,
    server_match,
    tap,
)

pytestmark = pytest.mark.slow  # Chromium


@pytest.fixture
def german(browser: Browser, server: str) -> Iterator[Page]:
    context = phone(browser, server, locale="de-AT")
    yield context.new_page()
    context.close()


@pytest.fixture
def bulgarian(browser: Browser, server: str) -> Iterator[Page]:
    context = phone(browser, server, locale="bg-BG")
    yield context.new_page()
    context.close()


def choose_schnapsen(page: Page) -> None:
    """A new match of Schnapsen, chosen in the match settings before the first deal."""
    open_settings(page)
    form = page.locator("form.new-match")
    form.locator("#new-game").select_option("schnapsen")
    form.locator("button").click()
    expect(score(page, 1)).to_have_text("7")
    expect(score(page, 2)).to_have_text("7")


def tally(page: Page, seat: int) -> str:
    card = page.locator(f'.player[data-seat="{seat}"]')
    label, count = card.locator("[data-tally]"), card.locator("[data-games]")
    return f"{label.inner_text()} {count.inner_text()}"


def test_a_bummerl_in_german(german: Page) -> None:
    page = german
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    name_players(page, "Sepp", "Resi")
    choose_schnapsen(page)
    expect(page.locator("form.seat1 button[value=wrong_claim] .kind")).to_have_text(
        "Gegner: falsch abgemeldet"
    )
    tap(page, 2, "normal")
    expect(score(page, 2)).to_have_text("6")
    tap(page, 1, "schneider")
    expect(score(page, 1)).to_have_text("5")
    tap(page, 1, "schwarz")
    expect(score(page, 1)).to_have_text("2")
    tap(page, 1, "failed_close")
    expect(score(page, 1)).to_have_text("0")
    result = page.locator("[data-result]")
    expect(result).to_have_text("Sepp hat gewonnen, der Gegner hat das Bummerl")
    # The confirmation and the deal list in Austrian words, as the buttons say them.
    expect(page.locator("[data-status]")).to_contain_text("Gegner: Zudrehen verfehlt")
    first_row = page.locator(".deals tbody tr").first
    expect(first_row).to_contain_text("Gegner: Zudrehen verfehlt")
    expect(page.locator(".deals tbody tr").last).to_contain_text("Einfach")
    expect(page.locator(".deals tbody tr").first.locator("td.num")).to_have_text(["0", "6"])
    assert tally(page, 2) == "Bummerl: 1"  # Resi has the Bummerl
    assert tally(page, 1) == "Bummerl: 0"
    all_saved(page)
    server = server_match(page)
    assert (server["game"], server["winner"], server["marks"]) == ("schnapsen", 1, 1)
    assert [player["games"] for player in server["players"]] == [0, 1]
    page.goto("/statistics")
    expect(page.get_by_role("rowheader", name="Bummerl bekommen")).to_be_visible()


def test_a_schneider_bummerl_in_bulgarian(bulgarian: Page) -> None:
    page = bulgarian
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "bg")
    name_players(page, "Ivan", "Maria")
    choose_schnapsen(page)
    tap(page, 2, "schwarz")
    tap(page, 2, "schneider")
    expect(score(page, 2)).to_have_text("2")
    tap(page, 2, "schneider")
    expect(score(page, 2)).to_have_text("0")
    expect(score(page, 1)).to_have_text("7")  # Ivan never scored: a Schneider-Bummerl
    assert tally(page, 1) == "Бумерли: 2"
    assert tally(page, 2) == "Бумерли: 0"
    all_saved(page)
    server = server_match(page)
    assert (server["game"], server["winner"], server["marks"]) == ("schnapsen", 2, 2)
    page.reload()
    assert tally(page, 1) == "Бумерли: 2"  # as the server counts it


def choose_best_of_three(page: Page) -> None:
    """Best of three, chosen in the house rules before the first Bummerl."""
    open_settings(page)
    page.select_option("#rule-session", "best_of_three")
    page.locator(".rules-form button").click()
    all_saved(page)


def win_bummerl(page: Page, winner: int, *, new: bool = True) -> None:
    """A Bummerl won by ``winner`` (Schwarz, Schwarz, a win: 7), started from the last
    one's result unless ``new`` is False."""
    if new:
        next_tap(page)  # not the winning tap's second
        page.locator(".result button").click()
        expect(page.locator(".record")).to_be_visible()
    for outcome in ("schwarz", "schwarz", "normal"):
        tap(page, winner, outcome)
    expect(score(page, winner)).to_have_text("0")


def test_best_of_three_in_german(german: Page) -> None:
    page = german
    page.goto("/")
    name_players(page, "Sepp", "Resi")
    choose_schnapsen(page)
    session = page.locator("[data-session]")
    expect(session).to_be_hidden()  # one Bummerl unless best of three is chosen
    choose_best_of_three(page)
    expect(session).to_have_text("Zwei aus drei: Sepp 0, Resi 0")
    win_bummerl(page, 1, new=False)
    expect(session).to_have_text("Zwei aus drei: Sepp 1, Resi 0")
    win_bummerl(page, 2)
    expect(session).to_have_text("Zwei aus drei: Sepp 1, Resi 1")
    win_bummerl(page, 1)
    expect(session).to_have_text("Sepp gewinnt 2:1 (zwei aus drei)")
    all_saved(page)
    page.reload()
    expect(session).to_have_text("Sepp gewinnt 2:1 (zwei aus drei)")  # as the server says it
    assert server_match(page)["session"] == [2, 1]
    page.goto("/statistics")
    row = page.get_by_role("row", name="Zwei aus drei gewonnen")
    expect(row.locator("td")).to_have_text(["1", "0"])


def test_best_of_three_in_bulgarian(bulgarian: Page) -> None:
    page = bulgarian
    page.goto("/")
    name_players(page, "Ivan", "Maria")
    choose_schnapsen(page)
    choose_best_of_three(page)
    win_bummerl(page, 2, new=False)
    session = page.locator("[data-session]")
    expect(session).to_have_text("Две от три: Ivan 0, Maria 1")
    win_bummerl(page, 2)
    expect(session).to_have_text("Maria спечели серията с 2:0")
    all_saved(page)
    assert server_match(page)["session"] == [0, 2]


def test_the_new_match_form_offers_the_game_just_started(german: Page) -> None:
    """Not the game the page was first drawn with, which a second start would go back to."""
    page = german
    page.goto("/")
    choose_schnapsen(page)
    form = page.locator("form.new-match")
    expect(form.locator("#new-game")).to_have_value("schnapsen")
    expect(form.locator("[name=target][value='7']")).to_be_checked()
