"""A club evening in real browsers: the host's laptop, a phone at each table, the board on
the wall, each in its own browser context.

Set UPDATE_SCREENSHOTS=1 to write the README's screenshot of the board into docs/.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from phones import phone, tap

pytestmark = pytest.mark.slow

DOCS = Path(__file__).resolve().parents[2] / "docs"
SIX = ["Ана", "Борис", "Вера", "Галя", "Дени", "Емо"]
TV = {"width": 1920, "height": 1080}


def host_evening(host: Page, names: list[str], fmt: str, target: int = 7) -> str:
    """Start an evening on the host's laptop; returns the board's link."""
    host.goto("/evenings")
    host.fill("input[name=name]", "Петък в клуба")
    host.fill("textarea[name=players]", "\n".join(names))
    host.check(f"input[name=format][value={fmt}]")
    host.select_option("select[name=target]", str(target))
    host.get_by_role("button", name="Start the evening").click()
    expect(host.locator("h1")).to_have_text("Петък в клуба")
    link = host.get_by_role("link", name="The board for the room").get_attribute("href")
    assert link
    return link


def start_round(host: Page, number: int) -> list[str]:
    """Start round ``number``; the links of its tables, in table order."""
    host.get_by_role("button", name=f"Start round {number}").click()
    expect(host.get_by_role("heading", name=f"Round {number}: the tables")).to_be_visible()
    links = host.get_by_role("link", name="Open the match")
    return [str(links.nth(i).get_attribute("href")) for i in range(links.count())]


def table_names(board: Page, number: int) -> tuple[str, str]:
    row = board.locator(f".now [data-table='{number}'] .who")
    return row.nth(0).inner_text(), row.nth(1).inner_text()


def play_table(table: Page, board: Page, link: str, number: int, seat: int, deals: int) -> None:
    """The table's phone records ``deals`` schwarz for ``seat``; each shows on the board."""
    table.goto(link)
    for done in range(1, deals + 1):
        tap(table, seat, "schwarz")
        points = (3 * done, 0) if seat == 1 else (0, 3 * done)
        row = board.locator(f".now [data-table='{number}']")
        expect(row.locator("[data-score]")).to_have_text(f"{points[0]}:{points[1]}")
    expect(row).to_have_class("done")


def board_won(board: Page) -> dict[str, int]:
    rows = board.locator(".standings tbody tr")
    expect(rows.first).to_be_visible()
    return {
        rows.nth(i).locator(".name").inner_text(): int(
            rows.nth(i).locator("td").nth(2).inner_text()
        )
        for i in range(rows.count())
    }


@pytest.fixture
def contexts(browser: Browser, server: str) -> list[BrowserContext]:
    made: list[BrowserContext] = []
    yield made  # type: ignore[misc]
    for context in made:
        context.close()


def test_six_players_everyone_plays_everyone_live_on_the_board(
    browser: Browser, server: str, contexts: list[BrowserContext], tmp_path: Path
) -> None:
    contexts += [phone(browser, server, viewport={"width": 1280, "height": 900}, is_mobile=False)]
    host = contexts[0].new_page()
    board_link = host_evening(host, SIX, "round_robin")
    contexts.append(
        phone(browser, server, viewport=TV, is_mobile=False, has_touch=False, device_scale_factor=1)
    )
    board = contexts[-1].new_page()
    board.goto(board_link)
    tables = []
    for _ in range(3):
        contexts.append(phone(browser, server))
        tables.append(contexts[-1].new_page())
    wins: Counter[str] = Counter()
    corrected_match, corrected_pair = "", ("", "")
    for number in range(1, 6):
        links = start_round(host, number)
        assert len(links) == 3
        expect(board.locator(".now h2").first).to_have_text(f"Round {number} / 5")
        if number == 1:
            corrected_match = str(
                host.get_by_role("link", name="Deals and corrections").first.get_attribute("href")
            )
            corrected_pair = table_names(board, 1)
        for index, (link, table) in enumerate(zip(links, tables, strict=True), 1):
            seat = 1 + (number + index) % 2
            wins[table_names(board, index)[seat - 1]] += 1
            play_table(table, board, link, index, seat, 3)
        host.reload()
        if number == 4:
            expect(board.get_by_role("heading", name="Next: round 5")).to_be_visible()
            folder = DOCS if os.environ.get("UPDATE_SCREENSHOTS") else tmp_path
            board.screenshot(path=folder / "evening-board.png")
    expect(board.locator(".now .over")).to_have_text("Every round has been played.")
    assert board_won(board) == {name: wins[name] for name in SIX}

    # Round 1, table 1 went to its first seat; the host corrects each deal to the other.
    for deal in (1, 2, 3):
        host.goto(f"{corrected_match}/deals/{deal}")
        host.locator("form.correction input[name=player][value='2']").check()
        host.get_by_role("button", name="Save the correction").click()
    wins[corrected_pair[0]] -= 1
    wins[corrected_pair[1]] += 1
    for name in corrected_pair:  # the board follows, live
        row = board.locator(".standings tbody tr", has=board.locator(".name", has_text=name))
        expect(row.locator("td").nth(2)).to_have_text(str(wins[name]))
    assert board_won(board) == {name: wins[name] for name in SIX}


def test_three_lives_runs_eight_players_to_one_winner(
    browser: Browser, server: str, contexts: list[BrowserContext]
) -> None:
    contexts.append(
        phone(browser, server, viewport={"width": 1280, "height": 900}, is_mobile=False)
    )
    host = contexts[0].new_page()
    board_link = host_evening(host, [f"Играч {i}" for i in range(1, 9)], "lives")
    contexts.append(
        phone(browser, server, viewport=TV, is_mobile=False, has_touch=False, device_scale_factor=1)
    )
    board = contexts[-1].new_page()
    board.goto(board_link)
    tables: list[Page] = []
    number = 0
    while host.get_by_role("button", name=re.compile("^Start round")).count():
        number += 1
        links = start_round(host, number)
        while len(tables) < len(links):
            contexts.append(phone(browser, server))
            tables.append(contexts[-1].new_page())
        for index, (link, table) in enumerate(zip(links, tables, strict=False), 1):
            play_table(table, board, link, index, 1 + index % 2, 3)
        host.reload()
    expect(board.locator(".now .over")).to_have_text("Every round has been played.")
    lives = board.locator(".standings tbody tr td:last-child")
    assert [lives.nth(i).inner_text() for i in range(8)].count("") == 7
    assert len(lives.nth(0).inner_text()) >= 1
