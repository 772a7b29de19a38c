"""The rules of :mod:`counter.game.scoring` as data, for the page's script (static/standing.js)."""

import dataclasses
from collections.abc import Callable
from functools import cache
from typing import Any

from counter.game.games import GAMES, SESSION_WINS, Game
from counter.game.games import SHOWN as SHOWN
from counter.game.games import TALLIES as TALLIES
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

# The script holds no rule of its own: who a rule picks (from the dealer and the receiver) is
# found by asking scoring about sample deals, so a change to scoring changes this data too.
ROLES: dict[str, Callable[[Seat, Seat | None], Seat | None]] = {
    "receiver": lambda _dealer, receiver: receiver,
    "dealer": lambda dealer, _receiver: dealer,
    "other": lambda dealer, _receiver: other(dealer),
}
# The one comparison the script may make of a score and a target.
COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "at_least": lambda score, target: score >= target
}


@cache
def for_the_script() -> dict[str, Any]:
    """Everything the script needs to score, deal and finish a match as the server does."""
    return {
        **outcomes(),
        "dealer": {choice.value: _dealer_after(choice) for choice in NextDealer},
        "leader": _role([(leader(1), 1, None), (leader(2), 2, None)]),
        "reach": _pick(
            COMPARISONS,
            lambda compare: all(
                compare(score, target) == reaches(score, target)
                for target in TARGETS
                for score in (target - 1, target, target + 1)
            ),
        ),
        "series": "same_game_and_names_either_seat",  # as counter.storage.series carries over
        "games": {game.name.value: _game(game) for game in GAMES.values()},
    }


def _game(game: Game) -> dict[str, Any]:
    return {
        "target": game.target,
        "targets": list(game.targets),
        "rules": game.rules.as_dict(),
        "variants": {
            switch.name: [choice.value for choice in game.choices(switch.name)]
            for switch in HouseRules.switches()
        },
        "shown": game.counting,
        "tally": game.tally.value,
        # Marks of a won match by its shutout rule: [the loser scored, the loser did not].
        "marks": {
            choice.value: [
                game.marks(Standing(scores, 7), dataclasses.replace(game.rules, shutout=choice))
                for scores in ((7, 1), (7, 0))
            ]
            for choice in Shutout
        },
        # The matches a player must win to take a session, by its session rule.
        "sessions": {
            choice.value: SESSION_WINS[Session(choice)] for choice in game.choices("session")
        },
    }


def _pick(named: dict[str, Any], agrees: Callable[[Any], bool]) -> str:
    """The name of the first of ``named`` that ``agrees`` with scoring."""
    for name, each in named.items():
        if agrees(each):
            return name
    raise ValueError(f"none of {sorted(named)} does what scoring does: teach the script one")


def outcome_under(rules: HouseRules, outcome: Outcome) -> dict[str, Any]:
    """What ``outcome`` is under ``rules``: its points (None: refused), and if it has a button."""
    try:
        worth: int | None = score_deal(None if outcome is Outcome.TIE else 1, outcome, rules).points
    except Invalid:
        worth = None
    return {"points": worth, "button": outcome in rules.outcomes}


def _every_outcome_under(**changes: Any) -> dict[str, dict[str, Any]]:
    rules = dataclasses.replace(DEFAULT_RULES, **changes)
    return {outcome.value: outcome_under(rules, outcome) for outcome in Outcome}


def outcomes() -> dict[str, Any]:
    """Each outcome by default, and those each rule's choices decide (never two rules one)."""
    default = _every_outcome_under()
    choices: dict[str, dict[str, dict[str, Any]]] = {}
    for switch in HouseRules.switches():
        under = {
            choice.value: _every_outcome_under(**{switch.name: choice}) for choice in switch.kind
        }
        decided = sorted(
            name for name in default if any(each[name] != default[name] for each in under.values())
        )
        choices[switch.name] = {
            choice: {outcome: each[outcome] for outcome in decided}
            for choice, each in under.items()
        }
    return {"rule_names": list(choices), "outcomes": default, "choices": choices}


def _dealer_after(choice: NextDealer) -> dict[str, str]:
    """Who deals after a won deal and after a tie under ``choice``, as roles."""
    rules = dataclasses.replace(DEFAULT_RULES, next_dealer=choice)
    won = [DealResult(receiver, Outcome.NORMAL, 1, rules) for receiver in SEATS]
    deals = {"won": won, "tie": [DealResult(None, Outcome.TIE, 0, rules)]}
    return {
        kind: _role(
            [(next_dealer(dealer, deal), dealer, deal.player) for dealer in SEATS for deal in each]
        )
        for kind, each in deals.items()
    }


def _role(cases: list[tuple[Seat, Seat, Seat | None]]) -> str:
    """The role that gives the seat of every case (seat, dealer, receiver)."""
    return _pick(
        ROLES, lambda pick: all(pick(dealer, receiver) == seat for seat, dealer, receiver in cases)
    )
