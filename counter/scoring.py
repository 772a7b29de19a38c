"""The rules of Santase scoring: deal outcomes, their game points and the match state.

Pure Python on purpose: nothing here knows about Flask, SQL or HTTP, so the
rules can be read, tested and reused on their own. Everything else in the
project asks this module what a deal is worth and who has won.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Literal

Seat = Literal[1, 2]
SEATS: tuple[Seat, Seat] = (1, 2)

TARGETS: tuple[int, ...] = (7, 11, 15)
DEFAULT_TARGET = 11

NAME_MAX_LENGTH = 40
DEFAULT_NAMES: tuple[str, str] = ("Player 1", "Player 2")


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


class FailedClose(StrEnum):
    """What the other player gets when the player who closed the stock misses 66."""

    BY_TRICKS = "by_tricks"  # 2, or 3 if the receiver had no trick when it was closed
    ALWAYS_3 = "always_3"
    ALWAYS_2 = "always_2"


class WrongClaim(StrEnum):
    """What the other player gets for a 66 claimed without having it."""

    ALWAYS_2 = "always_2"
    BY_TRICKS = "by_tricks"  # 2, or 3 if the receiver had no trick yet


class Ties(StrEnum):
    """Whether a deal that ends 65:65 is recorded."""

    NOT_RECORDED = "not_recorded"
    NO_POINTS = "no_points"  # recorded: no points to anyone, and the same dealer deals again


class NextDealer(StrEnum):
    """Who deals the next deal."""

    WINNER = "winner"  # whoever received the points of the last deal
    ALTERNATE = "alternate"


# Points under the default rules (RULES.md); HouseRules.points adjusts the rest.
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


@dataclass(frozen=True)
class HouseRules:
    """The variants a table plays by; the defaults are those of RULES.md."""

    failed_close: FailedClose = FailedClose.BY_TRICKS
    wrong_claim: WrongClaim = WrongClaim.ALWAYS_2
    next_dealer: NextDealer = NextDealer.WINNER
    ties: Ties = Ties.NOT_RECORDED

    def points(self, outcome: Outcome) -> int:
        """Game points the receiving player gets for ``outcome`` under these rules."""
        if outcome in (Outcome.FAILED_CLOSE, Outcome.FAILED_CLOSE_NO_TRICK):
            if self.failed_close is FailedClose.ALWAYS_3:
                return 3
            if self.failed_close is FailedClose.ALWAYS_2:
                return 2
        if outcome is Outcome.WRONG_CLAIM_NO_TRICK and self.wrong_claim is WrongClaim.BY_TRICKS:
            return 3
        return POINTS[outcome]

    @property
    def outcomes(self) -> list[Outcome]:
        """The outcomes worth a button of their own: a "no trick" variant only where it pays."""
        hidden = set()
        if self.failed_close is not FailedClose.BY_TRICKS:
            hidden.add(Outcome.FAILED_CLOSE_NO_TRICK)
        if self.wrong_claim is not WrongClaim.BY_TRICKS:
            hidden.add(Outcome.WRONG_CLAIM_NO_TRICK)
        if self.ties is Ties.NOT_RECORDED:
            hidden.add(Outcome.TIE)
        return [outcome for outcome in Outcome if outcome not in hidden]


DEFAULT_RULES = HouseRules()
# Named sets of rules and the target they come with.
PRESETS: dict[str, tuple[HouseRules, int]] = {
    "santase": (DEFAULT_RULES, 11),
    "pagat66": (HouseRules(FailedClose.BY_TRICKS, WrongClaim.ALWAYS_2, NextDealer.WINNER), 7),
}


def N_(message: str) -> str:  # noqa: N802 - the name gettext tools look for
    """Mark a message for translation where it is written; it is translated when shown."""
    return message


class RuleError(ValueError):
    """Input the rules cannot accept, explained for the players.

    ``message`` is an English template with ``%(name)s`` fields, marked with
    :func:`N_`; the web layer translates it and fills in ``params``.
    ``str(error)`` is the English sentence.
    """

    def __init__(self, message: str, **params: object) -> None:
        super().__init__(message % params if params else message)
        self.message = message
        self.params = params


class RuleConflict(RuleError):
    """A valid request that the match, as it stands now, cannot take."""


class MatchFinished(RuleConflict):
    """A deal was offered to a match that already has a winner."""


class TargetWouldEndMatch(RuleConflict):
    """A target switch that a player's score has already reached."""


class CorrectionWouldEndMatch(RuleConflict):
    """A corrected deal list in which the match is won before its last deal."""


def shown(value: object) -> str:
    """A value as the request sent it (JSON spelling), cut short for a message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def parse_outcome(value: object) -> Outcome:
    """Return the outcome named by ``value`` or explain which names exist."""
    if isinstance(value, str):
        try:
            return Outcome(value)
        except ValueError:
            pass
    raise RuleError(
        N_("Unknown outcome %(value)s: choose one of %(names)s."),
        value=shown(value),
        names=", ".join(outcome.value for outcome in Outcome),
    )


def parse_seat(value: object) -> Seat:
    """Return seat 1 or 2; anything else (including booleans) is refused."""
    if isinstance(value, int) and not isinstance(value, bool) and value in SEATS:
        return 1 if value == 1 else 2
    raise RuleError(N_("Player must be 1 or 2, not %(value)s."), value=shown(value))


def parse_target(value: object) -> int:
    """Return a target the counter offers, or say which ones it does."""
    if isinstance(value, int) and not isinstance(value, bool) and value in TARGETS:
        return value
    raise RuleError(
        N_("The target must be one of %(targets)s game points, not %(value)s."),
        targets=", ".join(str(target) for target in TARGETS),
        value=shown(value),
    )


def parse_name(value: object, seat: Seat, default: str | None = None) -> str:
    """A player's name: trimmed, inner spaces folded, 1-40 characters, default if empty."""
    fallback = default or DEFAULT_NAMES[seat - 1]
    if value is None:
        return fallback
    if not isinstance(value, str):
        raise RuleError(N_("The name of player %(seat)s must be text."), seat=seat)
    name = " ".join(unicodedata.normalize("NFC", value).split())
    if not name:
        return fallback
    if len(name) > NAME_MAX_LENGTH:
        raise RuleError(
            N_("The name of player %(seat)s is %(length)s characters long; keep it to %(most)s."),
            seat=seat,
            length=len(name),
            most=NAME_MAX_LENGTH,
        )
    # Control, unassigned and surrogate code points cannot be shown; format
    # characters such as the joiners inside emoji sequences can.
    if any(unicodedata.category(char) in {"Cc", "Cn", "Cs"} for char in name):
        raise RuleError(
            N_("The name of player %(seat)s holds characters that cannot be shown."), seat=seat
        )
    return name


def parse_names(
    first: object, second: object, defaults: tuple[str, str] = DEFAULT_NAMES
) -> tuple[str, str]:
    """Both players' names; two players may not share one, or the tally would be unreadable."""
    names = (parse_name(first, 1, defaults[0]), parse_name(second, 2, defaults[1]))
    if names[0].casefold() == names[1].casefold():
        raise RuleError(
            N_("Both players are called %(name)s; give them different names."), name=names[0]
        )
    return names


@dataclass(frozen=True)
class DealResult:
    """One recorded deal as the rules see it; a tied deal has no receiving player."""

    player: Seat | None
    outcome: Outcome
    points: int


@dataclass(frozen=True)
class Standing:
    """The match after some deals: both totals and whether someone has won."""

    scores: tuple[int, int]
    target: int
    names: tuple[str, str] = DEFAULT_NAMES

    @property
    def winner(self) -> Seat | None:
        """The seat that reached the target; deals stop there, so at most one."""
        for seat in SEATS:
            if self.score(seat) >= self.target:
                return seat
        return None

    @property
    def finished(self) -> bool:
        return self.winner is not None

    def score(self, seat: Seat) -> int:
        return self.scores[seat - 1]

    def name(self, seat: Seat) -> str:
        return self.names[seat - 1]

    def after(self, deal: DealResult) -> Standing:
        """The standing once ``deal`` is added; refused if the match is over."""
        winner = self.winner
        if winner is not None:
            raise MatchFinished(
                N_("The match is over: %(name)s won %(score)s. Start a new match to keep playing."),
                name=self.name(winner),
                score=f"{self.scores[0]}:{self.scores[1]}",
            )
        first, second = self.scores
        if deal.player is None:
            return self
        if deal.player == 1:
            first += deal.points
        else:
            second += deal.points
        return Standing((first, second), self.target, self.names)

    def with_target(self, target: int) -> Standing:
        """The standing under a new target, refused if that would end the match now.

        Raising the target of a finished match above the winner's score reopens it.
        """
        target = parse_target(target)
        if target == self.target:
            return self
        for seat in SEATS:
            if self.score(seat) >= target:
                raise TargetWouldEndMatch(
                    N_(
                        "%(name)s already has %(points)s game points, "
                        "so a target of %(target)s would end the match at once."
                    ),
                    name=self.name(seat),
                    points=self.score(seat),
                    target=target,
                )
        return Standing(self.scores, target, self.names)


def score_deal(
    player: Seat | None, outcome: Outcome, rules: HouseRules = DEFAULT_RULES
) -> DealResult:
    """Score one deal for the player who receives the game points (none for a tie)."""
    if outcome is Outcome.TIE:
        if rules.ties is Ties.NOT_RECORDED:
            raise RuleError(N_("Tied deals are not recorded under this match's house rules."))
        if player is not None:
            raise RuleError(N_("A tied deal gives nobody points: leave the player out."))
    elif player is None:
        raise RuleError(N_("Say which player the deal is for."))
    return DealResult(player=player, outcome=outcome, points=rules.points(outcome))


def dealers(first: Seat, deals: Sequence[DealResult], rule: NextDealer) -> list[Seat]:
    """Who dealt each deal, then who deals next (one more than there are deals).

    The player who does not deal leads the first trick.
    """
    dealer = first
    sequence = [dealer]
    for deal in deals:
        if deal.player is not None:  # after a tie the same player deals again
            dealer = deal.player if rule is NextDealer.WINNER else other(dealer)
        sequence.append(dealer)
    return sequence


def other(seat: Seat) -> Seat:
    """The opponent's seat."""
    return 2 if seat == 1 else 1


def parse_rules(value: object, base: HouseRules) -> HouseRules:
    """House rules from a dict of switches (see ``switches``) over ``base``."""
    if not isinstance(value, dict):
        raise RuleError(N_("Send the house rules as an object of switches."))
    switches: dict[str, type[StrEnum]] = {
        "failed_close": FailedClose,
        "wrong_claim": WrongClaim,
        "next_dealer": NextDealer,
        "ties": Ties,
    }
    unknown = sorted(set(value) - set(switches))
    if unknown:
        raise RuleError(N_("There is no house rule called %(name)s."), name=shown(unknown[0]))
    chosen: dict[str, Any] = {}
    for name, kind in switches.items():
        if name in value:
            try:
                chosen[name] = kind(value[name])
            except ValueError:
                raise RuleError(
                    N_("%(name)s cannot be %(value)s: choose one of %(choices)s."),
                    name=name,
                    value=shown(value[name]),
                    choices=", ".join(kind),
                ) from None
    return replace(base, **chosen)


def standing(
    deals: Iterable[DealResult], target: int, names: tuple[str, str] = DEFAULT_NAMES
) -> Standing:
    """Total ``deals`` in order toward ``target``."""
    current = Standing((0, 0), target, names)
    for deal in deals:
        current = current.after(deal)
    return current


def replay(
    deals: Sequence[DealResult], target: int, names: tuple[str, str] = DEFAULT_NAMES
) -> Standing:
    """The standing of a corrected list of deals, in order.

    A match ends at the deal that reaches the target, so a correction that would
    win it earlier, with deals still after that one, is refused.
    """
    current = Standing((0, 0), target, names)
    for number, deal in enumerate(deals, start=1):
        if current.finished:
            raise CorrectionWouldEndMatch(
                N_(
                    "With that change the match would already be won at deal %(number)s, "
                    "and deals were recorded after it. Correct or delete those first."
                ),
                number=number - 1,
            )
        current = current.after(deal)
    return current


def running_totals(
    deals: Sequence[DealResult], target: int, names: tuple[str, str] = DEFAULT_NAMES
) -> list[Standing]:
    """The standing after each deal, for tally sheets with running totals."""
    totals: list[Standing] = []
    current = Standing((0, 0), target, names)
    for deal in deals:
        current = current.after(deal)
        totals.append(current)
    return totals


def games_in_series(
    matches: Iterable[tuple[tuple[str, str], Seat | None]],
) -> list[tuple[int, int]]:
    """Games (matches won) of each seat's player, for every match of a history in order.

    ``matches`` are (names, winner) pairs, oldest first. A series is the matches
    between the same two names, in either seat (names are compared as entered,
    after :func:`parse_name` has tidied them); each match's count includes the
    match itself once it has a winner.
    """
    wins: dict[frozenset[str], dict[str, int]] = {}
    games: list[tuple[int, int]] = []
    for names, winner in matches:
        series = wins.setdefault(frozenset(names), {})
        if winner is not None:
            series[names[winner - 1]] = series.get(names[winner - 1], 0) + 1
        games.append((series.get(names[0], 0), series.get(names[1], 0)))
    return games
