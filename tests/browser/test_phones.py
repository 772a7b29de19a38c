"""Several phones on one browser key, in Chromium: each keeps its own match, a deal shows
on the others within a second, and the same deal tapped on two phones counts once unless
a player says it was two."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from phones import (
    LAN_NAME,
    all_saved,
    button,
    joined,
    name_players,
    next_tap,
    open_settings,
    phone,
    score,
    server_match,
    stored,
    tap,
)

pytestmark = pytest.mark.slow

LIVE_MS = 1000  # a change on one phone is on the other's screen within this
SAME_DEAL_MS = 10_000  # as in counter.js: a deal from another phone this recent may be the same


@pytest.fixture(params=["127.0.0.1", LAN_NAME])
def two_phones(
    browser: Browser, server: str, request: pytest.FixtureRequest
) -> Iterator[tuple[Page, Page]]:
    """Phone A with Ana and Boris at 1:0, and phone C on the same key showing that match;
    at this computer's own address, and at a name on the Wi-Fi over plain http (no secure
    context: no crypto.randomUUID, no service worker)."""
    server = server.replace("127.0.0.1", request.param)
    context = phone(browser, server)
    a = context.new_page()
    a.goto("/")
    name_players(a, "Ana", "Boris")
    tap(a, 1, "normal")
    all_saved(a)
    c = joined(browser, server, a)
    expect(score(c, 1)).to_have_text("1")
    yield a, c
    c.context.close()
    context.close()


def take_the_offer(page: Page, said: str = "Another phone started a new match") -> None:
    """The other phone's new match, offered on this one, shown here."""
    offer = page.locator("[data-offer]")
    expect(offer).to_contain_text(f"{said}: Ana – Boris.", timeout=LIVE_MS)
    offer.get_by_role("button", name="Show it here").click()
    expect(score(page, 1)).to_have_text("0")


def start_new_match(page: Page) -> None:
    """New match, on the phone's settings, confirmed (the match on it is not finished)."""
    open_settings(page)
    page.locator(".new-match button").click()
    page.locator("dialog.ask button[value=yes]").click()


def match_of(page: Page) -> Any:
    """The match on this phone's screen, as the server has it."""
    match_id = stored(page)["match"]["id"]
    return page.evaluate(f"fetch('/api/matches/{match_id}').then(r => r.json())")


def test_a_deal_on_one_phone_is_on_the_other_within_a_second(
    two_phones: tuple[Page, Page],
) -> None:
    a, c = two_phones
    started = time.monotonic()
    tap(c, 2, "schneider")
    expect(score(a, 2)).to_have_text("2", timeout=LIVE_MS)
    print(f"tap on C to the score on A: {(time.monotonic() - started) * 1000:.0f} ms")


def test_three_phones_see_each_others_deals(browser: Browser, server: str) -> None:
    context = phone(browser, server)
    a = context.new_page()
    a.goto("/")
    tap(a, 1, "normal")
    all_saved(a)
    b, c = joined(browser, server, a), joined(browser, server, a)
    b.clock.install()  # B's player taps the next deal minutes later, on B's clock
    b.reload()
    tap(c, 2, "schwarz")
    for other in (a, b):
        expect(score(other, 2)).to_have_text("3", timeout=LIVE_MS)
    b.clock.run_for(SAME_DEAL_MS)
    tap(b, 1, "schneider")
    for other in (a, c):
        expect(score(other, 1)).to_have_text("3", timeout=LIVE_MS)
    for each in (b, c):
        each.context.close()
    context.close()


def test_a_phone_keeps_its_match_while_another_plays_elsewhere(
    two_phones: tuple[Page, Page],
) -> None:
    a, c = two_phones
    ours = match_of(a)["id"]
    start_new_match(c)
    expect(score(c, 1)).to_have_text("0")
    tap(c, 2, "normal")
    all_saved(c)
    c.reload()
    expect(score(c, 2)).to_have_text("1")
    # A has heard of C's new match (offered, not imposed), and still shows its own.
    offer = a.locator("[data-offer]")
    expect(offer).to_contain_text("Another phone started a new match", timeout=LIVE_MS)
    expect(score(a, 1)).to_have_text("1")
    offer.get_by_role("button", name="Stay on this one").click()
    tap(a, 2, "schwarz")
    all_saved(a)
    assert match_of(a)["id"] == ours
    assert [p["score"] for p in match_of(a)["players"]] == [1, 3]
    a.reload()
    expect(score(a, 2)).to_have_text("3")


Taps = tuple[tuple[int, str], ...]


def overtaken(a: Page, c: Page, mine: Taps = ((2, "schneider"),), theirs: Taps = ()) -> None:
    """A taps ``mine`` offline and C ``theirs`` (the same by default) for the same deals;
    A's taps reach the server second."""
    a.context.set_offline(True)
    for each in mine:
        tap(a, *each)
    for each in theirs or mine:
        tap(c, *each)
    all_saved(c)
    a.context.set_offline(False)
    a.evaluate("window.dispatchEvent(new Event('online'))")


def test_the_same_deal_from_two_phones_offline_is_kept_once(
    two_phones: tuple[Page, Page],
) -> None:
    a, c = two_phones
    overtaken(a, c)
    question = a.locator("dialog.ask")
    expect(question).to_contain_text(
        "Another phone recorded deal 2: +2 Boris · Schneider. Yours: +2 Boris · Schneider. "
        "Same deal?"
    )
    question.get_by_role("button", name="Same deal, keep one").click()
    all_saved(a)
    assert [p["score"] for p in match_of(a)["players"]] == [1, 2]
    expect(score(a, 2)).to_have_text("2")
    expect(score(c, 2)).to_have_text("2")


def test_the_same_deals_from_two_phones_offline_are_each_asked_about_once(
    two_phones: tuple[Page, Page],
) -> None:
    """Both phones offline tap the same two deals: A's first is one of C's, and its second
    is asked about in turn, never added in silence."""
    a, c = two_phones
    overtaken(a, c, mine=((1, "normal"), (2, "schneider")))
    question = a.locator("dialog.ask")
    expect(question).to_contain_text("Another phone recorded deals 2: +1 Ana · Win; 3:")
    question.get_by_role("button", name="Same deal, keep one").click()
    expect(question).to_contain_text(
        "Another phone recorded deal 3: +2 Boris · Schneider. Yours: +2 Boris · Schneider."
    )
    expect(a.locator("[data-status]")).to_be_empty()  # no score counting the deal asked about
    question.get_by_role("button", name="Same deal, keep one").click()
    all_saved(a)
    assert [p["score"] for p in match_of(a)["players"]] == [2, 2]


def test_the_score_behind_the_question_leaves_out_the_deals_waiting_on_it(
    two_phones: tuple[Page, Page],
) -> None:
    """A's +2 Boris is asked about, and its +1 Ana waits behind it: the score is C's."""
    a, c = two_phones
    overtaken(a, c, mine=((2, "schneider"), (1, "normal")), theirs=((2, "schneider"),))
    expect(a.locator("dialog.ask")).to_be_visible()
    expect(score(a, 2)).to_have_text("2")  # C's +2, not A's as well
    expect(score(a, 1)).to_have_text("1")  # nor A's next deal


def test_after_mine_the_score_is_told_once_the_deals_behind_it_went(
    two_phones: tuple[Page, Page],
) -> None:
    a, c = two_phones
    overtaken(a, c, mine=((1, "normal"), (2, "schneider")), theirs=((2, "schwarz"),))
    a.locator("dialog.ask").get_by_role("button", name="Mine", exact=True).click()
    expect(a.locator("[data-status]")).to_contain_text("Ana 2, Boris 2")
    all_saved(a)
    assert [p["score"] for p in match_of(a)["players"]] == [2, 2]


def test_add_mine_too_records_both(two_phones: tuple[Page, Page]) -> None:
    a, c = two_phones
    overtaken(a, c)
    a.locator("dialog.ask").get_by_role("button", name="Add mine too").click()
    expect(a.locator("[data-status]")).to_contain_text("Ana 1, Boris 4")  # the score now
    all_saved(a)
    assert [p["score"] for p in match_of(a)["players"]] == [1, 4]
    expect(score(c, 2)).to_have_text("4", timeout=LIVE_MS)


def test_an_answer_to_the_same_deal_that_comes_after_the_players_choice_is_not_asked_again(
    two_phones: tuple[Page, Page],
) -> None:
    """Back online, a phone woken twice (the network, the page) can send its waiting deal a
    second time before the first answer is kept: that answer, the same question, can come
    after the player chose "Add mine too". The choice stands: not asked again, and sent."""
    a, c = two_phones
    overtaken(a, c)
    question = a.locator("dialog.ask")
    expect(question).to_be_visible()
    a.evaluate(
        """async () => {
            const outbox = await import("/static/outbox.js"); // the page's own module
            const [sent] = outbox.state.outbox;
            const answer = { match: structuredClone(outbox.state.match), ask: sent.ask };
            window.__late = [structuredClone(sent), answer];
        }"""
    )
    a.route("**/deals", lambda route: route.abort())  # the chosen deal waits to go
    question.get_by_role("button", name="Add mine too").click()
    expect(question).to_be_hidden()
    asked_again = a.evaluate(
        """async () => {
            const phone = await import("/static/other-phone.js");
            const outbox = await import("/static/outbox.js");
            phone.settle(...window.__late); // the second sending's answer, late (kept at once)
            await outbox.update(() => {}); // after what it keeps
            return outbox.state.outbox.some((each) => each.ask);
        }"""
    )
    assert not asked_again
    a.unroute("**/deals")
    a.evaluate("window.dispatchEvent(new Event('online'))")
    all_saved(a)
    expect(question).to_be_hidden()
    assert [p["score"] for p in match_of(a)["players"]] == [1, 4]


def test_the_same_deal_tapped_on_both_phones_seconds_apart_is_asked_about(
    two_phones: tuple[Page, Page],
) -> None:
    """C's deal is already on A's screen when A's player taps the same one: asked, not added."""
    a, c = two_phones
    a.clock.install()  # A's player taps seconds after C's deal came, on A's clock
    a.reload()
    expect(score(a, 1)).to_have_text("1")
    tap(c, 2, "schneider")
    expect(score(a, 2)).to_have_text("2", timeout=LIVE_MS)
    a.clock.run_for(2000)
    button(a, 2, "schneider").click()
    question = a.locator("dialog.ask")
    expect(question).to_contain_text("Another phone recorded deal 2")
    question.get_by_role("button", name="Same deal, keep one").click()
    all_saved(a)
    assert [p["score"] for p in match_of(a)["players"]] == [1, 2]


def test_two_tabs_of_one_phone_are_never_asked_about_their_own_deals(
    browser: Browser, server: str
) -> None:
    """A deal tapped in one tab reaches the other live; the same tap there soon after is a
    second deal of this phone, not another phone's."""
    context = phone(browser, server)
    first = context.new_page()
    first.goto("/")
    tap(first, 1, "normal")
    all_saved(first)
    second = context.new_page()
    second.goto("/")
    tap(first, 2, "schneider")
    expect(score(second, 2)).to_have_text("2", timeout=LIVE_MS)
    tap(second, 2, "schneider")
    all_saved(second)
    expect(second.locator("dialog.ask")).to_have_count(0)
    assert [p["score"] for p in match_of(second)["players"]] == [1, 4]
    context.close()


def test_a_question_left_open_is_asked_again_after_a_reload(
    two_phones: tuple[Page, Page],
) -> None:
    a, c = two_phones
    overtaken(a, c)
    expect(a.locator("dialog.ask")).to_be_visible()
    a.reload()
    question = a.locator("dialog.ask")
    expect(question).to_contain_text("Same deal?")
    question.get_by_role("button", name="Same deal, keep one").click()
    all_saved(a)
    assert [p["score"] for p in match_of(a)["players"]] == [1, 2]


def test_a_shared_link_shows_each_deal_within_a_second(
    browser: Browser, server: str, two_phones: tuple[Page, Page]
) -> None:
    a, _c = two_phones
    a.goto(f"/matches/{match_of(a)['id']}")
    a.get_by_role("button", name="Make a read-only link").click()
    link = a.locator("a.share-url").get_attribute("href")
    assert link
    viewer: BrowserContext = phone(browser, server)
    watching = viewer.new_page()
    watching.goto(link)
    expect(score(watching, 1)).to_have_text("1")
    a.goto("/")
    tap(a, 1, "schwarz")
    expect(score(watching, 1)).to_have_text("4", timeout=LIVE_MS)
    viewer.close()


def test_a_phone_back_at_the_table_is_offered_the_new_match_it_missed(
    two_phones: tuple[Page, Page],
) -> None:
    """Its page was closed when the other phone started the new match: opened again, it
    shows the old match, and says so before a tap goes there."""
    a, c = two_phones
    ours = match_of(a)["id"]
    a.goto("about:blank")
    start_new_match(c)
    all_saved(c)
    a.goto("/")
    expect(score(a, 1)).to_have_text("1")  # the old match, as it was
    assert match_of(a)["id"] == ours
    take_the_offer(a)
    assert match_of(a)["id"] != ours


def test_two_phones_starting_a_new_match_at_once_are_offered_the_first(
    two_phones: tuple[Page, Page],
) -> None:
    """C's New match reaches the server just after A's: C is offered A's, so that both
    phones can go on with one match."""
    a, c = two_phones
    tap(c, 2, "normal")  # both phones played the match
    all_saved(c)
    next_tap(c)
    starts = "**/api/matches"
    c.route(starts, lambda route: route.abort("internetdisconnected"))  # C's, held back
    start_new_match(c)
    expect(score(c, 2)).to_have_text("0")  # off the old match's stream before A starts
    with a.expect_response(lambda answer: answer.url.endswith("/api/matches")):
        start_new_match(a)  # A's start is on the server before C's
    c.unroute(starts)
    c.evaluate("window.dispatchEvent(new Event('online'))")
    all_saved(c)
    take_the_offer(c, "The other phone started a new match at the same moment")
    tap(a, 2, "normal")
    expect(score(c, 2)).to_have_text("1", timeout=LIVE_MS)  # C shows A's new match


def test_after_two_new_matches_only_the_phone_that_started_second_is_offered(
    two_phones: tuple[Page, Page],
) -> None:
    """C came by the link and has recorded nothing: its New match still starts from the
    match on its screen, so A is offered nothing and C is offered A's."""
    a, c = two_phones
    with a.expect_response(lambda answer: answer.url.endswith("/api/matches")):
        start_new_match(a)
    start_new_match(c)
    all_saved(c)
    offer = c.locator("[data-offer]")
    expect(offer).to_contain_text("started a new match", timeout=LIVE_MS)
    offer.get_by_role("button", name="Show it here").click()
    expect(offer).to_have_count(0)
    expect(a.locator("[data-offer]")).to_have_count(0)
    assert match_of(a)["id"] == match_of(c)["id"]


def test_a_new_match_on_another_phone_is_offered_not_imposed(
    two_phones: tuple[Page, Page],
) -> None:
    a, c = two_phones
    ours = match_of(a)["id"]
    start_new_match(c)
    all_saved(c)
    expect(a.locator("[data-offer]")).to_be_visible(timeout=LIVE_MS)
    assert match_of(a)["id"] == ours
    take_the_offer(a)
    tap(a, 2, "schwarz")
    all_saved(a)
    assert match_of(a)["id"] == match_of(c)["id"] != ours
    expect(score(c, 2)).to_have_text("3", timeout=LIVE_MS)


def test_the_offer_shows_its_answers_whole_on_a_narrow_phone(
    two_phones: tuple[Page, Page],
) -> None:
    a, c = two_phones
    a.set_viewport_size({"width": 320, "height": 640})
    start_new_match(c)
    offer = a.locator("[data-offer]")
    expect(offer).to_be_visible(timeout=LIVE_MS)
    for answer in offer.get_by_role("button").all():
        assert answer.evaluate("b => b.scrollWidth <= b.clientWidth && b.clientHeight <= 48")


def test_a_phone_still_showing_a_won_match_follows_the_new_one_of_another(
    two_phones: tuple[Page, Page],
) -> None:
    """Nothing is left to play on a won match: the other phone's new match is shown at once,
    not offered, so that its "New match" button does not start a second one."""
    a, c = two_phones
    won = match_of(a)["id"]
    for _ in range(4):
        tap(a, 1, "schwarz")
    expect(score(c, 1)).to_have_text("13", timeout=LIVE_MS)
    next_tap(a)
    a.locator(".result button").click()
    tap(a, 2, "normal")
    all_saved(a)
    expect(score(c, 2)).to_have_text("1", timeout=LIVE_MS)
    expect(score(c, 1)).to_have_text("0")
    expect(c.locator("[data-status]")).to_contain_text("Another phone started a new match")
    expect(c.locator("[data-offer]")).to_have_count(0)
    expect(c.locator(".result button")).to_be_hidden()
    assert match_of(a)["id"] == match_of(c)["id"] != won


def test_a_silent_stream_is_opened_afresh_and_the_page_looks_meanwhile(
    browser: Browser, served: Any
) -> None:
    """A stream that says nothing, not even its heartbeat (a proxy holding it back), is not
    trusted: a deal recorded elsewhere shows within a few heartbeats, not at the next 20 s."""
    server, app = served
    heartbeat = app.config["LIVE_HEARTBEAT_S"]
    app.config["LIVE_HEARTBEAT_S"] = 0.5
    context = phone(browser, server)
    try:
        page = context.new_page()
        opened: list[Any] = []
        page.route("**/events", lambda route: opened.append(route))  # never answered: silent
        page.goto("/")
        tap(page, 1, "normal")
        all_saved(page)
        page.evaluate(
            """id => fetch(`/api/matches/${id}/deals`, {
                method: "POST", headers: {"Content-Type": "application/json"},
                body: JSON.stringify({player: 2, outcome: "schwarz", request_id: "elsewhere"}),
            })""",
            server_match(page)["id"],
        )
        expect(score(page, 2)).to_have_text("3", timeout=3000)
        assert len(opened) >= 2
    finally:
        app.config["LIVE_HEARTBEAT_S"] = heartbeat
        context.close()


def test_two_phones_that_disagree_about_one_deal_are_asked_not_both_counted(
    two_phones: tuple[Page, Page],
) -> None:
    """A records +1 Ana, and C, a moment later, +2 Boris for the same deal: one deal is
    recorded, and C's player is asked which it was, with both taps named."""
    a, c = two_phones
    tap(a, 1, "normal")
    expect(score(c, 1)).to_have_text("2", timeout=LIVE_MS)
    button(c, 2, "schneider").click()
    question = c.locator("dialog.ask")
    expect(question).to_contain_text("Another phone recorded deal 2: +1 Ana")
    expect(question).to_contain_text("This phone: +2 Boris")
    question.get_by_role("button", name="The other phone's").click()
    all_saved(c)
    assert [p["score"] for p in match_of(c)["players"]] == [2, 0]
    assert len(match_of(a)["deals"]) == 2


def test_the_phone_that_was_right_corrects_the_other_phones_deal(
    two_phones: tuple[Page, Page],
) -> None:
    """A records +1 Ana, C +2 Boris for the same deal, and C's player says "Mine": deal 2
    becomes +2 Boris, on both phones, and no third deal is recorded."""
    a, c = two_phones
    tap(a, 1, "normal")
    expect(score(c, 1)).to_have_text("2", timeout=LIVE_MS)
    button(c, 2, "schneider").click()
    question = c.locator("dialog.ask")
    question.get_by_role("button", name="Mine", exact=True).click()
    expect(score(c, 1)).to_have_text("1")
    expect(score(c, 2)).to_have_text("2")
    all_saved(c)
    deals = match_of(c)["deals"]
    assert [(deal["player"], deal["outcome"]) for deal in deals] == [
        (1, "normal"),
        (2, "schneider"),
    ]
    expect(score(a, 1)).to_have_text("1", timeout=LIVE_MS)
    expect(score(a, 2)).to_have_text("2")


def test_the_phone_that_was_right_takes_back_the_other_phones_winning_deal(
    two_phones: tuple[Page, Page],
) -> None:
    """At 10:0, C (offline) taps +2 Boris and A +1 Ana, which wins the match to 11: C is
    asked, without "Both" (a won match takes no more deals), and "Mine" reopens the match."""
    a, c = two_phones
    c.clock.install()
    c.reload()
    for _ in range(3):
        tap(a, 1, "schwarz")
    expect(score(c, 1)).to_have_text("10", timeout=LIVE_MS)
    c.clock.run_for(SAME_DEAL_MS)  # a while later: A's deals were not this deal
    overtaken(c, a, mine=((2, "schneider"),), theirs=((1, "normal"),))
    question = c.locator("dialog.ask")
    expect(question).to_contain_text("Another phone recorded deal 5: +1 Ana")
    expect(question.get_by_role("button", name="Both: two deals")).to_have_count(0)
    expect(c.locator("[data-status]")).to_be_empty()  # C's tap no longer reads as its win
    question.get_by_role("button", name="Mine", exact=True).click()
    all_saved(c)
    assert match_of(c)["winner"] is None
    expect(score(a, 1)).to_have_text("10", timeout=LIVE_MS)
    expect(score(a, 2)).to_have_text("2")


def test_mine_for_a_deal_the_other_phone_took_back_meanwhile_keeps_the_later_deals(
    two_phones: tuple[Page, Page],
) -> None:
    """While C's player is asked about A's deal 2, A takes it back: "Mine" then corrects
    nothing, and C's next deal, waiting behind it, still goes (asked about in turn)."""
    a, c = two_phones
    overtaken(c, a, mine=((2, "schneider"), (1, "normal")), theirs=((1, "schwarz"),))
    question = c.locator("dialog.ask")
    expect(question).to_contain_text("Another phone recorded deal 2: +3 Ana")
    next_tap(a)
    a.locator("form.undo button").click()
    all_saved(a)
    question.get_by_role("button", name="Mine", exact=True).click()
    expect(question).to_contain_text("Another phone took back a deal meanwhile.")
    question.get_by_role("button", name="Record mine").click()
    all_saved(c)
    deals = match_of(c)["deals"]
    assert [(deal["player"], deal["outcome"]) for deal in deals] == [(1, "normal")] * 2


def test_the_offer_of_another_phones_new_match_stays_until_it_is_answered(
    two_phones: tuple[Page, Page],
) -> None:
    """An Undo on the old match does not take the offer away; "Stay on this one" does."""
    a, c = two_phones
    start_new_match(c)
    all_saved(c)
    offer = a.locator("[data-offer]")
    expect(offer).to_be_visible(timeout=LIVE_MS)
    a.locator("form.undo button").click()
    expect(score(a, 1)).to_have_text("0")
    expect(offer).to_be_visible()
    offer.get_by_role("button", name="Stay on this one").click()
    expect(offer).to_have_count(0)
    tap(a, 2, "normal")  # asked nothing: the player chose this match


def stayed(a: Page, c: Page) -> None:
    """C starts a new match; A, offered it, stays on its own."""
    start_new_match(c)
    all_saved(c)
    offer = a.locator("[data-offer]")
    expect(offer).to_be_visible(timeout=LIVE_MS)
    offer.get_by_role("button", name="Stay on this one").click()
    expect(offer).to_have_count(0)


# Counts the `next` events the page has handled (the offer's module run): a test can then
# see that an offer said again was not shown.
COUNT_NEXT = """
const add = EventSource.prototype.addEventListener;
window.nextHandled = 0;
EventSource.prototype.addEventListener = function (type, listener, ...rest) {
  const counted = (event) => {
    listener(event);
    import("/static/other-phone.js").then(() => setTimeout(() => window.nextHandled++));
  };
  return add.call(this, type, type === "next" ? counted : listener, ...rest);
};
"""


def test_a_phone_that_stayed_on_its_match_is_not_offered_the_new_one_again(
    two_phones: tuple[Page, Page],
) -> None:
    """The server says the offer again to every stream of the old match; a page opened
    again after "Stay on this one" keeps quiet about it."""
    a, c = two_phones
    stayed(a, c)
    a.add_init_script(COUNT_NEXT)
    a.reload()
    a.wait_for_function("() => window.nextHandled > 0", timeout=5 * LIVE_MS)
    expect(a.locator("[data-offer]")).to_have_count(0)


def test_a_phone_that_stayed_and_then_won_its_match_is_brought_to_the_new_one(
    two_phones: tuple[Page, Page],
) -> None:
    """Turned down while there was play left; once won, the new match is no longer offered
    but shown, so that a second "New match" does not start another."""
    a, c = two_phones
    stayed(a, c)
    for _ in range(4):
        tap(a, 1, "schwarz")
    expect(a.locator("[data-result]")).to_be_visible()
    all_saved(a)
    a.reload()
    expect(a.locator("[data-status]")).to_contain_text("Another phone started a new match")
    assert match_of(a)["id"] == match_of(c)["id"]


def offered_then_tapped(a: Page, c: Page) -> Any:
    """C starts a new match; A, offered it, taps +1 Boris: A is asked which match it is for."""
    start_new_match(c)
    all_saved(c)
    expect(a.locator("[data-offer]")).to_be_visible(timeout=LIVE_MS)
    button(a, 2, "normal").click()
    question = a.locator("dialog.ask")
    expect(question).to_contain_text(
        "Another phone started a new match: Ana – Boris. Which match is this deal for?"
    )
    expect(a.locator(".deals tbody tr")).to_have_count(1)  # nothing recorded before the answer
    return question


@pytest.mark.parametrize(
    ("answer", "goes_to_the_new_match", "scores"),
    [("For the new match", True, [0, 1]), ("For this match", False, [1, 1])],
)
def test_a_deal_tapped_while_another_phones_new_match_is_offered_goes_where_the_player_says(
    two_phones: tuple[Page, Page], answer: str, goes_to_the_new_match: bool, scores: list[int]
) -> None:
    a, c = two_phones
    ours = match_of(a)["id"]
    offered_then_tapped(a, c).get_by_role("button", name=answer).click()
    expect(score(a, 2)).to_have_text(str(scores[1]))
    expect(score(a, 1)).to_have_text(str(scores[0]))
    all_saved(a)
    assert (match_of(a)["id"] != ours) is goes_to_the_new_match
    assert [p["score"] for p in match_of(a)["players"]] == scores
    expect(a.locator("[data-offer]")).to_have_count(0)
    if goes_to_the_new_match:
        expect(score(c, 2)).to_have_text("1", timeout=LIVE_MS)


def test_a_deal_for_a_new_match_deleted_meanwhile_is_not_recorded_and_says_so(
    two_phones: tuple[Page, Page],
) -> None:
    """C deletes the new match A is offered: A's deal "for the new match" records nothing
    and says so, and the offer goes; the next deal is A's match's."""
    a, c = two_phones
    question = offered_then_tapped(a, c)
    deleted = f"fetch('/api/matches/{match_of(c)['id']}', {{method: 'DELETE'}}).then(r => r.status)"
    assert c.evaluate(deleted) == 204
    question.get_by_role("button", name="For the new match").click()
    expect(a.locator("[data-status]")).to_contain_text(
        "Not recorded: the new match could not be opened"
    )
    expect(a.locator("[data-offer]")).to_have_count(0)
    tap(a, 2, "schneider")
    all_saved(a)
    assert [p["score"] for p in match_of(a)["players"]] == [1, 2]


def test_the_phone_that_opened_the_link_cannot_take_the_matches_away(
    two_phones: tuple[Page, Page],
) -> None:
    """Whoever scanned the QR code forgets other devices and erases everything: the phone
    that shared it keeps its match, and is listed as the one that shared it."""
    a, c = two_phones
    c.goto("/privacy")
    expect(c.get_by_text("(shared the matches with this one)")).to_be_visible()
    expect(c.get_by_role("button", name="Remove")).to_have_count(0)
    for step in ("Forget other devices", "Erase everything"):
        c.get_by_role("button", name=step).click()
        c.get_by_role("button", name=step).click()  # the confirmation
        c.goto("/privacy")
    a.reload()
    expect(score(a, 1)).to_have_text("1")
    a.goto("/privacy")
    expect(a.get_by_text("No other device keeps these matches.")).to_be_visible()


def test_a_double_tap_on_forget_other_devices_keeps_this_phone_playing(
    two_phones: tuple[Page, Page],
) -> None:
    a, c = two_phones
    a.goto("/privacy")
    a.get_by_role("button", name="Forget other devices").click()
    a.get_by_role("button", name="Forget other devices").dblclick()  # the confirmation, twice
    expect(a.get_by_text("Other devices no longer have this browser's matches.")).to_be_visible()
    a.goto("/")
    expect(score(a, 1)).to_have_text("1")
    c.reload()
    expect(score(c, 1)).to_have_text("0")
