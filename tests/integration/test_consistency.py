"""What the service stores agrees with what the rules derive from the deals.

Random sequences of real operations (new matches, deals, undos, target switches,
renames, corrections, deletions, changes of rules and of who deals first) through the
service; afterwards every match's stored winner is the one its deals give, its deals are
numbered 1..n, each deal is worth what its outcome earns under the rules it was recorded
with, and the games shown match the series rule as stated by :func:`games_in_series`.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from counter.game import parsing, scoring
from counter.game.refusals import Refusal
from counter.services import deals, matches
from counter.storage import repository
from counter.storage.models import Match, db

from apps import empty_tables

OWNER = "consistency-owner"
NORMAL = scoring.Outcome.NORMAL
NAMES = st.sampled_from(["Ivan", "Maria", "Petar"])

operations = st.lists(
    st.one_of(
        st.tuples(st.just("start"), st.sampled_from([7, 11, 15]), NAMES, NAMES),
        st.tuples(st.just("deal"), st.sampled_from([1, 2]), st.sampled_from(list(scoring.Outcome))),
        st.tuples(st.just("deal"), st.sampled_from([1, 2]), st.just(scoring.Outcome.SCHWARZ)),
        st.tuples(st.just("deal"), st.just(1), st.just(scoring.Outcome.SCHWARZ)),
        st.tuples(st.just("undo")),
        st.tuples(st.just("target"), st.sampled_from([7, 11, 15])),
        st.tuples(st.just("rename"), NAMES, NAMES),
        st.tuples(
            st.just("correct"),
            st.integers(1, 6),
            st.sampled_from([1, 2]),
            st.sampled_from(list(scoring.Outcome)),
        ),
        st.tuples(st.just("delete"), st.integers(1, 6)),
        st.tuples(st.just("rules"), st.sampled_from(list(scoring.FailedClose))),
        st.tuples(st.just("ties"), st.sampled_from(list(scoring.Ties))),
        st.tuples(st.just("tie")),
        st.tuples(st.just("play_on"), st.sampled_from([11, 15])),
        st.tuples(st.just("resume"), st.integers(1, 4)),
        st.tuples(st.just("first_dealer"), st.sampled_from([1, 2])),
        st.tuples(st.just("in_turn"), st.sampled_from(list(scoring.NextDealer))),
        st.tuples(st.just("drop"), st.integers(1, 4)),
    ),
    max_size=60,
)


def games_in_series(
    history: list[tuple[tuple[str, str], int | None]],
) -> list[tuple[int, int]]:
    """The series rule, independently of the SQL that counts it: matches between the
    same two names, in either seat, in the order started; each match shows the wins
    of each name up to and including itself."""
    wins: dict[frozenset[str], dict[str, int]] = {}
    games = []
    for names, winner in history:
        series = wins.setdefault(frozenset(names), {})
        if winner is not None:
            series[names[winner - 1]] = series.get(names[winner - 1], 0) + 1
        games.append((series.get(names[0], 0), series.get(names[1], 0)))
    return games


def apply(operation: tuple[Any, ...]) -> None:
    current = repository.current_id(OWNER)
    who = {"owner": OWNER, "match_id": current}
    try:
        if operation[0] == "start":
            matches.start_match(
                owner=OWNER, target=operation[1], names=parsing.players(operation[2:4])
            )
        elif operation[0] in ("resume", "drop"):
            ids = db.session.scalars(select(Match.id).where(Match.owner == OWNER)).all()
            if len(ids) >= operation[1]:
                action = matches.resume_match if operation[0] == "resume" else matches.delete_match
                action(owner=OWNER, match_id=ids[operation[1] - 1])
        elif current is None:
            return
        elif operation[0] == "deal":
            deals.record_deal(**who, seat=operation[1], outcome=operation[2])
        elif operation[0] == "undo":
            deals.undo_last_deal(**who)
        elif operation[0] == "target":
            matches.change_match(**who, target=operation[1])
        elif operation[0] == "play_on":
            matches.change_match(**who, target=operation[1], play_on=True)
        elif operation[0] == "correct":
            deals.correct_deal(**who, number=operation[1], seat=operation[2], outcome=operation[3])
        elif operation[0] == "delete":
            deals.delete_deal(**who, number=operation[1])
        elif operation[0] == "ties":
            matches.change_match(**who, rules={"ties": operation[1]})
        elif operation[0] == "tie":
            deals.record_deal(**who, seat=None, outcome=scoring.Outcome.TIE)
        elif operation[0] == "rules":
            matches.change_match(**who, rules={"failed_close": operation[1]})
        elif operation[0] == "first_dealer":
            matches.change_match(**who, first_dealer=operation[1])
        elif operation[0] == "in_turn":
            matches.change_match(**who, rules={"next_dealer": operation[1]})
        else:
            matches.change_match(**who, names=parsing.players(operation[1:3]))
    except Refusal:
        pass  # refused: nothing changed, which is part of what is checked


@pytest.mark.slow
@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=operations)
def test_stored_flags_and_games_agree_with_the_rules(app: Flask, history: list[Any]) -> None:
    with app.app_context():
        empty_tables()
        for operation in history:
            apply(operation)
        stored = db.session.scalars(select(Match).where(Match.owner == OWNER).order_by(Match.id))
        expected_winners = []
        for match in stored:
            results = [
                scoring.DealResult(
                    deal.player, scoring.Outcome(deal.outcome), deal.points, deal.rules
                )
                for deal in match.deals
            ]
            for result in results:
                scoring.check_points(result)
            result = scoring.standing(results, match.target)
            assert match.won_by == result.winner
            assert [deal.number for deal in match.deals] == list(range(1, len(match.deals) + 1))
            expected_winners.append(((match.player1, match.player2), result.winner))
        expected_games = games_in_series(expected_winners)
        listed = matches.list_matches(owner=OWNER, per_page=1000).matches[::-1]
        assert [tuple(p.games for p in m.players) for m in listed] == expected_games
        for summary, games in zip(listed, expected_games, strict=True):
            assert summary.id is not None
            full = matches.get_match(owner=OWNER, match_id=summary.id)
            assert tuple(p.games for p in full.players) == games
            assert full.winner == summary.winner
        db.session.rollback()
