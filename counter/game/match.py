"""A match as a plain object: every change a method, every figure worked out from the deals."""

from dataclasses import dataclass, field
from datetime import datetime

from counter.game import scoring
from counter.game.games import GAMES, SANTASE, Game
from counter.game.parsing import RuleChanges, changed_rules
from counter.game.refusals import N_, Conflict, NotFound
from counter.game.scoring import (
    DEFAULT_RULES,
    DEFAULT_TARGET,
    DealResult,
    GameName,
    HouseRules,
    Outcome,
    Preset,
    Seat,
    Standing,
)


class DealNotFound(NotFound):
    """The match has no deal with that number."""


class NothingToUndo(Conflict):
    """Undo was asked of a match without deals, or of a deal that is no longer the last."""


class RequestReused(Conflict):
    """A request id came back with a different deal than the one it recorded."""


class DealsChanged(Conflict):
    """A deal that followed another number of deals than the match has (another phone's)."""


def overtaken(
    missed: list[tuple[Seat | None, Outcome]], seat: Seat | None, outcome: Outcome
) -> bool:
    """Whether another phone recorded one deal first, with another result than this one's."""
    return len(missed) == 1 and missed[0] != (seat, outcome)


@dataclass
class Deal:
    """One deal's game points for the player who received them (none for a tie)."""

    player: Seat | None
    outcome: Outcome
    points: int
    rules: HouseRules
    created_at: datetime
    corrected_at: datetime | None = None
    request_id: str | None = None

    @property
    def result(self) -> DealResult:
        return DealResult(self.player, self.outcome, self.points, self.rules)


@dataclass
class Match:
    """A run of deals between two players until one reaches the target."""

    uid: str
    names: tuple[str, str]
    created_at: datetime
    target: int = DEFAULT_TARGET
    first_dealer: Seat = 1
    rules: HouseRules = DEFAULT_RULES  # those the next deal is recorded under
    deals: list[Deal] = field(default_factory=list)
    game: Game = SANTASE

    @property
    def results(self) -> list[DealResult]:
        return [deal.result for deal in self.deals]

    @property
    def standing(self) -> Standing:
        return scoring.standing(self.results, self.target, self.names)

    @property
    def winner(self) -> Seat | None:
        return self.standing.winner

    @property
    def marks(self) -> int:
        """What the match counts in its series' tally: 0 until won (a Bummerl may count 2)."""
        return self.game.marks(self.standing, self.rules)

    @property
    def tallied(self) -> Seat | None:
        """Whose tally the finished match adds :attr:`marks` to (a Bummerl: the loser's)."""
        return self.game.tallied(self.standing)

    @property
    def dealers(self) -> list[Seat]:
        return scoring.dealers(self.first_dealer, self.results)

    def running_totals(self) -> list[Standing]:
        return scoring.running_totals(self.results, self.target, self.names)

    @property
    def finished_at(self) -> datetime | None:
        return self.deals[-1].created_at if self.winner is not None else None

    def overtaken_by(self, after: int, result: DealResult) -> bool:
        missed = [(deal.player, deal.outcome) for deal in self.deals[after:]]
        return overtaken(missed, result.player, result.outcome)

    def recorded_by(self, request_id: str) -> Deal | None:
        return next((deal for deal in self.deals if deal.request_id == request_id), None)

    def record(
        self,
        seat: Seat | None,
        outcome: Outcome,
        *,
        at: datetime,
        request_id: str | None = None,
        after: int | None = None,
    ) -> Deal | None:
        """Add a deal under the rules of now; None for a retry. ``after``: the deals seen."""
        result = scoring.score_deal(seat, outcome, self.rules)
        if request_id is not None and (found := self.recorded_by(request_id)) is not None:
            if (found.player, found.outcome) != (result.player, result.outcome):
                raise RequestReused(
                    N_(
                        "That request was already recorded as deal %(number)s, for another "
                        "player or outcome; nothing new was recorded."
                    ),
                    number=self.deals.index(found) + 1,
                )
            return None
        # Asked, not refused, when "Mine" may take back the other phone's winning deal.
        if after is None or not self.overtaken_by(after, result):
            self.standing.after(result, self.game.shown)  # refused once the match is won
        scoring.check_room(len(self.deals))
        if after is not None and after != len(self.deals):
            raise DealsChanged(
                N_(
                    "Another phone changed this match: it has %(count)s deals now, and this "
                    "deal followed %(after)s. Nothing was recorded."
                ),
                count=len(self.deals),
                after=after,
            )
        deal = Deal(
            result.player, result.outcome, result.points, self.rules, at, request_id=request_id
        )
        self.deals.append(deal)
        return deal

    def undo(self, *, number: int | None = None, request_id: str | None = None) -> Deal | None:
        """Take back the last deal (if it is ``number``'s or ``request_id``'s); None if gone."""
        found = None if request_id is None else self.recorded_by(request_id)
        if request_id is not None and found is None:
            return None
        if not self.deals:
            raise NothingToUndo(N_("There is no deal to undo in this match."))
        of_request = None if found is None else self.deals.index(found) + 1
        if any(asked not in (None, len(self.deals)) for asked in (number, of_request)):
            raise NothingToUndo(
                N_("Deal %(number)s is no longer the last one; nothing was undone."),
                number=number or of_request,
            )
        return self.deals.pop()

    def deal(self, number: int, *, recorded_at: datetime | None = None) -> Deal:
        """Deal ``number``; refused if it is not the one recorded at ``recorded_at`` (if given)."""
        if not 1 <= number <= len(self.deals):
            if recorded_at is not None:  # it was there when its page was opened
                raise DealsChanged(
                    N_(
                        "Another phone changed this match meanwhile, and it has no deal "
                        "%(number)s any more. Nothing was changed."
                    ),
                    number=number,
                )
            raise DealNotFound(N_("This match has no deal %(number)s."), number=number)
        found = self.deals[number - 1]
        if recorded_at is not None and found.created_at != recorded_at:
            raise DealsChanged(
                N_(
                    "Another phone changed this match meanwhile, and deal %(number)s is now "
                    "another deal. Nothing was changed."
                ),
                number=number,
            )
        return found

    def correct(
        self,
        number: int,
        *,
        seat: Seat | None,
        outcome: Outcome | None,
        at: datetime,
        recorded_at: datetime | None = None,
    ) -> Deal:
        """Rescore a past deal under its own rules (no ``seat``: its player, unless a tie)."""
        deal = self.deal(number, recorded_at=recorded_at)
        kind = deal.outcome if outcome is None else outcome
        if seat is None and kind is not Outcome.TIE:
            seat = deal.player
        result = scoring.score_deal(seat, kind, deal.rules)
        results = self.results
        results[number - 1] = result
        scoring.replay(results, self.target, self.names)
        if deal.result != result:  # scored under the same rules: a change of player or outcome
            deal.player, deal.outcome, deal.points = result.player, result.outcome, result.points
            deal.corrected_at = at
        return deal

    def delete(self, number: int, *, recorded_at: datetime | None = None) -> Deal:
        """Remove a past deal; the later ones move up a number."""
        self.deal(number, recorded_at=recorded_at)  # refused if there is none
        rest = self.results
        del rest[number - 1]
        scoring.replay(rest, self.target, self.names)
        return self.deals.pop(number - 1)

    def change(
        self,
        *,
        names: tuple[str, str] | None = None,
        target: int | None = None,
        rules: HouseRules | RuleChanges | None = None,
        preset: Preset | None = None,
        first_dealer: Seat | None = None,
        play_on: bool = False,
        game: Game | GameName | None = None,
    ) -> None:
        """Change settings: a preset or new game brings its target and rules; changes amend."""
        if first_dealer is not None and first_dealer != self.first_dealer and self.deals:
            raise Conflict(N_("Who dealt first can only be changed before the first deal."))
        if game is None:
            game = self.game if preset is None else preset.game
        game = GAMES[GameName(game)] if isinstance(game, str) else game
        if game != self.game and self.deals:
            raise Conflict(N_("The game can only be changed before the first deal."))
        settings: Preset | Game | Match = preset or (self if game == self.game else game)
        target = settings.target if target is None else target
        if not isinstance(rules, HouseRules):
            rules = changed_rules(settings.rules, rules or {})
        game.check_target(target)
        game.check_rules(rules)
        names = self.names if names is None else names
        now = Standing(self.standing.scores, self.target, names)
        now.with_target(target, play_on=play_on)  # refused if the new target ends or reopens it
        self.names, self.target, self.rules, self.game = names, target, rules, game
        self.first_dealer = self.first_dealer if first_dealer is None else first_dealer
