"""The games of the 66 family: Santase, Sixty-six and Schnapsen, each one definition."""

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from counter.game.refusals import N_, Invalid
from counter.game.scoring import (
    DEFAULT_RULES,
    SCHNAPSEN_RULES,
    SEATS,
    SIXTY_SIX_RULES,
    TARGETS,
    FailedClose,
    GameName,
    HouseRules,
    NextDealer,
    Seat,
    Session,
    Shutout,
    Standing,
    Ties,
    WrongClaim,
    other,
)


class Tally(StrEnum):
    """Whose count a finished match adds to."""

    WINNER = "winner"  # games won
    LOSER = "loser"  # Bummerl: "he has the Bummerl"


# How a game may show a score to its players, and whose tally a won match may add to; the
# page's script has the same tables by the same names (static/standing.js).
SHOWN: dict[str, Callable[[int, int], int]] = {
    "score": lambda score, _target: score,
    "left": lambda score, target: max(target - score, 0),  # Schnapsen: still to make
}
TALLIES: dict[str, Callable[[Seat], Seat]] = {Tally.WINNER: lambda won: won, Tally.LOSER: other}


@dataclass(frozen=True)
class Game:
    name: GameName
    label: str
    rules: HouseRules  # a new match's house rules
    target: int
    targets: tuple[int, ...] = TARGETS
    # The choices each house rule may take in this game; a rule not named takes any.
    variants: Mapping[str, tuple[StrEnum, ...]] = field(default_factory=dict)
    counting: Literal["score", "left"] = "score"  # how a score is shown: a key of SHOWN
    tally: Tally = Tally.WINNER

    def choices(self, rule: str) -> tuple[StrEnum, ...]:
        """The choices of house rule ``rule`` this game offers, its default first."""
        if rule in self.variants:
            return self.variants[rule]
        default = getattr(self.rules, rule)
        return (default, *(choice for choice in type(default) if choice is not default))

    def check_rules(self, rules: HouseRules) -> None:
        for switch in HouseRules.switches():
            choice = getattr(rules, switch.name)
            if choice not in self.choices(switch.name):
                raise Invalid(
                    N_("%(game)s is not played with “%(rule)s: %(choice)s”."),
                    game=self.label,
                    rule=switch.label,
                    choice=switch.choices[choice],
                )

    def check_target(self, target: int) -> None:
        if target not in self.targets:
            raise Invalid(
                N_("%(game)s is played to %(targets)s, not %(target)s."),
                game=self.label,
                targets=", ".join(str(each) for each in self.targets),
                target=target,
            )

    def shown(self, score: int, target: int) -> int:
        return SHOWN[self.counting](score, target)

    def marks(self, standing: Standing, rules: HouseRules) -> int:
        """0 until won; 2 for a win to nil where ``rules`` say so (a Schneider-Bummerl), else 1."""
        winner = standing.winner
        if winner is None:
            return 0
        to_nil = standing.score(other(winner)) == 0
        return 2 if to_nil and rules.shutout is Shutout.TWICE else 1

    def tallied(self, standing: Standing) -> Seat | None:
        winner = standing.winner
        return None if winner is None else TALLIES[self.tally](winner)


GAMES: dict[GameName, Game] = {
    GameName.SANTASE: Game(
        GameName.SANTASE,
        N_("Santase"),
        DEFAULT_RULES,
        11,
        variants={"shutout": (Shutout.ONCE,), "session": (Session.ONE,)},
    ),
    # pagat.com: the winner of a deal deals, 65:65 is a draw, a wrong 66 costs 2.
    GameName.SIXTY_SIX: Game(
        GameName.SIXTY_SIX,
        N_("Sixty-six"),
        SIXTY_SIX_RULES,
        7,
        variants={"failed_close": (FailedClose.BY_TRICKS,), "session": (Session.ONE,)},
    ),
    # pagat.com and schnopsn.com: down from 7, the deal alternates, no 65:65; one Bummerl
    # or best of three.
    GameName.SCHNAPSEN: Game(
        GameName.SCHNAPSEN,
        N_("Schnapsen"),
        SCHNAPSEN_RULES,
        7,
        (7,),
        variants={
            "failed_close": (FailedClose.BY_TRICKS,),
            "wrong_claim": (WrongClaim.BY_TRICKS,),
            "next_dealer": (NextDealer.ALTERNATE,),
            "ties": (Ties.NOT_RECORDED,),
        },
        counting="left",
        tally=Tally.LOSER,
    ),
}
SANTASE = GAMES[GameName.SANTASE]


def game_of(rules: HouseRules) -> Game:
    """The game of a match exported without one: Sixty-six if its rules were that preset's."""
    old_sixty_six = dataclasses.replace(SIXTY_SIX_RULES, wrong_claim=WrongClaim.BY_TRICKS)
    return GAMES[GameName.SIXTY_SIX] if rules == old_sixty_six else SANTASE


SESSION_WINS = {Session.ONE: 1, Session.BEST_OF_THREE: 2}


def sessions(winners: Iterable[str]) -> tuple[Counter[str], Counter[str]]:
    """Each name's best of three won, and its wins in the open one, from a pair's winners."""
    won: Counter[str] = Counter()
    open_set: Counter[str] = Counter()
    for name in winners:
        open_set[name] += 1
        if open_set[name] == SESSION_WINS[Session.BEST_OF_THREE]:
            won[name] += 1
            open_set.clear()
    return won, open_set


def session_standing(
    earlier: tuple[int, int], winner: Seat | None, rules: HouseRules
) -> tuple[int, int] | None:
    """Each seat's wins in its best of three, this match's included; None for one match."""
    if rules.session is not Session.BEST_OF_THREE:
        return None
    return earlier[0] + (winner == 1), earlier[1] + (winner == 2)


def session_winner(standing: tuple[int, int] | None) -> Seat | None:
    needed = SESSION_WINS[Session.BEST_OF_THREE]
    return next((seat for seat in SEATS if standing and standing[seat - 1] >= needed), None)
