"""What the service stores to stay fast agrees with what the rules derive from the deals.

Random sequences of real operations (new matches, deals, undos, target switches,
renames, corrections, deletions) through the service; afterwards every match's
stored winner is the one its deals give, its deals are numbered 1..n, and the
games shown match :func:`scoring.games_in_series`.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from counter import matches, scoring
from counter.models import Deal, Match, db

OWNER = "consistency-owner"
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
    ),
    max_size=60,
)


def apply(operation: tuple[Any, ...]) -> None:
    current = matches.current_match_id(OWNER)
    try:
        if operation[0] == "start":
            matches.start_match(OWNER, operation[1], [operation[2], operation[3]])
        elif current is None:
            return
        elif operation[0] == "deal":
            matches.record_deal(OWNER, current, operation[1], operation[2].value)
        elif operation[0] == "undo":
            matches.undo_last_deal(OWNER, current)
        elif operation[0] == "target":
            matches.change_match(OWNER, current, target=operation[1])
        elif operation[0] == "correct":
            matches.correct_deal(OWNER, current, operation[1], operation[2], operation[3].value)
        elif operation[0] == "delete":
            matches.delete_deal(OWNER, current, operation[1])
        elif operation[0] == "ties":
            matches.change_match(OWNER, current, rules={"ties": operation[1].value})
        elif operation[0] == "tie":
            matches.record_deal(OWNER, current, None, "tie")
        elif operation[0] == "rules":
            matches.change_match(OWNER, current, rules={"failed_close": operation[1].value})
        else:
            matches.change_match(OWNER, current, names=[operation[1], operation[2]])
    except scoring.RuleError:
        pass  # refused: nothing changed, which is part of what is checked


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=operations)
def test_stored_flags_and_games_agree_with_the_rules(app: Flask, history: list[Any]) -> None:
    with app.app_context():
        db.session.execute(Deal.__table__.delete())
        db.session.execute(Match.__table__.delete())
        db.session.commit()
        for operation in history:
            apply(operation)
        stored = db.session.scalars(select(Match).where(Match.owner == OWNER).order_by(Match.id))
        expected_winners = []
        for match in stored:
            result = scoring.standing(
                (
                    scoring.DealResult(d.player, scoring.Outcome(d.outcome), d.points)  # type: ignore[arg-type]
                    for d in match.deals
                ),
                match.target,
            )
            assert match.won_by == result.winner
            assert [deal.number for deal in match.deals] == list(range(1, len(match.deals) + 1))
            expected_winners.append((match.names, result.winner))
        expected_games = scoring.games_in_series(expected_winners)
        listed = matches.list_matches(OWNER, per_page=1000).matches[::-1]
        assert [tuple(p.games for p in m.players) for m in listed] == expected_games
        for summary, games in zip(listed, expected_games, strict=True):
            assert summary.id is not None
            full = matches.get_match(OWNER, summary.id)
            assert tuple(p.games for p in full.players) == games
            assert full.winner == summary.winner
        db.session.rollback()
