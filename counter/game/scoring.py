"""The rules of Santase scoring: deal outcomes, the house rules, their points and the standing."""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, reduce
from itertools import accumulate
from typing import Any, Literal

from counter.game.refusals import N_, Conflict, Invalid

Seat = Literal[1, 2]
SEATS: tuple[Seat, Seat] = (1, 2)
Shown = Callable[[int, int], int]  # a score and the target, as a game says the score

TARGETS: tuple[int, ...] = (7, 11, 15)
DEFAULT_TARGET = 11
# Far above a real match (10-30 deals): bounds what one match costs every page showing it.
MAX_DEALS_PER_MATCH = 300


class Outcome(StrEnum):
    """Why a player received game points, always from the receiver's side."""

    NORMAL = "normal"
    SCHNEIDER = "schneider"
    SCHWARZ = "schwarz"
    FAILED_CLOSE = "failed_close"
    FAILED_CLOSE_NO_TRICK = "failed_close_no_trick"
    WRONG_CLAIM = "wrong_claim"
    WRONG_CLAIM_NO_TRICK = "wrong_claim_no_trick"
    TIE = "tie"  # 65:65, where a house rule lets it be recorded: nobody receives points


# Points under the default rules; HouseRules.points adjusts the variants.
POINTS: dict[Outcome, int] = {
    Outcome.NORMAL: 1,
    Outcome.SCHNEIDER: 2,
    Outcome.SCHWARZ: 3,
    Outcome.FAILED_CLOSE: 2,
    Outcome.FAILED_CLOSE_NO_TRICK: 3,
    Outcome.WRONG_CLAIM: 2,
    Outcome.WRONG_CLAIM_NO_TRICK: 2,
    Outcome.TIE: 0,
}


# A house rule is one field of HouseRules (an enum, its default) and its words in RULE_WORDS;
# the API, the export, the database columns, the forms and the page's script derive from them.


class FailedClose(StrEnum):
    """What the other player gets when the player who closed the stock misses 66."""

    BY_TRICKS = "by_tricks"  # 2, or 3 if the receiver had no trick when it was closed
    ALWAYS_3 = "always_3"
    ALWAYS_2 = "always_2"


class WrongClaim(StrEnum):
    """What the other player gets for a 66 claimed without having it."""

    ALWAYS_2 = "always_2"
    BY_TRICKS = "by_tricks"  # 2, or 3 if the receiver had no trick yet


class NextDealer(StrEnum):
    WINNER = "winner"  # whoever received the points of the last deal
    ALTERNATE = "alternate"


class Shutout(StrEnum):
    """What a match won to nil counts: a 7:0 in Sixty-six, a Schneider-Bummerl in Schnapsen."""

    ONCE = "once"
    TWICE = "twice"


class Session(StrEnum):
    """One match, or best of three "like in tennis" (schnopsn.com): the first to win two."""

    ONE = "one"
    BEST_OF_THREE = "best_of_three"


class Ties(StrEnum):
    """Whether a deal that ends 65:65 is recorded."""

    NOT_RECORDED = "not_recorded"
    NO_POINTS = "no_points"  # recorded: no points to anyone; who deals next is next_dealer's


# Each house rule's label and the words of its choices, in the order forms show them.
RULE_WORDS: dict[str, tuple[str, dict[Any, str]]] = {
    "failed_close": (
        N_("Failed close"),
        {
            FailedClose.BY_TRICKS: N_("2 (3 if the opponent had no trick)"),
            FailedClose.ALWAYS_3: N_("always 3"),
            FailedClose.ALWAYS_2: N_("always 2"),
        },
    ),
    "wrong_claim": (
        N_("Wrong 66"),
        {
            WrongClaim.ALWAYS_2: N_("always 2"),
            WrongClaim.BY_TRICKS: N_("2 (3 if the opponent had no trick)"),
        },
    ),
    "next_dealer": (
        N_("Who deals"),
        {
            NextDealer.WINNER: N_("the winner of the deal"),
            NextDealer.ALTERNATE: N_("each player in turn"),
        },
    ),
    "ties": (
        N_("Deal at 65:65"),
        {Ties.NOT_RECORDED: N_("not recorded"), Ties.NO_POINTS: N_("recorded, 0 points")},
    ),
    "shutout": (
        N_("Match won to nil"),
        {Shutout.ONCE: N_("counts once"), Shutout.TWICE: N_("counts twice")},
    ),
    "session": (
        N_("Session"),
        {Session.ONE: N_("one match"), Session.BEST_OF_THREE: N_("best of three")},
    ),
}


@dataclass(frozen=True)
class Switch:
    name: str
    kind: type[StrEnum]
    default: StrEnum
    label: str
    choices: dict[StrEnum, str]


@dataclass(frozen=True)
class HouseRules:
    """The variants a table plays by, per match; a deal keeps those it was recorded under."""

    failed_close: FailedClose = FailedClose.BY_TRICKS
    wrong_claim: WrongClaim = WrongClaim.ALWAYS_2
    next_dealer: NextDealer = NextDealer.WINNER
    ties: Ties = Ties.NOT_RECORDED
    shutout: Shutout = Shutout.ONCE
    session: Session = Session.ONE

    @staticmethod
    @cache
    def switches() -> tuple[Switch, ...]:
        return tuple(
            Switch(name, type(default), default, *RULE_WORDS[name])
            for name, default in vars(HouseRules()).items()
        )

    def as_dict(self) -> dict[str, str]:
        """``{"failed_close": "by_tricks", …}``: how the API, exports and forms spell them."""
        return {switch.name: getattr(self, switch.name).value for switch in self.switches()}

    def points(self, outcome: Outcome) -> int:
        closed = outcome in (Outcome.FAILED_CLOSE, Outcome.FAILED_CLOSE_NO_TRICK)
        if closed and self.failed_close is not FailedClose.BY_TRICKS:
            return 3 if self.failed_close is FailedClose.ALWAYS_3 else 2
        if outcome is Outcome.WRONG_CLAIM_NO_TRICK and self.wrong_claim is WrongClaim.BY_TRICKS:
            return 3
        return POINTS[outcome]

    @property
    def outcomes(self) -> list[Outcome]:
        """The outcomes worth a button of their own: a "no trick" variant only where it pays."""
        hidden = {
            Outcome.FAILED_CLOSE_NO_TRICK: self.failed_close is not FailedClose.BY_TRICKS,
            Outcome.WRONG_CLAIM_NO_TRICK: self.wrong_claim is not WrongClaim.BY_TRICKS,
            Outcome.TIE: self.ties is Ties.NOT_RECORDED,
        }
        return [outcome for outcome in Outcome if not hidden.get(outcome)]

    def as_table(self) -> dict[str, Any]:
        """What a client needs to score a tap before the server answers."""
        return {
            "points": {outcome.value: self.points(outcome) for outcome in self.outcomes},
            "next_dealer": self.next_dealer.value,
        }


DEFAULT_RULES = HouseRules()


class GameName(StrEnum):
    SANTASE = "santase"
    SIXTY_SIX = "sixty_six"
    SCHNAPSEN = "schnapsen"


# Each game's own rules, as its sources give them (templates/rules/).
SIXTY_SIX_RULES = HouseRules(ties=Ties.NO_POINTS)
SCHNAPSEN_RULES = HouseRules(
    wrong_claim=WrongClaim.BY_TRICKS, next_dealer=NextDealer.ALTERNATE, shutout=Shutout.TWICE
)


@dataclass(frozen=True)
class Preset:
    label: str
    rules: HouseRules
    target: int
    game: GameName = GameName.SANTASE


# The scoring of each rule family the rules page describes; one of another game changes the
# match's game, before its first deal.
PRESETS: dict[str, Preset] = {
    "santase": Preset(N_("Santase to 11"), DEFAULT_RULES, 11),
    # Bulgarian online clubs.
    "clubs": Preset(
        N_("KozKlub to 11"),
        HouseRules(failed_close=FailedClose.ALWAYS_3, next_dealer=NextDealer.ALTERNATE),
        11,
    ),
    "sixty_six": Preset(N_("Sixty-six to 7"), SIXTY_SIX_RULES, 7, GameName.SIXTY_SIX),
    "schnapsen": Preset(N_("Schnapsen: a Bummerl"), SCHNAPSEN_RULES, 7, GameName.SCHNAPSEN),
}


class MatchFinished(Conflict):
    """A deal was offered to a match that already has a winner."""


class TargetWouldReopenMatch(Conflict):
    """A higher target for a finished match, asked without saying to play on."""


@dataclass(frozen=True)
class DealResult:
    """One recorded deal (``player`` None for a tie) and the rules it was recorded under."""

    player: Seat | None
    outcome: Outcome
    points: int
    rules: HouseRules = DEFAULT_RULES


@dataclass(frozen=True)
class Standing:
    """The match after some deals: both totals and whether someone has won."""

    scores: tuple[int, int]
    target: int
    names: tuple[str, str] = ("1", "2")

    @property
    def winner(self) -> Seat | None:
        """The seat that reached the target; deals stop there, so at most one."""
        return next((seat for seat in SEATS if reaches(self.score(seat), self.target)), None)

    @property
    def finished(self) -> bool:
        return self.winner is not None

    def score(self, seat: Seat) -> int:
        return self.scores[seat - 1]

    def name(self, seat: Seat) -> str:
        return self.names[seat - 1]

    @property
    def shown_score(self) -> str:
        return f"{self.scores[0]}:{self.scores[1]}"

    def score_of(self, winner: Seat, shown: Shown = lambda score, _target: score) -> str:
        """The score as the winner's result reads, each figure as ``shown`` says it: "11:3"."""
        return ":".join(
            str(shown(self.score(seat), self.target)) for seat in (winner, other(winner))
        )

    def after(self, deal: DealResult, shown: Shown = lambda score, _target: score) -> "Standing":
        """The standing once ``deal`` is added; refused once won (the score as ``shown`` says)."""
        winner = self.winner
        if winner is not None:
            raise MatchFinished(
                N_("The match is over: %(name)s won %(score)s. Start a new match to keep playing."),
                name=self.name(winner),
                score=self.score_of(winner, shown),
            )
        first, second = self.scores
        first += deal.points * (deal.player == 1)
        second += deal.points * (deal.player == 2)
        return Standing((first, second), self.target, self.names)

    def with_target(self, target: int, *, play_on: bool = False) -> "Standing":
        """The standing under ``target``; refused if it ends the match or reopens a won one."""
        if target == self.target:
            return self
        winner = self.winner
        if winner is not None and target > self.score(winner) and not play_on:
            raise TargetWouldReopenMatch(
                N_(
                    "%(name)s has already won %(score)s. Playing on to %(target)s takes "
                    "that win back; confirm that you want to play on."
                ),
                name=self.name(winner),
                score=self.score_of(winner),
                target=target,
            )
        moved = Standing(self.scores, target, self.names)
        if (seat := moved.winner) is not None:
            raise Conflict(
                N_(
                    "%(name)s already has %(points)s game points, "
                    "so a target of %(target)s would end the match at once."
                ),
                name=self.name(seat),
                points=self.score(seat),
                target=target,
            )
        return moved


def score_deal(
    player: Seat | None, outcome: Outcome, rules: HouseRules = DEFAULT_RULES
) -> DealResult:
    if outcome is Outcome.TIE:
        if rules.ties is Ties.NOT_RECORDED:
            raise Invalid(N_("Tied deals are not recorded under this match's house rules."))
        if player is not None:
            raise Invalid(N_("A tied deal gives nobody points: leave the player out."))
    elif player is None:
        raise Invalid(N_("Say which player receives the points."))
    return DealResult(player=player, outcome=outcome, points=rules.points(outcome), rules=rules)


def check_points(deal: DealResult) -> None:
    """Refuse a deal whose points are not what its outcome earns under its rules."""
    points = score_deal(deal.player, deal.outcome, deal.rules).points
    if points != deal.points:
        raise Invalid(
            N_("%(outcome)s is worth %(points)s under its house rules, not %(given)s."),
            outcome=deal.outcome.value,
            points=points,
            given=deal.points,
        )


def other(seat: Seat) -> Seat:
    return 2 if seat == 1 else 1


def next_dealer(dealer: Seat, deal: DealResult) -> Seat:
    """Who deals after ``deal``: in turn (a tie too), or its winner (after a tie the same)."""
    if deal.rules.next_dealer is NextDealer.ALTERNATE:
        return other(dealer)
    return dealer if deal.player is None else deal.player


def leader(dealer: Seat) -> Seat:
    return other(dealer)


def reaches(score: int, target: int) -> bool:
    return score >= target


def dealers(first: Seat, deals: Sequence[DealResult]) -> list[Seat]:
    """Who dealt each deal, then who deals next (one more than there are deals)."""
    seats: Iterable[Seat] = accumulate(deals, next_dealer, initial=first)
    return list(seats)


def running_totals(
    deals: Iterable[DealResult],
    target: int,
    names: tuple[str, str] = ("1", "2"),
    *,
    start: tuple[int, int] = (0, 0),
) -> list[Standing]:
    """The standing after each deal, from ``start``; refused after the match is won."""
    return list(accumulate(deals, Standing.after, initial=Standing(start, target, names)))[1:]


def standing(
    deals: Iterable[DealResult], target: int, names: tuple[str, str] = ("1", "2")
) -> Standing:
    """The standing after ``deals``; refused after the match is won (:class:`MatchFinished`)."""
    return reduce(Standing.after, deals, Standing((0, 0), target, names))


def replay(
    deals: Sequence[DealResult], target: int, names: tuple[str, str] = ("1", "2")
) -> Standing:
    """The standing of a corrected list of deals, refused if too long or won before its end."""
    if len(deals) > MAX_DEALS_PER_MATCH:
        raise Conflict(
            N_("A match keeps at most %(most)s deals; this one would have %(count)s."),
            most=MAX_DEALS_PER_MATCH,
            count=len(deals),
        )
    current = Standing((0, 0), target, names)
    for number, deal in enumerate(deals):
        if current.finished:
            raise Conflict(
                N_(
                    "With that change the match would already be won at deal %(number)s, "
                    "and deals were recorded after it. Correct or delete those first."
                ),
                number=number,
            )
        current = current.after(deal)
    return current


def check_room(deal_count: int) -> None:
    if deal_count >= MAX_DEALS_PER_MATCH:
        raise Conflict(
            N_("This match already has %(most)s deals, the most the counter keeps in one."),
            most=MAX_DEALS_PER_MATCH,
        )
