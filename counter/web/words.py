"""The game's words on the pages and in the page's script, in the request's language."""

import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar

from flask_babel import gettext, lazy_gettext, lazy_pgettext

from counter.game.games import GAMES, session_winner
from counter.game.match import Deal
from counter.game.refusals import Refusal
from counter.game.scoring import PRESETS, GameName, HouseRules, Outcome
from counter.services.read_models import DealView, MatchView
from counter.web import i18n

T = TypeVar("T")

# A mistake's button stands under the player who gets its points (context "button"):
# a language may name it there as the opponent's, apart from the house rule's label.
OUTCOME_NAMES = {
    Outcome.NORMAL: lazy_gettext("Win"),
    Outcome.SCHNEIDER: lazy_gettext("Schneider"),
    Outcome.SCHWARZ: lazy_gettext("Schwarz"),
    Outcome.FAILED_CLOSE: lazy_pgettext("button", "Failed close"),
    Outcome.FAILED_CLOSE_NO_TRICK: lazy_pgettext("button", "Failed close, no trick"),
    Outcome.WRONG_CLAIM: lazy_pgettext("button", "Wrong 66"),
    Outcome.WRONG_CLAIM_NO_TRICK: lazy_pgettext("button", "Wrong 66, no trick"),
    Outcome.TIE: lazy_gettext("Tie"),
}
# Beside the player who received the points (in the statistics), whose the mistake was.
RECEIVED_NAMES = {
    Outcome.FAILED_CLOSE: lazy_gettext("Opponent's failed close"),
    Outcome.FAILED_CLOSE_NO_TRICK: lazy_gettext("Opponent's failed close, no trick"),
    Outcome.WRONG_CLAIM: lazy_gettext("Opponent's wrong 66"),
    Outcome.WRONG_CLAIM_NO_TRICK: lazy_gettext("Opponent's wrong 66, no trick"),
}
MATCH_WORDS = {
    "wins": lazy_gettext("%(name)s won the match %(score)s"),
    "newMatch": lazy_gettext("New match to %(target)s"),
    "startedTo": lazy_gettext("New match to %(target)s started."),
    "matchTo": lazy_gettext("Match to"),
}
WINS = lazy_gettext("Wins:")  # what a series counts beside each player's score
# A game's own words (gettext context: the game), keyed as the common word is looked up: an
# outcome, ("received", outcome), a match word, "tally", ("rule", name) or (rule, choice).
# A language whose players say nothing special repeats its common word in its catalogue.
GAME_WORDS: dict[GameName, dict[object, Any]] = {
    GameName.SCHNAPSEN: {
        Outcome.NORMAL: lazy_pgettext("schnapsen", "Win"),
        Outcome.FAILED_CLOSE: lazy_pgettext("schnapsen", "Failed close"),
        Outcome.FAILED_CLOSE_NO_TRICK: lazy_pgettext("schnapsen", "Failed close, no trick"),
        Outcome.WRONG_CLAIM: lazy_pgettext("schnapsen", "Wrong 66"),
        Outcome.WRONG_CLAIM_NO_TRICK: lazy_pgettext("schnapsen", "Wrong 66, no trick"),
        ("received", Outcome.FAILED_CLOSE): lazy_pgettext("schnapsen", "Opponent's failed close"),
        ("received", Outcome.FAILED_CLOSE_NO_TRICK): lazy_pgettext(
            "schnapsen", "Opponent's failed close, no trick"
        ),
        ("received", Outcome.WRONG_CLAIM): lazy_pgettext("schnapsen", "Opponent's wrong 66"),
        ("received", Outcome.WRONG_CLAIM_NO_TRICK): lazy_pgettext(
            "schnapsen", "Opponent's wrong 66, no trick"
        ),
        "wins": lazy_pgettext("schnapsen", "%(name)s won the Bummerl"),
        "newMatch": lazy_pgettext("schnapsen", "New Bummerl"),
        "startedTo": lazy_pgettext("schnapsen", "New Bummerl started."),
        "matchTo": lazy_pgettext("schnapsen", "Bummerl from"),
        "tally": lazy_pgettext("schnapsen", "Bummerl:"),
        ("rule", "shutout"): lazy_pgettext("schnapsen", "Schneider-Bummerl"),
        ("session", "one"): lazy_pgettext("schnapsen", "one Bummerl"),  # the CSV says "one"
    },
}
# A best of three as it stands, and once someone has won it (the winner's matches first).
SESSION = lazy_pgettext("schnapsen", "Best of three: %(name1)s %(won1)s, %(name2)s %(won2)s")
SESSION_WON = lazy_pgettext("schnapsen", "%(name)s won the best of three %(score)s")
OUTCOME_HINTS = {
    Outcome.NORMAL: lazy_gettext("the other player has 33 or more"),
    Outcome.SCHNEIDER: lazy_gettext("the other player took a trick, under 33"),
    Outcome.SCHWARZ: lazy_gettext("the other player took no trick"),
    Outcome.FAILED_CLOSE: lazy_gettext(
        "the other player closed and missed 66, or you got there first"
    ),
    Outcome.FAILED_CLOSE_NO_TRICK: lazy_gettext(
        "the same, and you had no trick when the stock was closed"
    ),
    Outcome.WRONG_CLAIM: lazy_gettext("the other player claimed 66 without having it"),
    Outcome.WRONG_CLAIM_NO_TRICK: lazy_gettext("the same, and you had no trick yet"),
    Outcome.TIE: lazy_gettext("65:65: nobody scores"),
}


def _per_language(build: Callable[..., T]) -> Callable[..., T]:
    """``build`` run once per language and arguments; the caller must not change its answer."""
    # Measured: `GET /` 6.3 ms with it, 9.0 ms without (in process, SQLite, 15-deal match).
    cached = functools.cache(lambda _language, *args: build(*args))
    return lambda *args: cached(i18n.current_language(), *args)


def _said(game: GameName | str, key: object, common: object) -> str:
    return str(GAME_WORDS.get(GameName(game), {}).get(key, common))


@_per_language
def outcome_names(game: GameName | str, received: bool) -> dict[Outcome, str]:
    """Each outcome's name in ``game``; ``received``: each mistake's, as the opponent's."""
    if received:
        return {key: _said(game, ("received", key), text) for key, text in RECEIVED_NAMES.items()}
    return {key: _said(game, key, text) for key, text in OUTCOME_NAMES.items()}


def outcome_name(
    outcome: Outcome | str, *, received: bool = False, game: GameName | str = GameName.SANTASE
) -> str:
    """``received``: said beside the player who received its points."""
    return outcome_names(game, received and outcome in RECEIVED_NAMES)[Outcome(outcome)]


def session_line(match: MatchView) -> str:
    """Like "Best of three: Sepp 1, Resi 0", or who has won it; "" for a match played as one."""
    if (won := match.session) is None:
        return ""
    names, winner = match.names, session_winner(won)
    if winner is None:
        return str(SESSION) % {"name1": names[0], "won1": won[0], "name2": names[1], "won2": won[1]}
    score = f"{won[winner - 1]}:{won[2 - winner]}"
    return str(SESSION_WON) % {"name": names[winner - 1], "score": score}


def tally_label(game: GameName | str) -> str:
    return _said(game, "tally", WINS)


def match_word(key: str, game: GameName | str, **values: object) -> str:
    """A match's word (``MATCH_WORDS``) as the players of ``game`` say it."""
    text = _said(game, key, MATCH_WORDS[key])
    return text % values if values else text


def games() -> dict[str, str]:
    return {name.value: gettext(game.label) for name, game in GAMES.items()}


def outcome_hint(outcome: Outcome | str) -> str:
    return str(OUTCOME_HINTS[Outcome(outcome)])


@_per_language
def house_rules(game: GameName | str = GameName.SANTASE) -> list[dict[str, Any]]:
    """Each house rule with its label and its choices' labels, as ``game`` names them."""
    return [
        {
            "name": switch.name,
            "label": _said(game, ("rule", switch.name), gettext(switch.label)),
            "choices": {
                choice.value: _said(game, (switch.name, choice.value), gettext(text))
                for choice, text in switch.choices.items()
            },
        }
        for switch in HouseRules.switches()
    ]


def presets() -> dict[str, str]:
    return {name: gettext(preset.label) for name, preset in PRESETS.items()}


# How the pages and their script write a deal: "+2 Иван · Schneider", a tie "±0 Tie".
RECEIVES = "+%(points)s %(name)s"
NO_POINTS = "±0"
DEAL_NOTE = "%(receives)s · %(outcome)s"


def receives(points: int, name: str) -> str:
    return RECEIVES % {"points": points, "name": name}


def deal_note(
    names: tuple[str, str], player: int | None, points: int, outcome: Outcome, game: GameName | str
) -> str:
    """Like "+2 Иван · Opponent's wrong 66", or "±0 Tie", in ``game``'s words."""
    if player is None:
        return f"{NO_POINTS} {outcome_name(outcome, game=game)}"
    return DEAL_NOTE % {
        "receives": receives(points, names[player - 1]),
        "outcome": outcome_name(outcome, received=True, game=game),
    }


def note_of(match: MatchView, deal: DealView | Deal) -> str:
    return deal_note(match.names, deal.player, deal.points, deal.outcome, match.game.name)


def _each_game(words: Callable[[GameName], object]) -> dict[str, object]:
    return {name.value: words(name) for name in GameName}


@_per_language
def script_words() -> dict[str, Any]:
    return {
        "receives": RECEIVES,
        "noPoints": NO_POINTS,
        "dealNote": DEAL_NOTE,
        "received": _each_game(lambda game: outcome_names(game, True)),
        "session": str(SESSION),
        "sessionWon": str(SESSION_WON),
        "undoOf": gettext("undo of deal %(number)s (%(note)s)"),
        "offline": gettext("Offline"),
        "correctDeal": gettext("Correct deal %(number)s"),
        "corrected": gettext("corrected"),
        "pending": gettext("not sent yet"),
        "score": gettext("%(name1)s %(score1)s, %(name2)s %(score2)s"),
        "waiting": gettext("%(count)s waiting to send"),
        "waitingOne": gettext("1 waiting to send"),
        "saved": gettext("All saved"),
        "notSaved": gettext("Not saved: %(reason)s"),
        "scriptFailed": gettext(
            "this page hit an error (%(error)s). Reload it; the taps listed are kept."
        ),
        "tally": _each_game(tally_label),
        "match": _each_game(lambda game: {key: match_word(key, game) for key in MATCH_WORDS}),
        "ruleLabels": _each_game(lambda game: {r["name"]: r["label"] for r in house_rules(game)}),
        "games": games(),
        "outcomes": _each_game(lambda game: outcome_names(game, False)),
    }


def later_words() -> dict[str, Any]:
    """What the script says only sometimes (settings, confirmations, refusals, undos)."""
    return {
        "undone": gettext("Undone: %(note)s."),
        "sameTap": gettext("The same tap, counted once:"),
        "started": gettext("New match"),  # a match the phone starts for its first change
        "refused": gettext("Not recorded: %(tap)s. %(reason)s"),
        "notChanged": gettext("Not saved: %(reason)s"),
        "gone": gettext(
            "That match is no longer on this phone (deleted, or this phone was removed from "
            "it); what this phone had not sent for it was dropped."
        ),
        "notForNew": gettext("Not recorded: the new match could not be opened. Tap again."),
        "presets": {
            name: {"target": preset.target, "rules": preset.rules.as_dict(), "game": preset.game}
            for name, preset in PRESETS.items()
        },
        "targetNow": gettext("The match is now played to %(target)s."),
        "namesSaved": gettext("Names saved: %(first)s and %(second)s."),
        "rulesSaved": gettext("House rules saved; they count from the next deal."),
        "dealerSaved": gettext("%(name)s deals first."),
        "confirmNew": gettext(
            "Start a new match? %(match)s stays in the history, unfinished, "
            "where you can continue it later."
        ),
        "startNew": gettext("Start a new match"),
        "confirmPlayOn": gettext(
            "%(name)s has won %(score)s. Play on to %(target)s? The win is taken back."
        ),
        "playOn": gettext("Play on to %(target)s"),
        "cancel": gettext("Cancel"),
    }


def rules_summary(rules: HouseRules, game: GameName | str = GameName.SANTASE) -> str:
    """Like "Failed close: always 3 · Wrong 66: always 2": the rules ``game`` leaves open."""
    chosen = rules.as_dict()
    played = GAMES[GameName(game)]
    return " · ".join(
        f"{rule['label']}: {rule['choices'][chosen[rule['name']]]}"
        for rule in house_rules(game)
        if len(played.choices(rule["name"])) > 1
    )


QUOTES = {"bg": "„%s“", "en": "“%s”", "de": "„%s“"}
# The parameters of a refusal that may hold codes to show by name; a refusal nested in
# another (a deal of a file, a match of a file) is shown the same way, whatever its key.
SHOWN = {"name", "value", "names", "choices", "outcome"}


def explain(error: Refusal) -> str:
    """A refusal with codes ("failed_close") shown by their names, quoted as the language does."""
    rules = {rule["name"]: rule for rule in house_rules()}
    named = rules.get(str(error.params.get("name")), {"choices": {}})
    called = {
        **{outcome.value: outcome_name(outcome) for outcome in Outcome},
        **presets(),
        **games(),
        **{name: rule["label"] for name, rule in rules.items()},
        **named["choices"],
    }
    quote = QUOTES[i18n.current_language()]

    def shown(key: str, value: object) -> object:
        if isinstance(value, Refusal):
            return explain(value)
        if key not in SHOWN or not isinstance(value, str):
            return value
        codes = [_unquoted(part) for part in value.split(", ")]
        # The value refused is quoted, never named ("schnapsen" as an outcome).
        if key != "value" and all(code in called for code in codes):
            return ", ".join(quote % called[code] for code in codes)
        return quote % _unquoted(value) if value.startswith('"') else value

    return str(gettext(error.message, **{key: shown(key, v) for key, v in error.params.items()}))


def _unquoted(text: str) -> str:
    """A string as JSON spells it ("\"always_3\"") without its quotes; anything else as it is."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, str) else text
