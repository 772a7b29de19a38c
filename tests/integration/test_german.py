"""German, as a German or Austrian player reads it: chosen from the browser (de-DE, de-AT)
or the switch, with no English or Bulgarian word left on any page, and Austrian words
where the game is Schnapsen."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from flask.testing import FlaskClient

from helpers import api_deal, api_play, api_start, page_field, page_form, submit, win_match

ROOT = Path(__file__).resolve().parents[2]
GERMAN = {"Accept-Language": "de-AT,de;q=0.9,en;q=0.5"}
# Names, units, codes and proper names a German page may show as they are.
KEPT = {"Ivan", "Maria", "Sepp", "Resi", "UTC", "JSON", "CSV", "MB", "uid", "https", "pagat"}
KEPT |= {"com", "Content", "Type", "application", "json", "true", "false", "null", "dry_run"}
KEPT |= {"after", "English", "Sixty", "Six", "NikolayIT", "SantaseGameEngine", "Documentation"}
KEPT |= {"Rules", "md", "McLeod", "John", "gamerules", "schnopsn", "schnapsenstrategy"}
KEPT |= {"blogspot", "skill", "preisschnapsen", "at", "schnapsen66", "info", "Wi", "Fi"}
KEPT |= {"zudrehen", "abmelden", "Bauernschnapsen", "Wikipedia", "FAQ"}  # German, or names
KEPT |= {"also", "will", "per", "schnapsen", "six"}  # German words too; in site names


class GermanText(HTMLParser):
    """The words a person sees, but for those marked as another language (lang="bg": a
    source's Bulgarian title, the language switch)."""

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self._skip: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        lang = None if tag == "html" else dict(attrs).get("lang")
        foreign = lang is not None and not lang.startswith("de")
        nested = bool(self._skip) and tag == self._skip[-1]
        if tag in {"script", "style"} or foreign or nested:
            self._skip.append(tag)
        for name, value in attrs:
            if name in {"aria-label", "title", "alt", "placeholder"} and value and not self._skip:
                self.words.append(value)

    def handle_endtag(self, tag: str) -> None:
        if self._skip and tag == self._skip[-1]:
            self._skip.pop()

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.words.append(data)


def words_of(text: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]{2,}", text))


def _catalogue(language: str) -> list[str]:
    path = ROOT / "counter/translations" / language / "LC_MESSAGES/messages.po"
    with path.open("rb") as po_file:
        catalogue = read_po(po_file)
    texts: list[str] = []
    for message in catalogue:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        texts += list(strings) if language != "en" else list(ids)
    return texts


def english_words() -> set[str]:
    """Words of the English pages and messages that German does not use too."""
    english = words_of(" ".join(_english_ids()))
    for page in ("rules/en.html", "rules/sixty_six/en.html", "rules/schnapsen/en.html"):
        english |= words_of((ROOT / "templates" / page).read_text())
    german = words_of(" ".join(_catalogue("de")))
    return english - german - KEPT


def _english_ids() -> list[str]:
    with (ROOT / "counter/translations/messages.pot").open("rb") as pot:
        catalogue = read_po(pot)
    ids: list[str] = []
    for message in catalogue:
        ids += list(message.id) if isinstance(message.id, tuple) else [message.id]
    return [each for each in ids if each]


def left_over(page: str, english: set[str]) -> set[str]:
    parser = GermanText()
    parser.feed(page)
    text = " ".join(parser.words)
    cyrillic = set(re.findall(r"[А-Яа-я]+", text))
    return cyrillic | (words_of(text) & english)


@pytest.fixture
def german(client: FlaskClient) -> FlaskClient:
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = GERMAN["Accept-Language"]
    return client


@pytest.mark.parametrize("accepted", ["de-AT", "de-DE", "de", "de-CH,de;q=0.8,en;q=0.5"])
def test_a_german_browser_gets_german(client: FlaskClient, accepted: str) -> None:
    page = client.get("/", headers={"Accept-Language": accepted}).get_data(as_text=True)
    assert '<html lang="de">' in page
    assert "Punkte für" in page


def test_the_switch_offers_german_on_every_page(client: FlaskClient) -> None:
    for path in ("/", "/matches", "/rules", "/rules/schnapsen", "/statistics", "/privacy"):
        assert '<button name="language" value="de" lang="de"' in client.get(path).get_data(
            as_text=True
        )
    submit(client, "/language", language="de", next="/")
    assert '<html lang="de">' in client.get("/rules").get_data(as_text=True)


def german_tour(client: FlaskClient) -> list[str]:
    """Every page, in the states a player sees, in German: a Santase match, a Schnapsen
    Bummerl, refusals and the rules of each game."""
    paths = ("/", "/matches", "/rules", "/rules/sixty_six", "/rules/schnapsen", "/privacy")
    pages = [client.get(path).get_data(as_text=True) for path in paths]
    match = api_start(client, target=7, players=["Ivan", "Maria"])
    api_play(client, match["id"], (1, "normal"))
    pages.append(client.get("/").get_data(as_text=True))
    win_match(client, match["id"], player=2, target=7)
    pages.append(api_deal(client, match["id"], 1, "normal").json["error"])
    bummerl = api_start(client, game="schnapsen", players=["Sepp", "Resi"])
    api_play(client, bummerl["id"], (1, "schneider"), (2, "failed_close"))
    pages.append(client.get("/").get_data(as_text=True))
    api_play(client, bummerl["id"], (1, "schwarz"), (1, "schwarz"))
    form = page_form(client)
    pages += [
        client.get("/").get_data(as_text=True),
        client.get("/matches").get_data(as_text=True),
        client.get(f"/matches/{bummerl['id']}").get_data(as_text=True),
        client.get(f"/matches/{match['id']}").get_data(as_text=True),
        client.get("/statistics").get_data(as_text=True),
        client.get("/import").get_data(as_text=True),
        client.get(f"/matches/{bummerl['id']}/deals/1").get_data(as_text=True),
        client.get("/matches/999").get_data(as_text=True),
        client.post("/deals", data={**form, "player": "3", "outcome": "normal"}).get_data(
            as_text=True
        ),
        client.get("/shared/unknown").get_data(as_text=True),
        client.get("/nowhere").get_data(as_text=True),
    ]
    return pages


def test_no_english_or_bulgarian_word_is_left_on_any_german_page(german: FlaskClient) -> None:
    english = english_words()
    left = {
        number: found
        for number, page in enumerate(german_tour(german))
        if (found := left_over(page, english))
    }
    assert left == {}


def test_the_tour_would_catch_an_english_or_bulgarian_word(client: FlaskClient) -> None:
    english = english_words()
    assert "Points" in left_over(client.get("/").get_data(as_text=True), english)
    bulgarian = client.get("/", headers={"Accept-Language": "bg"}).get_data(as_text=True)
    assert "Точки" in left_over(bulgarian, english)


def test_the_rules_name_the_games_and_their_words_with_sources(german: FlaskClient) -> None:
    schnapsen = german.get("/rules/schnapsen").get_data(as_text=True)
    for word in ("Schnapsen", "Bummerl", "Schneider", "zudrehen", "schnopsn.com", "pagat.com"):
        assert word in schnapsen
    assert "Sechsundsechzig" in german.get("/rules/sixty_six").get_data(as_text=True)


def test_schnapsen_speaks_austrian(german: FlaskClient) -> None:
    api_start(german, game="schnapsen", players=["Sepp", "Resi"])
    page = german.get("/").get_data(as_text=True)
    assert "Falsch abgemeldet" in page
    assert "Gegner: Zudrehen verfehlt" in page
    assert "Bummerl:" in page


def test_sixty_six_speaks_german(german: FlaskClient) -> None:
    api_start(german, game="sixty_six", players=["Ivan", "Maria"])
    page = german.get("/").get_data(as_text=True)
    assert "Falsch abgemeldet" in page
    assert "Siege:" in page


def test_refusals_are_explained_in_german(german: FlaskClient) -> None:
    answer = german.post("/api/matches", json={"game": "schnapsen", "target": 11})
    assert answer.json == {"error": "Schnapsen wird bis 7 gespielt, nicht bis 11."}


def test_the_spreadsheet_export_is_german(german: FlaskClient) -> None:
    match = api_start(german, game="schnapsen", players=["Sepp", "Resi"])
    api_play(german, match["id"], (1, "normal"))
    sheet = german.get("/export.csv").get_data(as_text=True)
    assert sheet.lstrip("\ufeff").startswith("Partie;Begonnen;Spielart;Ziel")
    assert ";Schnapsen;7;" in sheet  # split as a German spreadsheet reads it
    assert "Einfach" in sheet


def test_an_emptied_name_is_saved_and_said_as_its_default(german: FlaskClient) -> None:
    api_start(german, players=["Sepp", "Mitzi"])
    submit(german, "/settings", match_id=page_form(german)["match_id"], player1="", player2="Mitzi")
    assert "Namen gespeichert: Spieler 1 und Mitzi." in german.get("/").get_data(as_text=True)


def test_a_schnapsen_evening_names_its_game_and_its_csv_is_german(german: FlaskClient) -> None:
    token = page_field(german.get("/evenings").get_data(as_text=True), "csrf_token")
    fields = {"name": "Freitag", "players": "Sepp\nResi", "format": "round_robin"}
    evening = german.post(
        "/evenings", data={"csrf_token": token, "preset": "schnapsen", "target": "7", **fields}
    )
    page = german.get(evening.headers["Location"]).get_data(as_text=True)
    assert "Jeder gegen jeden · Schnapsen · bis 7 · 2 Spieler" in page
    sheet = german.get(evening.headers["Location"] + "/standings.csv").get_data(as_text=True)
    assert sheet.lstrip("\ufeff").startswith("Platz;Spieler;Gespielt;Gewonnen;Differenz;Leben")


def test_a_schnapsen_match_is_a_bummerl_wherever_it_is_shown(german: FlaskClient) -> None:
    bummerl = api_start(german, game="schnapsen", players=["Sepp", "Resi"])
    assert "Bummerl zu" in german.get("/").get_data(as_text=True)
    api_play(german, bummerl["id"], (1, "schwarz"), (1, "schwarz"), (1, "schwarz"))
    page = german.get("/").get_data(as_text=True)
    assert "Sepp hat gewonnen, der Gegner hat das Bummerl" in page
    assert "Neues Bummerl" in page
    summary = german.get(f"/matches/{bummerl['id']}").get_data(as_text=True)
    assert "Schneider-Bummerl: zählt doppelt" in summary
    assert "Gespielt wird: ein Bummerl" in summary  # the CSV keeps "eine Partie"
    assert "65:65" not in summary  # Schnapsen has none to choose
    statistics = german.get("/statistics").get_data(as_text=True)
    assert "Spiele pro Bummerl" in statistics
    assert "pro Partie" not in statistics
