"""Small screens and safe buttons: what a player needs during a match fits the screen,
every tap target is big enough for a finger, and what deletes looks it."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from phones import (
    SAME_TAP_MS,
    all_saved,
    button,
    held_clock,
    name_players,
    open_settings,
    phone,
    stored_once,
    tap,
)

pytestmark = pytest.mark.slow

SMALL_SCREENS = [(320, 568), (360, 640), (844, 390), (740, 360)]
FINGER = 44  # px: the smallest tap target


OFF_SCREEN = """selector => [...document.querySelectorAll(selector)]
  .filter((element) => element.offsetParent !== null)
  .map((element) => [element, element.getBoundingClientRect()])
  .filter(([, box]) => box.top < 0 || box.left < 0
    || box.bottom > innerHeight || box.right > innerWidth)
  .map(([element, box]) => `${element.value || element.className}: ${box.bottom}`)"""


def off_screen(page: Page, selector: str) -> list[str]:
    """The visible elements of ``selector`` that are not whole within the screen as it is."""
    return page.evaluate(OFF_SCREEN, selector)


def too_small(page: Page, selector: str) -> list[str]:
    return page.evaluate(
        """([selector, least]) => [...document.querySelectorAll(selector)]
          .filter((element) => element.offsetParent !== null)
          .map((element) => [element, element.getBoundingClientRect()])
          .filter(([, box]) => box.width < least - 0.5 || box.height < least - 0.5)
          .map(([element, box]) => `${element.textContent.trim()}: ${box.width}x${box.height}`)""",
        [selector, FINGER],
    )


def during_a_match(browser: Browser, server: str, size: tuple[int, int], **options: Any) -> Page:
    width, height = size
    context = phone(browser, server, viewport={"width": width, "height": height}, **options)
    page = context.new_page()
    page.goto("/")
    tap(page, 1, "normal")
    return page


@pytest.mark.parametrize("size", SMALL_SCREENS, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("locale", ["bg-BG", "en-GB"])
@pytest.mark.parametrize("facing", ["off", "on"])
def test_every_outcome_button_and_undo_are_on_screen_during_a_match(
    browser: Browser, server: str, size: tuple[int, int], locale: str, facing: str
) -> None:
    page = during_a_match(browser, server, size, locale=locale)
    if facing == "on":
        all_saved(page)  # a reload in the instant of a tap may come before the tap is kept
        page.context.add_cookies([{"name": "facing", "value": "on", "url": server}])
        page.reload()
    expect(page.locator(".deals tbody tr")).to_have_count(1)
    assert page.evaluate("scrollY") == 0
    assert page.locator(".record button.deal:visible").count() >= 12
    assert settled_off_screen(page, ".record button.deal, .undo button, .player [data-score]") == []
    page.context.close()


def settled_off_screen(page: Page, selector: str) -> list[str]:
    """``off_screen`` once the page has settled (late styles, the first live update): what
    is still off screen after a second is off screen for the player too."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            f"selector => ({OFF_SCREEN})(selector).length === 0", arg=selector, timeout=1000
        )
    return off_screen(page, selector)


def test_tap_targets_are_at_least_44_px_on_the_narrowest_phone(
    browser: Browser, server: str
) -> None:
    page = during_a_match(browser, server, (320, 568))
    targets = "header a, .record button, .undo button, .targets button, a.fix, footer button"
    assert too_small(page, targets) == []
    page.goto("/matches")
    assert too_small(page, "header a, .links a, .history button") == []
    page.context.close()


@pytest.mark.parametrize("size", [(320, 568), (360, 640), (390, 844)], ids=str)
@pytest.mark.parametrize("locale", ["bg-BG", "en-GB"])
def test_the_deal_list_is_one_screen_below_the_buttons_and_the_line_keeps_the_score(
    browser: Browser, server: str, size: tuple[int, int], locale: str
) -> None:
    """To check or correct a deal no scrolling past the settings; and however long the
    names, the line under the score keeps the score after the deal."""
    width, height = size
    context = phone(browser, server, viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    page.goto("/")
    name_players(page, "Александър Константинов", "Мария-Магдалена Стефанова")
    tap(page, 1, "schwarz")
    echo = page.locator("[data-status] .echo")
    expect(echo).to_have_text(re.compile(r"^3:0"))
    box, line = echo.bounding_box(), page.locator("[data-status] .message").bounding_box()
    assert box is not None
    assert line is not None
    assert box["x"] >= line["x"]
    assert box["x"] + box["width"] <= line["x"] + line["width"]
    undo = page.locator(".undo").bounding_box()
    deals = page.locator(".deal-list").bounding_box()
    assert undo is not None
    assert deals is not None
    assert deals["y"] - (undo["y"] + undo["height"]) <= height
    context.close()


LAST_WORD_SHOWN = """card => {
  const name = card.querySelector(".name");
  const walker = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
  let text = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.data.trim()) text = node;
  }
  const range = document.createRange();
  range.setStart(text, text.data.lastIndexOf(" ") + 1);
  range.setEnd(text, text.data.length);
  const word = range.getBoundingClientRect(), box = name.getBoundingClientRect();
  return word.left >= box.left - 0.5 && word.right <= box.right + 0.5
    && word.top >= box.top - 0.5 && word.bottom <= box.bottom + 0.5;
}"""


@pytest.mark.parametrize("size", [(320, 568), (360, 640)], ids=str)
def test_two_long_names_that_begin_alike_stay_apart_in_the_score_cards(
    browser: Browser, server: str, size: tuple[int, int]
) -> None:
    """Each card shows the surname that tells the two apart, and every outcome button and
    Undo still fit the screen."""
    width, height = size
    context = phone(browser, server, viewport={"width": width, "height": height}, locale="bg-BG")
    page = context.new_page()
    page.goto("/")
    name_players(page, "Александър Петров", "Александър Иванов")
    tap(page, 1, "normal")
    page.evaluate("window.scrollTo(0, 0)")
    for seat in (1, 2):
        assert page.locator(f'.player[data-seat="{seat}"]').evaluate(LAST_WORD_SHOWN), seat
    assert settled_off_screen(page, ".record button.deal, .undo button, .player [data-score]") == []
    context.close()


def test_before_the_first_deal_the_dealer_is_said_and_the_other_card_offers_the_choice(
    browser: Browser, server: str
) -> None:
    """In Bulgarian „Раздава“ on both cards read as two dealers: the card not chosen says
    „Нека раздава“, whole at 320 px, and says „Раздава“ once chosen."""
    context = phone(browser, server, viewport={"width": 320, "height": 568}, locale="bg-BG")
    page = context.new_page()
    page.goto("/")
    first, second = (page.locator(f'.player[data-seat="{seat}"] .first-dealer') for seat in (1, 2))
    expect(first).to_have_text("Раздава", use_inner_text=True)
    expect(second).to_have_text("Нека раздава", use_inner_text=True)
    assert off_screen(page, ".first-dealer, .under .games") == []
    second.click()
    expect(second).to_have_text("Раздава", use_inner_text=True)
    expect(first).to_have_text("Нека раздава", use_inner_text=True)
    context.close()


OUT_OF_CARD = """() => [...document.querySelectorAll(".under > *")]
  .filter((element) => element.offsetParent !== null)
  .filter((element) => {
    const box = element.getBoundingClientRect();
    const card = element.closest(".player").getBoundingClientRect();
    return box.left < card.left || box.right > card.right;
  })
  .map((element) => element.innerText)"""


@pytest.mark.parametrize("width", [320, 360])
@pytest.mark.parametrize(
    ("locale", "game"), [("de-AT", "schnapsen"), ("bg-BG", "santase"), ("de-AT", "sixty_six")]
)
def test_before_the_first_deal_the_tally_and_the_dealer_fit_the_card(
    browser: Browser, server: str, width: int, locale: str, game: str
) -> None:
    """A Schnapsen player reads the Bummerl count beside "Gibt zuerst", not "Bumme"."""
    context = phone(browser, server, viewport={"width": width, "height": 640}, locale=locale)
    page = context.new_page()
    page.goto("/")
    open_settings(page)
    form = page.locator("form.new-match")
    form.locator("#new-game").select_option(game)
    form.locator("button").click()
    expect(page.locator(".counter.fresh")).to_be_visible()
    expect(page.locator('.player[data-seat="2"] .first-dealer')).to_be_visible()
    assert page.evaluate(OUT_OF_CARD) == []
    context.close()


def test_delete_and_erase_look_destructive_not_like_going_on(browser: Browser, server: str) -> None:
    page = during_a_match(browser, server, (390, 844))
    tap(page, 2, "normal")
    all_saved(page)  # the match is in the history only once the server has it
    page.goto("/matches")
    green = page.evaluate(
        """() => {
          const primary = document.createElement("button");
          primary.className = "primary";  // "Continue this match", and every step forward
          document.body.append(primary);
          return getComputedStyle(primary).backgroundColor;
        }"""
    )
    delete = page.locator(".history button.danger").first
    assert delete.evaluate("element => getComputedStyle(element).backgroundColor") != green
    page.goto("/privacy")
    # Erase everything, and Forget other devices (Remove, once other devices are listed)
    expect(page.locator("button.danger")).to_have_count(2)
    page.context.close()


def test_a_second_tap_within_the_same_tap_is_shown(browser: Browser, server: str) -> None:
    context = phone(browser, server)
    page = context.new_page()
    held_clock(page)
    page.goto("/")
    button(page, 1, "normal").click()
    page.clock.run_for(SAME_TAP_MS // 3)
    button(page, 1, "normal").click()
    expect(page.locator("[data-status]")).to_contain_text("The same tap, counted once")
    expect(page.locator(".deals tbody tr")).to_have_count(1)
    context.close()


def test_enter_in_a_name_field_renames_once(browser: Browser, server: str) -> None:
    context = phone(browser, server)
    page = context.new_page()
    writes: list[str] = []
    page.on(
        "request",
        lambda request: (
            writes.append(f"{request.method} {request.url}")
            if request.method in {"POST", "PATCH"} and "/api/matches" in request.url
            else None
        ),
    )
    page.goto("/")
    page.fill("#player1", "Ivan")
    page.press("#player1", "Enter")  # the field's change, then the form's submit
    expect(page.locator("[data-status]")).to_contain_text("Ivan")
    expect(page.locator("[data-sync]")).not_to_have_class(re.compile("waiting"), timeout=15_000)
    stored_once(page, "(saved) => !saved.outbox.length")
    renames = [write for write in writes if write.startswith("PATCH")]
    assert len(renames) == 1, writes
    context.close()
