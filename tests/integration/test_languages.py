"""Bulgarian, English and German: every page and message in each, chosen by the browser,
switchable."""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from flask.testing import FlaskClient

from helpers import api_deal, api_play, api_start, page_form, privacy_form, submit, tap, win_match

BULGARIAN = {"Accept-Language": "bg-BG,bg;q=0.9,en;q=0.5"}


class VisibleText(HTMLParser):
    """The words a person sees: text outside <script>/<style>, plus labels a reader speaks."""

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in {"script", "style"}:
            self._skip += 1
        for name, value in attrs:
            if name in {"aria-label", "title", "alt", "placeholder"} and value:
                self.words.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in {"script", "style"}:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.words.append(data)


def latin_words(page: str) -> set[str]:
    parser = VisibleText()
    parser.feed(page)
    text = " ".join(parser.words)
    # Player names, the language's own name, units, identifiers and proper names stay Latin.
    allowed = {"English", "Deutsch", "UTC", "Ivan", "Maria", "JSON", "Content", "Type"}
    allowed |= {"application", "json"}
    allowed |= {"pagat", "com", "CSV", "MB", "uid", "QR"}  # a site's name, file types, units
    return {word for word in re.findall(r"[A-Za-z]{2,}", text) if word not in allowed}


@pytest.fixture
def bulgarian(client: FlaskClient) -> FlaskClient:
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = BULGARIAN["Accept-Language"]
    return client


def test_the_browsers_language_is_used(bulgarian: FlaskClient) -> None:
    page = bulgarian.get("/").get_data(as_text=True)
    assert '<html lang="bg">' in page
    assert "Точки за" in page


def test_other_browsers_get_english(client: FlaskClient) -> None:
    page = client.get("/", headers={"Accept-Language": "fr-FR"}).get_data(as_text=True)
    assert '<html lang="en">' in page
    assert "Points to" in page


def test_the_language_switch_is_remembered(client: FlaskClient) -> None:
    response = submit(client, "/language", language="bg", next="/matches")
    assert response.status_code == 302
    assert response.headers["Location"] == "/matches"
    assert "Max-Age=31536000" in response.headers["Set-Cookie"]
    assert '<html lang="bg">' in client.get("/rules").get_data(as_text=True)


def test_the_switch_overrides_the_browser(bulgarian: FlaskClient) -> None:
    submit(bulgarian, "/language", language="en", next="/")
    assert '<html lang="en">' in bulgarian.get("/").get_data(as_text=True)


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example", "/\\evil.example"])
def test_the_switch_goes_back_only_to_this_site(client: FlaskClient, target: str) -> None:
    response = submit(client, "/language", language="bg", next=target)
    assert response.headers["Location"] == "/"


def test_an_unknown_language_is_refused(client: FlaskClient) -> None:
    response = submit(client, "/language", language="fr", next="/")
    assert response.status_code == 400
    assert "lang=" not in response.headers.get("Set-Cookie", "")


def test_default_names_follow_the_language(bulgarian: FlaskClient) -> None:
    tap(bulgarian, 1, "normal")
    names = [p["name"] for p in bulgarian.get("/api/matches/current").json["players"]]
    assert names == ["Играч 1", "Играч 2"]


def test_refusals_are_explained_in_bulgarian(bulgarian: FlaskClient) -> None:
    match = api_start(bulgarian, target=7, players=["Ivan", "Maria"])
    win_match(bulgarian, match["id"], player=1, target=7)
    response = api_deal(bulgarian, match["id"], 2, "normal")
    assert response.json == {
        "error": "Играта приключи: Ivan спечели – 9:0. Започнете нова игра, за да продължите."
    }
    page = submit(bulgarian, "/settings", match_id=str(match["id"]), target="15")
    assert "Ivan вече спечели – 9:0. Ако продължите до 15, тази победа отпада" in page.get_data(
        as_text=True
    )


def test_the_rules_are_written_in_both_languages(
    other_client: FlaskClient, bulgarian: FlaskClient
) -> None:
    assert "How Santase is scored" in other_client.get("/rules").get_data(as_text=True)
    assert "Как се брои сантасето" in bulgarian.get("/rules").get_data(as_text=True)


def test_the_rules_page_names_the_match_tally_as_the_score_card_does(
    bulgarian: FlaskClient,
) -> None:
    """„Игри“, not „Победи“: the card's tally must not read as a count of 1-point wins."""
    card = bulgarian.get("/").get_data(as_text=True)
    label = re.search(r"<span data-tally>([^<:]+):</span>", card)
    assert label is not None
    assert label.group(1) == "Игри"
    for path in ("/rules", "/rules/sixty_six"):
        assert f"числото „{label.group(1)}“" in bulgarian.get(path).get_data(as_text=True)


def full_bulgarian_tour(client: FlaskClient) -> list[str]:
    """Every page, in every state a player sees, as Bulgarian HTML."""
    pages = [client.get(path).get_data(as_text=True) for path in ("/", "/matches", "/rules")]
    match = api_start(client, target=7, players=["Ivan", "Maria"])
    api_play(client, match["id"], (1, "normal"))
    pages.append(client.get("/").get_data(as_text=True))
    win_match(client, match["id"], player=2, target=7)
    for _ in range(21):
        api_start(client)
    api_play(client, client.get("/api/matches/current").json["id"], (1, "normal"))
    form = page_form(client)
    pages += [
        client.get("/").get_data(as_text=True),
        client.get("/matches").get_data(as_text=True),
        client.get(f"/matches/{match['id']}").get_data(as_text=True),
        client.get("/statistics").get_data(as_text=True),
        client.get("/continue/unknown").get_data(as_text=True),
        client.get("/import").get_data(as_text=True),
        client.get(f"/matches/{match['id']}/deals/1").get_data(as_text=True),
        client.get("/matches/999").get_data(as_text=True),
        client.post("/deals", data={**form, "player": "3", "outcome": "normal"}).get_data(
            as_text=True
        ),
        client.get("/privacy").get_data(as_text=True),
        submit(client, f"/matches/{match['id']}/delete").get_data(as_text=True),
        submit(client, "/new", target="7").get_data(as_text=True),  # asks first: a deal is in
        client.get("/shared/unknown").get_data(as_text=True),
        client.get("/nowhere").get_data(as_text=True),
    ]
    return pages + evening_tour(client)


def evening_tour(client: FlaskClient) -> list[str]:
    """A club evening's pages, a round under way, and one of its refusals."""
    players = "\n".join(["Ivan", "Maria", "Петър"])
    fields = {"name": "Клуб", "players": players, "format": "lives", "target": "7"}
    evening = submit(client, "/evenings", preset="santase", **fields).headers["Location"]
    submit(client, f"{evening}/rounds", round="1")
    host = client.get(evening).get_data(as_text=True)
    board = re.search(r"/board/([\w-]+)", host)
    assert board
    pages = [
        client.get("/evenings").get_data(as_text=True),
        host,
        client.get(f"/board/{board.group(1)}").get_data(as_text=True),
        client.get(f"{evening}/standings").get_data(as_text=True),
        submit(client, f"{evening}/rounds", round="2").get_data(as_text=True),
        submit(client, "/evenings", players="Ivan").get_data(as_text=True),
    ]
    # The addresses of the table links and the board are no words.
    return [re.sub(r'<p class="share-url">[^<]*</p>', "", page) for page in pages]


def test_no_english_is_left_on_any_bulgarian_page(bulgarian: FlaskClient) -> None:
    left = set().union(*(latin_words(page) for page in full_bulgarian_tour(bulgarian)))
    assert left == set()


def test_the_tour_would_catch_an_english_word(client: FlaskClient) -> None:
    assert "Points" in latin_words(client.get("/").get_data(as_text=True))


def test_a_refused_form_names_house_rules_as_the_page_does(bulgarian: FlaskClient) -> None:
    match = api_start(bulgarian)
    page = submit(bulgarian, "/settings", match_id=str(match["id"]), failed_close="sometimes")
    assert (
        "Домашното правило „Неуспешно затваряне“ не може да е „sometimes“; изберете едно от: "
        "„2 или 3 според взятките“, „винаги 3“, „винаги 2“."
    ) in page.get_data(as_text=True)


def test_a_refused_first_dealer_speaks_of_the_first_deal(client: FlaskClient) -> None:
    match = api_start(client)
    page = submit(client, "/settings", match_id=str(match["id"]), first_dealer="3")
    assert "The first deal goes to player 1 or 2." in page.get_data(as_text=True)


@pytest.mark.parametrize(
    ("spoil", "expected"),
    [
        (
            lambda match: match["rules"].update(failed_close="always_4"),
            "Игра 1 във файла: Домашното правило „Неуспешно затваряне“ не може да е „always_4“; "
            "изберете едно от: „2 или 3 според взятките“, „винаги 3“, „винаги 2“.",
        ),
        (
            lambda match: match["deals"][0].update(outcome="durak"),
            "Игра 1 във файла: Раздаване 1: Непознат вид раздаване „durak“; изберете един от: "
            "„Победа“,",
        ),
        (  # a game's code given as an outcome is shown as sent, not as the game's name
            lambda match: match["deals"][0].update(outcome="schnapsen"),
            "Непознат вид раздаване „schnapsen“;",
        ),
        (
            lambda match: match["deals"][0].update(points=9),
            "Игра 1 във файла: Раздаване 1: „Капо“ е за 3, а не за 9 по правилата на раздаването.",
        ),
    ],
)
def test_an_import_names_house_rules_and_outcomes_as_the_page_does(
    bulgarian: FlaskClient, spoil: Any, expected: str
) -> None:
    api_play(bulgarian, api_start(bulgarian)["id"], (1, "schwarz"))
    exported = bulgarian.get("/api/export").json
    spoil(exported["matches"][0])
    file = (io.BytesIO(json.dumps(exported).encode()), "santase.json")
    page = submit(bulgarian, "/import", archive=file).get_data(as_text=True)
    assert expected in page


@pytest.mark.parametrize("language", ["en", "bg", "de"])
def test_what_we_keep_erases_everything_in_every_language(
    client: FlaskClient, language: str
) -> None:
    client.set_cookie("lang", language)
    api_start(client)
    assert privacy_form(client, action="/privacy/erase", confirmed="1").status_code == 302
    assert client.get("/api/matches").get_json()["matches"] == []


@pytest.mark.parametrize("language", ["bg", "de"])
def test_what_we_keep_has_the_english_pages_forms_and_fields(
    client: FlaskClient, language: str
) -> None:
    english = client.get("/privacy").get_data(as_text=True)
    client.set_cookie("lang", language)
    page = client.get("/privacy").get_data(as_text=True)
    fields = re.compile(r'<(?:form|input)[^>]*(?:action|name)="([^"]+)"')
    assert fields.findall(page) == fields.findall(english)
