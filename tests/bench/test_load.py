"""bench/load.py at tiny size: a real run on the local server loses nothing, and the checker
flags every kind of fabricated loss in that run's own evidence; the server's request log of
that run, the open-connection gauge, the server's process readings on a real child process,
the row's arithmetic, and the rule mix drawn from the engine's registry."""

from __future__ import annotations

import asyncio
import copy
import math
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import chalicelib.engine.systems as systems
from chalicelib.engine.systems import SYSTEMS
from liars_local.server import LocalServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import _common
import load


@dataclass
class Run:
    """The tiny run's report, the server's request log of it, and the connection gauge."""

    report: load.Report
    log: _common.ServerLog
    gauge: load.Gauge


@pytest.fixture(scope="module")
def run() -> Iterator[Run]:
    with pytest.MonkeyPatch.context() as patch:
        # bots answer at once (their think time only stretches the game in table time)
        patch.setenv("BOT_THINK_MIN_MS", "0")
        patch.setenv("BOT_THINK_MAX_MS", "0")
        yield from _run()


@pytest.fixture(scope="module")
def report(run: Run) -> load.Report:
    return run.report


def _run() -> Iterator[Run]:
    log, gauge = _common.ServerLog(), load.Gauge()
    with LocalServer(access_log=log.feed) as server:
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
        yield Run(asyncio.run(load.run_load(cfg, gauge)), log, gauge)


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
    assert "perudo" in names
    assert abs(sum(share for _, share in load.RULES_MIX) - 1.0) < 1e-9
    # the default run (200 rooms, seed 1) plays every registered system
    cfg = load.Config(base_url="", ws_url="")
    plans = [load.make_plan(i, cfg) for i in range(cfg.rooms)]
    assert {plan.rules for plan in plans} == set(SYSTEMS)


def test_a_newly_registered_system_joins_the_mix(monkeypatch: pytest.MonkeyPatch) -> None:
    # the mix is read from the registry, not listed: a system added there is played too
    monkeypatch.setattr(systems, "SYSTEMS", {**SYSTEMS, "newcomer": SYSTEMS["classic"]})
    assert "newcomer" in dict(_common.rules_mix(0.7))


def test_the_server_log_of_the_run_holds_each_action_request_once(run: Run) -> None:
    sent = sum(len(r.latencies) for r in run.report.records)
    others = sum(len(r.other_latencies) for r in run.report.records)
    assert sent > 0
    assert len(run.log.action_ms) == sent
    # the client's other requests, plus none of the WebSocket lines
    assert len(run.log.other_ms) == others
    assert run.log.unparsed > 0  # the WebSocket connections' lines
    assert all(ms >= 0 for ms in run.log.action_ms)


def test_the_clients_event_loop_lag_is_sampled_through_the_run(run: Run) -> None:
    lags = run.report.loop_lag_ms
    # one sample per probe interval, about (the run lasts a second or more)
    assert 1 <= len(lags) <= run.report.elapsed / load.LAG_PROBE_SECONDS + 1
    assert all(lag >= 0 for lag in lags)


def test_the_gauge_saw_the_connections_open_and_all_closed(run: Run) -> None:
    conns = sum(len(r.conns) for r in run.report.records)
    assert 1 <= run.gauge.peak <= conns
    # every room had a spectator and a host connected at once
    assert run.gauge.peak >= 2
    assert run.gauge.now == 0


def test_a_row_divides_the_servers_cpu_and_memory_by_what_the_run_did(run: Run) -> None:
    report = run.report
    actions = sum(w.kind == "action" for r in report.records for w in r.writes)
    pushes = sum(len(c.received) for r in report.records for c in r.conns)
    server = load.ServerFigures(
        cpu_seconds=3.0,
        idle_rss=100 * 2**20,
        peak_rss=120 * 2**20,
        processes=3,
        action_ms=[1.0] * 98 + [50.0, 70.0],
        other_ms=[2.0],
        load_average=1.5,
    )
    cfg = load.Config(base_url="", ws_url="", rooms=len(report.records))
    row = load.make_row(report, cfg, "", server, client_cpu=1.5, open_peak=8)
    assert row.actions == actions and row.rooms == len(report.records)
    assert row.server_cpu_ms_per_action == pytest.approx(3000 / actions)
    assert row.server_cpu_ms_per_push == pytest.approx(3000 / pushes)
    assert row.client_cpu_ms_per_action == pytest.approx(1500 / actions)
    assert row.rss_kb_per_connection == pytest.approx(20 * 1024 / 8)
    assert (row.server_p50, row.server_p99) == (1.0, 50.0)
    assert row.lost == 0 and row.carried == (row.p99 <= load.LATENCY_TARGET_MS)
    without = load.make_row(report, cfg, "", None, client_cpu=1.5, open_peak=8)
    assert math.isnan(without.server_cpu_ms_per_action)
    lines = load.table_lines([row, load.make_row(report, cfg, "@before", server, 1.5, 8)])
    assert lines[0] == load.TABLE_HEAD
    assert lines[1].count("|") == lines[0].count("|") == lines[2].count("|")
    assert sum(line.startswith(f"| {row.rooms} |") for line in lines) == 2
    assert any("now / before: actions/s ×1.00" in line for line in lines)
    # two sizes of one tree: the memory one more connection adds, fixed growth left out
    bigger = copy.copy(row)
    bigger.rooms, bigger.open_peak = row.rooms * 2, 28
    bigger.idle_rss_mb, bigger.peak_rss_mb = row.idle_rss_mb + 5, row.peak_rss_mb + 15
    (marginal,) = [line for line in load.table_lines([row, bigger]) if "between runs" in line]
    assert f"{10 * 1024 / 20:.0f} KB" in marginal


def test_a_lost_update_or_a_slow_p99_is_not_carried(run: Run) -> None:
    cfg = load.Config(base_url="", ws_url="", rooms=len(run.report.records))
    row = load.make_row(run.report, cfg, "", None, client_cpu=0.0, open_peak=1)
    row.p99 = load.LATENCY_TARGET_MS
    assert row.carried
    row.p99 = load.LATENCY_TARGET_MS + 0.1
    assert not row.carried
    row.p99, row.problems, row.lost = 1.0, 1, 1
    assert not row.carried


def test_the_search_doubles_until_a_failure_then_halves_the_gap() -> None:
    assert load.next_search([], [], 200, 4000) == 200
    assert load.next_search([200], [], 200, 4000) == 400
    assert load.next_search([200, 400, 800, 1600], [], 200, 3000) is None  # 3200 > the most
    assert load.next_search([200, 400], [800], 200, 4000) == 600
    assert load.next_search([200, 400, 600], [800], 200, 4000) == 700
    assert load.next_search([200, 400, 600, 700], [800, 750], 200, 4000) is None  # within 10 %
    assert load.next_search([], [200], 200, 4000) == 100


BUSY = textwrap.dedent(
    """
    import os, sys, time

    worker = os.fork()
    if worker == 0:  # a worker: waits, then burns CPU and grows
        sys.stdin.readline()
        end = time.process_time() + 0.4
        while time.process_time() < end:
            pass
        block = bytearray(40 * 1024 * 1024)
        for i in range(0, len(block), 4096):
            block[i] = 1
        print("done", flush=True)
        sys.stdin.readline()
        os._exit(0)
    os.waitpid(worker, 0)  # the supervisor only waits
    """
)


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads Linux /proc")
def test_the_server_watch_reads_the_cpu_and_memory_of_every_process_of_the_tree() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", BUSY], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        log = _common.ServerLog()
        log.feed("POST /rooms/r1/actions 200 9.0ms\n")  # before the start: not the run's
        for _ in range(1000):  # until the worker is forked (bounded)
            if len(_common.process_tree(proc.pid)) == 2:
                break
            time.sleep(0.01)
        watch = load.ServerWatch(proc.pid, log, interval=0.05)
        watch.start()
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "done\n"
        log.feed("POST /rooms/r1/actions 200 3.0ms\n")
        figures = watch.stop(settle=0.0)
        assert figures.processes == 2
        assert figures.cpu_seconds >= 0.4 - 0.05  # the worker's burn, to a tick or so
        assert figures.peak_rss - figures.idle_rss >= 38 * 2**20
        assert figures.action_ms == [3.0]
        proc.stdin.write("\n")
        proc.stdin.flush()
    finally:
        proc.wait(30)


def test_a_view_of_the_same_version_does_not_wake_the_play_loop() -> None:
    # the push of a human's own action may come after its answer: no reason to read again
    cfg = load.Config(base_url="", ws_url="")
    room = load.RoomRun(cfg, None, load.make_plan(0, cfg))  # type: ignore[arg-type]
    human = load.Human(room, 0, "token", steady=True)
    human.take({"version": 5, "me": {}, "game": None})
    assert human.changed.is_set()
    human.changed.clear()
    human.take({"version": 5, "me": {"player_id": "p"}, "game": None})
    assert not human.changed.is_set()
    assert human.view["me"] == {"player_id": "p"}  # kept: the same version, the newest copy
    human.take({"version": 4, "me": {}, "game": None})
    assert not human.changed.is_set() and human.view["version"] == 5
    human.take({"version": 6, "me": {}, "game": None})
    assert human.changed.is_set() and human.view["version"] == 6
