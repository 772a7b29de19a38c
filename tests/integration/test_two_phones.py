"""Two phones on one key, at random: taps queued on each, sent in any order, retried,
undone, each phone's view of the match as late as it may be. Whatever happens, a deal is
recorded only after exactly the deals its phone knew of, a tap is never recorded twice,
and a tap is never lost without its player choosing: it is recorded, or its player said
it was the deal the other phone recorded.
"""

from __future__ import annotations

import contextlib
import itertools
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from counter.game import scoring
from counter.game.match import DealsChanged
from counter.game.refusals import Refusal
from counter.services import deals, matches

from apps import empty_tables

OWNER = "two-phones"
PHONES = st.sampled_from([0, 1])

operations = st.lists(
    st.one_of(
        st.tuples(st.just("tap"), PHONES, st.sampled_from([1, 2])),
        st.tuples(st.just("send"), PHONES, st.booleans()),  # the answer: same deal, or add mine
        st.tuples(st.just("retry"), PHONES),
        st.tuples(st.just("look"), PHONES),
        st.tuples(st.just("undo"), PHONES),
    ),
    max_size=50,
)


@dataclass
class Tap:
    request_id: str
    seat: int
    after: int


@dataclass
class Phone:
    known: int = 0  # the deals this phone last saw the match have
    queue: list[Tap] = field(default_factory=list)
    last_sent: Tap | None = None


@dataclass
class Ledger:
    """What happened to every tap, as the phones saw it."""

    tapped: int = 0
    recorded: list[str] = field(default_factory=list)
    same_as_other: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # the match was over: named to the player
    waiting: int = 0  # still in a phone's outbox at the end


def play(match_id: int, history: list[Any]) -> Ledger:
    phones = [Phone(), Phone()]
    ledger = Ledger()
    ids = (f"tap-{number}" for number in itertools.count())
    who = {"owner": OWNER, "match_id": match_id}

    def count() -> int:
        return len(matches.get_match(**who).deals or ())

    for operation in history:
        phone = phones[operation[1]]
        if operation[0] == "tap":
            after = phone.known + len(phone.queue)
            phone.queue.append(Tap(next(ids), operation[2], after))
            ledger.tapped += 1
        elif operation[0] == "send" and phone.queue:
            tap = phone.queue[0]
            try:
                view, new = deals.record_deal(
                    **who,
                    seat=tap.seat,  # type: ignore[arg-type]
                    outcome=scoring.Outcome.NORMAL,
                    request_id=tap.request_id,
                    after=tap.after,
                )
            except DealsChanged:
                now = count()
                shift = now - tap.after
                add_mine = operation[2]
                for later in phone.queue[1:]:
                    later.after += shift if add_mine else shift - 1
                if add_mine:
                    tap.after = now
                else:
                    phone.queue.pop(0)
                    ledger.same_as_other.append(tap.request_id)
                phone.known = now
                continue
            except Refusal:
                phone.queue.pop(0)
                ledger.refused.append(tap.request_id)
                continue
            assert view.deals is not None
            if new:
                assert view.deals[-1].number == tap.after + 1  # after exactly what it knew
                ledger.recorded.append(tap.request_id)
            phone.queue.pop(0)
            phone.last_sent = tap
            phone.known = len(view.deals)
        elif operation[0] == "retry" and phone.last_sent is not None:
            tap = phone.last_sent
            before = count()
            try:
                _view, new = deals.record_deal(
                    **who,
                    seat=tap.seat,  # type: ignore[arg-type]
                    outcome=scoring.Outcome.NORMAL,
                    request_id=tap.request_id,
                    after=tap.after,
                )
            except Refusal:
                new = False
            assert not new  # a retried tap never counts twice
            assert count() <= before
        elif operation[0] == "look" and not phone.queue:
            phone.known = count()
        elif operation[0] == "undo" and not phone.queue:
            with contextlib.suppress(Refusal):  # nothing to undo
                deals.undo_last_deal(**who)
            phone.known = count()
    ledger.waiting = sum(len(phone.queue) for phone in phones)
    return ledger


@pytest.mark.slow
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=operations)
def test_two_phones_never_count_a_tap_twice_nor_lose_one_unasked(
    app: Flask, history: list[Any]
) -> None:
    with app.app_context():
        empty_tables()
        match, _new = matches.start_match(owner=OWNER, target=15)
        assert match.id is not None
        ledger = play(match.id, history)
        stored = matches.get_match(owner=OWNER, match_id=match.id).deals or ()
        assert [deal.number for deal in stored] == list(range(1, len(stored) + 1))
        ids = [deal.request_id for deal in stored]
        assert len(ids) == len(set(ids))  # no tap recorded twice
        assert set(ids) <= set(ledger.recorded)
        accounted = ledger.recorded + ledger.same_as_other + ledger.refused
        assert len(accounted) == len(set(accounted))  # each tap met one fate
        assert len(accounted) + ledger.waiting == ledger.tapped  # and none went unnoticed
