"""The game's words on the pages and in the page's script, in the request's language.

Outcomes are named here; house rules and presets are named in scoring, translated here.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from flask import g
from flask_babel import gettext, lazy_gettext, lazy_pgettext

from counter.game.games import GAMES, session_winner
from counter.game.refusals import Refusal
from counter.game.scoring import PRESETS, GameName, HouseRules, Outcome
from counter.services.read_models import MatchView
from counter.web import i18n

# Each outcome's button name and (OUTCOME_HINTS) when to tap it, from the receiver's side.
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
# Game-specific words (gettext contexts named after the game): where the players of a
# game say it otherwise, as Austrians do after a Schnapsen deal. Each language's catalogue
# gives them; one without a word of its own repeats its common word.
GAME_OUTCOME_NAMES = {
    GameName.SCHNAPSEN: {
        Outcome.NORMAL: lazy_pgettext("schnapsen", "Win"),
        Outcome.FAILED_CLOSE: lazy_pgettext("schnapsen", "Failed close"),
        Outcome.FAILED_CLOSE_NO_TRICK: lazy_pgettext("schnapsen", "Failed close, no trick"),
        Outcome.WRONG_CLAIM: lazy_pgettext("schnapsen", "Wrong 66"),
        Outcome.WRONG_CLAIM_NO_TRICK: lazy_pgettext("schnapsen", "Wrong 66, no trick"),
    },
}
# What a series counts, beside each player's score: games won, or Bummerl got.
TALLY_LABELS = {
    GameName.SANTASE: lazy_gettext("Wins:"),
    GameName.SIXTY_SIX: lazy_gettext("Wins:"),
    GameName.SCHNAPSEN: lazy_pgettext("schnapsen", "Bummerl:"),
}
# A match's words where Schnapsen players say Bummerl: the common words, and Schnapsen's.
MATCH_WORDS = {
    "wins": lazy_gettext("%(name)s won the match %(score)s"),
    "newMatch": lazy_gettext("New match to %(target)s"),
    "startedTo": lazy_gettext("New match to %(target)s started."),
    "matchTo": lazy_gettext("Match to"),
}
GAME_MATCH_WORDS = {
    GameName.SCHNAPSEN: {
        "wins": lazy_pgettext("schnapsen", "%(name)s won the Bummerl"),
        "newMatch": lazy_pgettext("schnapsen", "New Bummerl"),
        "startedTo": lazy_pgettext("schnapsen", "New Bummerl started."),
        "matchTo": lazy_pgettext("schnapsen", "Bummerl from"),
    },
}
# House rules a game names otherwise: Schnapsen's match won to nil is a Schneider-Bummerl.
GAME_RULE_LABELS = {
    GameName.SCHNAPSEN: {"shutout": lazy_pgettext("schnapsen", "Schneider-Bummerl")},
}
# Choices a game names otherwise: Schnapsen plays one Bummerl (the CSV keeps the common word).
GAME_CHOICE_LABELS = {
    GameName.SCHNAPSEN: {("session", "one"): lazy_pgettext("schnapsen", "one Bummerl")},
}
# Beside the player who received the points (in the statistics), whose the mistake was.
RECEIVED_NAMES = {
    Outcome.FAILED_CLOSE: lazy_gettext("Opponent's failed close"),
    Outcome.FAILED_CLOSE_NO_TRICK: lazy_gettext("Opponent's failed close, no trick"),
    Outcome.WRONG_CLAIM: lazy_gettext("Opponent's wrong 66"),
    Outcome.WRONG_CLAIM_NO_TRICK: lazy_gettext("Opponent's wrong 66, no trick"),
}
GAME_RECEIVED_NAMES = {
    GameName.SCHNAPSEN: {
        Outcome.FAILED_CLOSE: lazy_pgettext("schnapsen", "Opponent's failed close"),
        Outcome.FAILED_CLOSE_NO_TRICK: lazy_pgettext(
            "schnapsen", "Opponent's failed close, no trick"
        ),
        Outcome.WRONG_CLAIM: lazy_pgettext("schnapsen", "Opponent's wrong 66"),
        Outcome.WRONG_CLAIM_NO_TRICK: lazy_pgettext("schnapsen", "Opponent's wrong 66, no trick"),
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


def _translated(key: str, build: Any) -> Any:
    """Words in this request's language, translated once per request, not per use."""
    words = g.get(key)
    if words is None:
        words = build()
        setattr(g, key, words)
    return words


def outcome_names(game: GameName | str = GameName.SANTASE) -> dict[Outcome, str]:
    """Each outcome's name as the players of ``game`` say it."""
    played = GameName(game)
    return _translated(  # type: ignore[no-any-return]
        f"outcome_names_{played.value}",
        lambda: {
            outcome: str(GAME_OUTCOME_NAMES.get(played, {}).get(outcome, text))
            for outcome, text in OUTCOME_NAMES.items()
        },
    )


def outcome_name(
    outcome: Outcome | str, *, received: bool = False, game: GameName | str = GameName.SANTASE
) -> str:
    """The outcome's name in ``game``; ``received``: said of the player who received its
    points."""
    if received and outcome in RECEIVED_NAMES:
        return received_names(game)[Outcome(outcome)]
    return outcome_names(game)[Outcome(outcome)]


def received_names(game: GameName | str) -> dict[Outcome, str]:
    """Each mistake's name as the players of ``game`` say it of its opponent's."""
    played = GameName(game)
    own = GAME_RECEIVED_NAMES.get(played, {})
    return {outcome: str(own.get(outcome, text)) for outcome, text in RECEIVED_NAMES.items()}


def session_line(match: MatchView) -> str:
    """Like "Best of three: Sepp 1, Resi 0", or who has won it; "" for a match played as one."""
    if match.session is None:
        return ""
    winner = session_winner(match.session)
    if winner is not None:
        score = f"{match.session[winner - 1]}:{match.session[2 - winner]}"
        return str(SESSION_WON) % {"name": match.players[winner - 1].name, "score": score}
    first, second = match.players
    return str(SESSION) % {
        "name1": first.name,
        "won1": match.session[0],
        "name2": second.name,
        "won2": match.session[1],
    }


def tally_label(game: GameName | str) -> str:
    return str(TALLY_LABELS[GameName(game)])


def match_word(key: str, game: GameName | str, **values: object) -> str:
    """A match's word (``MATCH_WORDS``) as the players of ``game`` say it."""
    text = GAME_MATCH_WORDS.get(GameName(game), {}).get(key, MATCH_WORDS[key])
    return str(text) % values if values else str(text)


def match_words(game: GameName) -> dict[str, str]:
    return {key: match_word(key, game) for key in MATCH_WORDS}


def games() -> dict[str, str]:
    """Each game's name, in this request's language."""
    return {name.value: gettext(game.label) for name, game in GAMES.items()}


def outcome_hint(outcome: Outcome | str) -> str:
    hints: dict[Outcome, str] = _translated(
        "outcome_hints", lambda: {outcome: str(text) for outcome, text in OUTCOME_HINTS.items()}
    )
    return hints[Outcome(outcome)]


def house_rules(game: GameName | str = GameName.SANTASE) -> list[dict[str, Any]]:
    """Each house rule with its label (as ``game`` names it) and the label of each choice,
    for forms and summaries."""
    labels = GAME_RULE_LABELS.get(GameName(game), {})
    choices = GAME_CHOICE_LABELS.get(GameName(game), {})
    return _translated(  # type: ignore[no-any-return]
        f"house_rules_{GameName(game).value}",
        lambda: [
            {
                "name": switch.name,
                "label": str(labels.get(switch.name, gettext(switch.label))),
                "choices": {
                    choice.value: str(choices.get((switch.name, choice.value), gettext(text)))
                    for choice, text in switch.choices.items()
                },
            }
            for switch in HouseRules.switches()
        ],
    )


def presets() -> dict[str, str]:
    """Each preset's name, in this request's language."""
    return {name: gettext(preset.label) for name, preset in PRESETS.items()}


# How the pages and their script write a deal: "+2 Иван · Schneider", a tie "±0 Tie".
RECEIVES = "+%(points)s %(name)s"
NO_POINTS = "±0"
DEAL_NOTE = "%(receives)s · %(outcome)s"


def receives(points: int, name: str) -> str:
    """Like "+2 Иван": who received how many game points."""
    return RECEIVES % {"points": points, "name": name}


def deal_note(
    names: tuple[str, str],
    player: int | None,
    points: int,
    outcome: Outcome,
    game: GameName | str = GameName.SANTASE,
) -> str:
    """Like "+2 Иван · Schneider": what a deal gave whom ("±0 Tie" for a tie) in ``game``'s
    words; a mistake named as the opponent's ("+2 Иван · Opponent's wrong 66")."""
    if player is None:
        return f"{NO_POINTS} {outcome_name(outcome, game=game)}"
    return DEAL_NOTE % {
        "receives": receives(points, names[player - 1]),
        "outcome": outcome_name(outcome, received=True, game=game),
    }


def script_words() -> dict[str, Any]:
    """What the page's script says, in the page's language; cached per language, so the
    caller must not change what it returns."""
    return _script_words(i18n.current_language())


@functools.cache
def _script_words(_language: str) -> dict[str, Any]:
    """``_language`` is the cache key; gettext uses the request's language."""
    return {
        "receives": RECEIVES,
        "noPoints": NO_POINTS,
        "dealNote": DEAL_NOTE,
        # A mistake named as the opponent's in the notes and the deal list (deal_note).
        "received": {
            name.value: {outcome.value: text for outcome, text in received_names(name).items()}
            for name in GameName
        },
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
        "tally": {name.value: tally_label(name) for name in GameName},
        "match": {name.value: match_words(name) for name in GameName},
        "ruleLabels": {
            name.value: {rule["name"]: rule["label"] for rule in house_rules(name)}
            for name in GameName
        },
        "games": games(),
        "outcomes": {
            name.value: {outcome.value: text for outcome, text in outcome_names(name).items()}
            for name in GameName
        },
    }


def later_words() -> dict[str, Any]:
    """What the script says only sometimes (settings, confirmations, refusals, undos),
    loaded on first use."""
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
    """Like "Failed close: always 3 · Wrong 66: always 2 · …": the rules ``game`` lets the
    table choose (Schnapsen has no 65:65 to name)."""
    chosen = rules.as_dict()
    played = GAMES[GameName(game)]
    return " · ".join(
        f"{rule['label']}: {rule['choices'][chosen[rule['name']]]}"
        for rule in house_rules(game)
        if len(played.choices(rule["name"])) > 1
    )


def rules_saved(rules: HouseRules, game: GameName | str = GameName.SANTASE) -> str:
    """What a player reads after saving house rules: the rules, and from when they count."""
    return str(
        gettext(
            "House rules saved (%(rules)s). They count from the next deal; "
            "the deals recorded keep their points.",
            rules=rules_summary(rules, game),
        )
    )


QUOTES = {"bg": "„%s“", "en": "“%s”", "de": "„%s“"}
# The parameters of a refusal that may hold codes to show by name; a refusal nested in
# another (a deal of a file, a match of a file) is shown the same way, whatever its key.
SHOWN = {"name", "value", "names", "choices", "outcome"}


def explain(error: Refusal) -> str:
    """A refusal in the page's words: rules, choices, outcomes and presets by their shown
    names, not API codes ("failed_close"), quoted as the language quotes."""
    return i18n.explain(_in_words(error))


def _in_words(error: Refusal) -> Refusal:
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

    def shown(value: object, sent: bool = False) -> object:
        """``sent``: a value refused as sent ("value"), quoted but never named: "schnapsen"
        given as an outcome is not the game Schnapsen."""
        if isinstance(value, Refusal):
            return _in_words(value)
        if not isinstance(value, str):
            return value
        codes = [_unquoted(part) for part in value.split(", ")]
        if not sent and all(code in called for code in codes):
            return ", ".join(quote % called[code] for code in codes)
        return quote % _unquoted(value) if value.startswith('"') else value

    shown_error = copy.copy(error)
    shown_error.params = {
        key: shown(value, key == "value") if key in SHOWN or isinstance(value, Refusal) else value
        for key, value in error.params.items()
    }
    return shown_error


def _unquoted(text: str) -> str:
    """A string as JSON spells it ("\"always_3\"") without its quotes; anything else as it is."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, str) else text
