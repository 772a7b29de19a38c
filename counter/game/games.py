"""The games of the 66 family: Santase, Sixty-six and Schnapsen, each one definition.

A game is rules data (its default house rules and target, the targets and variants it
offers) and one method for each thing that differs: how a score is shown (Schnapsen
counts down from 7), how much a won match counts and whose tally it goes to (a Bummerl
is the loser's). Everything else (points, dealers, the winner) is :mod:`scoring`'s, under
the house rules the game allows. Adding a game: docs/architecture.md.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

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


class Counting(StrEnum):
    UP = "up"  # from 0 to the target
    DOWN = "down"  # from the target to 0: the score shown is what is still to make


class Tally(StrEnum):
    """Whose count a finished match adds to."""

    WINNER = "winner"  # games won
    LOSER = "loser"  # Bummerl: "he has the Bummerl"


@dataclass(frozen=True)
class Game:
    name: GameName
    label: str
    rules: HouseRules  # a new match's house rules
    target: int
    targets: tuple[int, ...]
    # The choices each house rule may take in this game; a rule not named takes any.
    variants: Mapping[str, tuple[StrEnum, ...]] = field(default_factory=dict)
    counting: Counting = Counting.UP
    tally: Tally = Tally.WINNER

    def choices(self, rule: str) -> tuple[StrEnum, ...]:
        """The choices of house rule ``rule`` this game offers, its default first."""
        if rule in self.variants:
            return self.variants[rule]
        switch = next(each for each in HouseRules.switches() if each.name == rule)
        default = getattr(self.rules, rule)
        return (default, *(choice for choice in switch.kind if choice is not default))

    def check_rules(self, rules: HouseRules) -> None:
        """Refuse house rules this game is not played with."""
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
        """A score as the players of this game say it."""
        return score if self.counting is Counting.UP else max(target - score, 0)

    def marks(self, standing: Standing, rules: HouseRules) -> int:
        """What the match counts in the tally: 0 until won, 2 for a win to nil where
        ``rules`` say so (a Schneider-Bummerl), else 1."""
        winner = standing.winner
        if winner is None:
            return 0
        to_nil = standing.score(other(winner)) == 0
        return 2 if to_nil and rules.shutout is Shutout.TWICE else 1

    def tallied(self, standing: Standing) -> Seat | None:
        """The seat whose count the finished match adds to."""
        winner = standing.winner
        if winner is None or self.tally is Tally.WINNER:
            return winner
        return other(winner)


GAMES: dict[GameName, Game] = {
    GameName.SANTASE: Game(
        GameName.SANTASE,
        N_("Santase"),
        DEFAULT_RULES,
        11,
        TARGETS,
        variants={"shutout": (Shutout.ONCE,), "session": (Session.ONE,)},
    ),
    # pagat.com: the winner of a deal deals, 65:65 is a draw, a wrong 66 costs 2.
    GameName.SIXTY_SIX: Game(
        GameName.SIXTY_SIX,
        N_("Sixty-six"),
        SIXTY_SIX_RULES,
        7,
        TARGETS,
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
        counting=Counting.DOWN,
        tally=Tally.LOSER,
    ),
}
SANTASE = GAMES[GameName.SANTASE]


def game_of(rules: HouseRules) -> Game:
    """The game whose rules ``rules`` are, for matches from before games were kept
    (migration 0017 says the same in SQL): Sixty-six if they were its preset's, else Santase."""
    old_sixty_six = dataclasses.replace(SIXTY_SIX_RULES, wrong_claim=WrongClaim.BY_TRICKS)
    return GAMES[GameName.SIXTY_SIX] if rules == old_sixty_six else SANTASE


# The matches a player must win to take a session.
SESSION_WINS = {Session.ONE: 1, Session.BEST_OF_THREE: 2}


def sessions(winners: Iterable[str]) -> tuple[Counter[str], Counter[str]]:
    """The best of three in ``winners`` (the winner's name of each of a pair's matches
    played as best of three, in the order played): each name's sessions won, and its
    matches won in the session still open. A session is over once a name has won two."""
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
    """Each seat's matches won in its best of three, this match's win included: ``earlier``
    those before it; None for a match played as one."""
    if rules.session is not Session.BEST_OF_THREE:
        return None
    return earlier[0] + (winner == 1), earlier[1] + (winner == 2)


def session_winner(standing: tuple[int, int] | None) -> Seat | None:
    """The seat that has won its best of three, if any."""
    if standing is None:
        return None
    needed = SESSION_WINS[Session.BEST_OF_THREE]
    return next((seat for seat in SEATS if standing[seat - 1] >= needed), None)
