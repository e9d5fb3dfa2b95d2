"""bench/load.py at tiny size: a real run on the local server loses nothing, and the checker
flags every kind of fabricated loss in that run's own evidence."""

from __future__ import annotations

import asyncio
import copy
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.engine.systems import SYSTEMS
from liars_local.server import LocalServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import load


@pytest.fixture(scope="module")
def report() -> Iterator[load.Report]:
    with pytest.MonkeyPatch.context() as patch:
        # bots answer at once (their think time only stretches the game in table time)
        patch.setenv("BOT_THINK_MIN_MS", "0")
        patch.setenv("BOT_THINK_MAX_MS", "0")
        yield from _run()


def _run() -> Iterator[load.Report]:
    with LocalServer(access_log=lambda _: None) as server:
        cfg = load.Config(
            base_url=server.url,
            ws_url=server.ws_url,
            rooms=len(SYSTEMS),
            pace=(0.0, 0.02),
            dice=1,
            ramp_seconds=0.0,
            room_timeout=60.0,
            two_human_share=0.5,
            spectator_share=1.0,
            reconnect_share=1.0,
            ticker_share=1.0,
            timeout_share=0.0,
            reconnect_after=(1, 1),
            rules=tuple(SYSTEMS),
        )
        yield asyncio.run(load.run_load(cfg))


def _played(report: load.Report) -> load.RoomRecord:
    """A room whose evidence holds accepted actions (copied: tests fabricate losses in it)."""
    rec = next(r for r in report.records if any(w.kind == "action" for w in r.writes))
    return copy.deepcopy(rec)


def _kinds(rec: load.RoomRecord) -> set[str]:
    return {p.kind for p in load.check_room(rec)}


def test_a_tiny_load_run_finishes_every_game_and_loses_nothing(report: load.Report) -> None:
    assert len(report.records) == len(SYSTEMS)
    assert report.problems == []
    assert report.lost_updates == 0
    assert {r.plan.rules for r in report.records} == set(SYSTEMS)
    for rec in report.records:
        assert rec.final is not None and rec.final["status"] == "finished"
        assert rec.reconnects == 1
        assert any(c.spectator and c.received for c in rec.conns)
    assert sum(r.ticks for r in report.records) > 0
    assert sum(w.kind == "action" for r in report.records for w in r.writes) > 0


def test_two_accepted_writes_with_one_version_are_a_lost_update(report: load.Report) -> None:
    rec = _played(report)
    first = next(w for w in rec.writes if w.kind == "action")
    rec.writes.append(copy.deepcopy(first))
    problems = load.check_room(rec)
    assert "shared_version" in {p.kind for p in problems}
    assert any(p.lost for p in problems)


def test_a_version_missing_from_a_connection_is_a_push_gap(report: load.Report) -> None:
    rec = _played(report)
    conn = max(rec.conns, key=lambda c: len(c.received))
    versions = sorted({v for _, v, _ in conn.received})
    middle = versions[len(versions) // 2]
    conn.received = [m for m in conn.received if m[1] != middle]
    assert "push_gap" in _kinds(rec)


def test_an_accepted_action_absent_from_its_push_is_lost(report: load.Report) -> None:
    rec = _played(report)
    write = next(w for w in rec.writes if w.kind == "action")
    for conn in rec.conns:
        if write.version in conn.events:
            conn.events[write.version] = [
                e for e in conn.events[write.version] if e.get("by") != "player"
            ]
    assert "lost_action" in _kinds(rec)


def test_a_move_missing_from_its_rounds_reveal_is_lost(report: load.Report) -> None:
    rec = next(
        copy.deepcopy(r)
        for r in report.records
        if "bid" in SYSTEMS[r.plan.rules].turn_actions and any(w.kind == "action" for w in r.writes)
    )
    write = next(w for w in rec.writes if w.kind == "action")
    assert write.round is not None and write.action is not None
    assert "lost_action" not in _kinds(rec)
    # the round's reveal, as if the server had dropped the move: no bids, someone else called
    rec.reveals[write.round] = {
        "round": write.round,
        "challenger_id": "nobody",
        "rows": [{"player_id": write.player_id, "bids": []}],
    }
    assert "lost_action" in _kinds(rec)


def test_a_final_version_beyond_the_last_push_is_a_mismatch(report: load.Report) -> None:
    rec = _played(report)
    assert rec.final is not None
    rec.final["version"] += 1
    assert {"version_mismatch", "push_gap"} <= _kinds(rec)


def test_the_same_push_twice_on_one_connection_is_a_duplicate(report: load.Report) -> None:
    rec = _played(report)
    conn = next(c for c in rec.conns if any(has for _, _, has in c.received))
    pushed = next(m for m in conn.received if m[2])
    conn.received.append(pushed)
    assert "duplicate_push" in _kinds(rec)


def test_a_5xx_and_an_unfinished_game_are_failures_but_not_lost_updates(
    report: load.Report,
) -> None:
    rec = _played(report)
    rec.server_errors.append("POST /rooms/x/actions: 500")
    assert rec.final is not None
    rec.final["status"] = "playing"
    problems = load.check_room(rec)
    assert {"server_error", "unfinished"} <= {p.kind for p in problems}
    assert not any(p.lost for p in problems)


def test_the_rules_mix_holds_every_registered_system() -> None:
    names = [name for name, _ in load.RULES_MIX]
    assert sorted(names) == sorted(SYSTEMS) and len(names) == len(SYSTEMS)
    assert abs(sum(share for _, share in load.RULES_MIX) - 1.0) < 1e-9
    plans = [load.make_plan(i, load.Config(base_url="", ws_url="")) for i in range(400)]
    assert {plan.rules for plan in plans} == set(SYSTEMS)
