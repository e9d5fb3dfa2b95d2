"""The pure matcher: rating bands that widen with the wait, full tables, bots after the wait."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chalicelib.matchmaking import ANY, Policy, Waiting, bot_level, next_wake_ms, plan

POLICY = Policy(
    wait_ms=20_000, sizes={"poker": 2}, systems=("classic", "wild_stars", "poker", "perudo")
)


def _t(
    n: int, rating: float = 1500, since: int = 0, rules: str = "classic", **kw: object
) -> Waiting:
    return Waiting(f"t{n}", f"u{n}", rules, since, rating, **kw)  # type: ignore[arg-type]


def test_four_close_players_make_a_full_table_at_once() -> None:
    tables = plan([_t(i, 1500 + i) for i in range(4)], 0, POLICY)
    assert len(tables) == 1
    assert {t.user_id for t in tables[0].tickets} == {"u0", "u1", "u2", "u3"}
    assert tables[0].bots == 0


def test_three_players_wait_until_the_wait_is_over_then_get_a_bot() -> None:
    waiting = [_t(i, 1500) for i in range(3)]
    assert plan(waiting, 19_999, POLICY) == []
    tables = plan(waiting, 20_000, POLICY)
    assert len(tables) == 1
    assert len(tables[0].tickets) == 3 and tables[0].bots == 1


def test_far_ratings_do_not_meet_at_first_but_do_once_the_band_has_widened() -> None:
    waiting = [_t(0, 1000), _t(1, 1400, since=0)]
    small = Policy(wait_ms=60_000, sizes={"classic": 2}, systems=("classic",))
    assert plan(waiting, 0, small) == []  # 400 apart, band 100
    # band 100 + 25/s: 400 after 12 s
    assert plan(waiting, 11_000, small) == []
    tables = plan(waiting, 12_000, small)
    assert [len(t.tickets) for t in tables] == [2]


def test_closest_ratings_are_seated_together() -> None:
    waiting = [_t(0, 1500), _t(1, 1510), _t(2, 1900), _t(3, 1520), _t(4, 1530), _t(5, 1495)]
    tables = plan(waiting, 0, POLICY)
    assert len(tables) == 1
    assert {t.user_id for t in tables[0].tickets} == {"u0", "u1", "u3", "u5"}


def test_any_sits_at_a_table_of_any_system() -> None:
    waiting = [_t(0, rules="poker"), _t(1, rules=ANY)]
    tables = plan(waiting, 0, POLICY)
    assert [(t.rules, len(t.tickets), t.bots) for t in tables] == [("poker", 2, 0)]


def test_different_systems_never_mix() -> None:
    waiting = [_t(0, rules="poker"), _t(1, rules="classic")]
    assert plan(waiting, 0, POLICY) == []
    tables = plan(waiting, 20_000, POLICY)
    assert sorted((t.rules, len(t.tickets)) for t in tables) == [("classic", 1), ("poker", 1)]


def test_a_group_waits_for_its_members_and_mixes_with_nobody() -> None:
    group = [_t(0, group="r1", group_size=3), _t(1, group="r1", group_size=3)]
    strangers = [_t(5), _t(6)]
    assert plan(group + strangers, 1_000, POLICY) == []
    tables = plan([*group, _t(2, group="r1", group_size=3), *strangers], 1_000, POLICY)
    assert len(tables) == 1
    assert {t.user_id for t in tables[0].tickets} == {"u0", "u1", "u2"}
    assert tables[0].bots == 1


def test_an_incomplete_group_starts_with_bots_after_the_wait() -> None:
    group = [_t(0, group="r1", group_size=3), _t(1, group="r1", group_size=3)]
    tables = plan(group, 20_000, POLICY)
    assert [(len(t.tickets), t.bots) for t in tables] == [(2, 2)]


def test_bot_level_follows_the_mean_rating() -> None:
    assert bot_level([1200, 1300]) == "easy"
    assert bot_level([1500]) == "medium"
    assert bot_level([1700, 1650]) == "strong"


def test_next_wake_is_the_oldest_ticket_plus_the_wait() -> None:
    assert next_wake_ms([_t(0, since=500), _t(1, since=100)], POLICY) == 20_100
    assert next_wake_ms([], POLICY) is None


waiting_lists = st.lists(
    st.builds(
        _t,
        n=st.integers(0, 30),
        rules=st.sampled_from(["classic", "poker", ANY]),
        since=st.integers(0, 60_000),
        rating=st.floats(800, 2200),
    ),
    max_size=20,
    unique_by=lambda t: t.user_id,
)


@settings(max_examples=60, deadline=None)
@given(waiting_lists, st.integers(0, 90_000))
def test_every_ticket_and_user_is_seated_at_most_once(waiting: list[Waiting], now: int) -> None:
    tables = plan(waiting, now, POLICY)
    ids = [t.ticket_id for table in tables for t in table.tickets]
    users = [t.user_id for table in tables for t in table.tickets]
    assert len(ids) == len(set(ids))
    assert len(users) == len(set(users))
    for table in tables:
        assert len(table.tickets) + table.bots == POLICY.size(table.rules)
        assert all(t.rules in (table.rules, ANY) for t in table.tickets)
    # Nobody past the wait is left waiting.
    seated = set(ids)
    assert not [t for t in waiting if POLICY.expired(t, now) and t.ticket_id not in seated]
