"""The rules of :mod:`counter.game.scoring` as data, for the page's script (static/standing.js).

The script holds no rule of its own. Who a rule picks (receiver, dealer, other player)
is found by asking scoring about sample deals, so a change to scoring changes this data,
or fails here when no pick the script knows describes it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from typing import Any, cast

from counter.game.games import GAMES, SESSION_WINS, Game
from counter.game.refusals import Invalid
from counter.game.scoring import (
    DEFAULT_RULES,
    SEATS,
    TARGETS,
    DealResult,
    HouseRules,
    NextDealer,
    Outcome,
    Seat,
    Session,
    Shutout,
    Standing,
    leader,
    next_dealer,
    other,
    reaches,
    score_deal,
)

# Who a rule may pick, from the dealer and the player who received the points.
ROLES: dict[str, Callable[[Seat, Seat | None], Seat | None]] = {
    "receiver": lambda _dealer, receiver: receiver,
    "dealer": lambda dealer, _receiver: dealer,
    "other": lambda dealer, _receiver: other(dealer),
}
# The one comparison the script may make of a score and a target.
COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "at_least": lambda score, target: score >= target
}
# How a game may show a score to its players.
SHOWN: dict[str, Callable[[int, int], int]] = {
    "score": lambda score, _target: score,
    "left": lambda score, target: max(target - score, 0),  # Schnapsen: still to make
}
# Whose tally a won match may add to.
TALLIES: dict[str, Callable[[Seat], Seat]] = {"winner": lambda won: won, "loser": other}
# How the games of a series carry over: same game, same two names, either seat
# (counter.storage.series).
SERIES = "same_game_and_names_either_seat"


@cache
def for_the_script() -> dict[str, Any]:
    """Everything the script needs to score, deal and finish a match as the server does."""
    return {
        **outcomes(),
        "dealer": {choice.value: _dealer_after(choice) for choice in NextDealer},
        "leader": _role([(leader(1), 1, None), (leader(2), 2, None)]),
        "reach": _comparison(),
        "series": SERIES,
        "games": {game.name.value: _game(game) for game in GAMES.values()},
    }


def _game(game: Game) -> dict[str, Any]:
    """What the script needs of a game: its defaults, what it offers, how it shows a score,
    and what a won match counts for whom (asked of the game on sample matches)."""
    return {
        "target": game.target,
        "targets": list(game.targets),
        "rules": game.rules.as_dict(),
        "variants": {
            switch.name: [choice.value for choice in game.choices(switch.name)]
            for switch in HouseRules.switches()
        },
        "shown": _pick(
            SHOWN,
            lambda shown: all(
                shown(score, target) == game.shown(score, target)
                for target in game.targets
                for score in range(target + 4)
            ),
        ),
        "tally": _pick(
            TALLIES,
            lambda tally: all(
                tally(won) == game.tallied(Standing((7, 0) if won == 1 else (0, 7), 7))
                for won in SEATS
            ),
        ),
        # Marks of a won match by its shutout rule: [the loser scored, the loser did not].
        "marks": {
            choice.value: [
                game.marks(Standing(scores, 7), dataclasses.replace(game.rules, shutout=choice))
                for scores in ((7, 1), (7, 0))
            ]
            for choice in Shutout
        },
        # The matches a player must win to take a session, by its session rule: 1, or 2
        # for best of three (the pair's matches of that rule, in order: games.sessions).
        "sessions": {
            choice.value: SESSION_WINS[Session(choice)] for choice in game.choices("session")
        },
    }


def _pick(named: dict[str, Any], agrees: Callable[[Any], bool]) -> str:
    for name, each in named.items():
        if agrees(each):
            return name
    raise ValueError(f"none of {sorted(named)} does what the game does: teach the script one")


def outcome_under(rules: HouseRules, outcome: Outcome) -> dict[str, Any]:
    """What ``outcome`` is under ``rules``: its points (None: refused), and if it has a button."""
    try:
        worth: int | None = score_deal(None if outcome is Outcome.TIE else 1, outcome, rules).points
    except Invalid:
        worth = None
    return {"points": worth, "button": outcome in rules.outcomes}


def outcomes() -> dict[str, Any]:
    """Each outcome under the default rules, and what each house rule's choices make of theirs.

    ``choices[rule][choice]`` holds only the outcomes that rule decides; no outcome is
    decided by two rules, so any combination is the defaults with each choice applied
    (tests/test_rulebook.py checks every combination).
    """
    default = {outcome.value: outcome_under(DEFAULT_RULES, outcome) for outcome in Outcome}
    choices: dict[str, dict[str, dict[str, Any]]] = {}
    for switch in HouseRules.switches():
        under = {
            choice.value: {
                outcome.value: outcome_under(
                    dataclasses.replace(
                        DEFAULT_RULES, **cast(dict[str, Any], {switch.name: choice})
                    ),
                    outcome,
                )
                for outcome in Outcome
            }
            for choice in switch.kind
        }
        decided = {
            outcome.value
            for outcome in Outcome
            if len({repr(each[outcome.value]) for each in under.values()}) > 1
        }
        choices[switch.name] = {
            choice: {outcome: each[outcome] for outcome in sorted(decided)}
            for choice, each in under.items()
        }
    return {"rule_names": list(choices), "outcomes": default, "choices": choices}


def _dealer_after(choice: NextDealer) -> dict[str, str]:
    """Who deals after a won deal and after a tie under ``choice``, as roles."""
    rules = dataclasses.replace(DEFAULT_RULES, next_dealer=choice)
    won: list[tuple[Seat, Seat, Seat | None]] = [
        (next_dealer(dealer, DealResult(receiver, Outcome.NORMAL, 1, rules)), dealer, receiver)
        for dealer in SEATS
        for receiver in SEATS
    ]
    tie: list[tuple[Seat, Seat, Seat | None]] = [
        (next_dealer(dealer, DealResult(None, Outcome.TIE, 0, rules)), dealer, None)
        for dealer in SEATS
    ]
    return {"won": _role(won), "tie": _role(tie)}


def _role(cases: list[tuple[Seat, Seat, Seat | None]]) -> str:
    """The role that gives the seat of every case (seat, dealer, receiver)."""
    for name, pick in ROLES.items():
        if all(pick(dealer, receiver) == seat for seat, dealer, receiver in cases):
            return name
    raise ValueError(f"no role of {sorted(ROLES)} picks the seats {cases}: teach the script one")


def _comparison() -> str:
    """How a score is compared with a target, found from scoring on every target's edge."""
    for name, compare in COMPARISONS.items():
        if all(
            compare(score, target) == reaches(score, target)
            for target in TARGETS
            for score in (target - 1, target, target + 1)
        ):
            return name
    raise ValueError("no comparison the script knows says when a score reaches a target")
