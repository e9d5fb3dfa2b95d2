"""bench/local.py without timing: a tiny real run over its aiohttp client, the per-phase
percentiles and timeline buckets, the ``--workers`` pass-through and the ``--think-ms`` option
(the server's process-tree CPU reader is ``_common``'s: tests/bench/test_common.py)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from liars_local.server import LocalServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import local

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tiny_run() -> Iterator[local.Figures]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOT_THINK_MIN_MS", "0")
        patch.setenv("BOT_THINK_MAX_MS", "0")
        with LocalServer(access_log=lambda _: None) as server:
            load = local.Load(games=2, starting_dice=2, max_actions=100, think_ms=(0, 1))
            yield asyncio.run(local.run(server.url, load))


def test_a_tiny_run_plays_every_game_to_its_end_over_the_aiohttp_client(
    tiny_run: local.Figures,
) -> None:
    # the body-less POST /start went through (aiohttp's own octet-stream type would be a 415)
    assert tiny_run.games_finished == 2
    assert tiny_run.actions == len(tiny_run.action_latency_ms) > 0
    assert len(tiny_run.action_sent_at) == len(tiny_run.action_round) == tiny_run.actions
    assert min(tiny_run.action_round) == 1  # the first move is made in round 1
    assert max(tiny_run.action_round) >= 2  # two dice each: the game lasts several rounds


def test_the_watcher_sees_the_push_of_the_versions_the_actions_made(
    tiny_run: local.Figures,
) -> None:
    assert len(tiny_run.push_after_request_ms) > 0
    assert len(tiny_run.push_delay_ms) == len(tiny_run.push_after_request_ms)


def _figures(rows: list[tuple[float, float, int]], started_at: float = 100.0) -> local.Figures:
    """Figures from (latency ms, sent at, round) rows."""
    figures = local.Figures(started_at=started_at)
    for ms, at, rnd in rows:
        figures.action_latency_ms.append(ms)
        figures.action_sent_at.append(at)
        figures.action_round.append(rnd)
    figures.actions = len(rows)
    return figures


def test_the_steady_phase_holds_only_actions_after_the_first_round() -> None:
    rows = [(500.0, 100.0, 1), (400.0, 100.1, 1)] + [(float(i), 101.0, 2) for i in range(1, 101)]
    got = local.phases(_figures(rows))
    assert got.steady_actions == 100
    assert got.steady_p50 == 50.0
    assert got.steady_p99 == 99.0
    assert got.first_round_p99 == 500.0
    assert got.p99 == 400.0  # the whole run's p99 (nearest rank of 102) is a round-1 figure
    assert got.p50 == 51.0


def test_a_run_without_a_second_round_has_no_steady_figures() -> None:
    got = local.phases(_figures([(3.0, 100.0, 1)]))
    assert got.steady_actions == 0
    assert got.steady_p99 != got.steady_p99  # NaN
    assert got.first_round_p99 == 3.0


def test_the_timeline_buckets_actions_by_quarter_second_from_the_start_of_play() -> None:
    rows = [(10.0, 100.01, 1), (30.0, 100.2, 1), (20.0, 100.24, 1), (7.0, 100.8, 2)]
    buckets = local.timeline(_figures(rows, started_at=100.0))
    assert [b.start_s for b in buckets] == [0.0, 0.25, 0.5, 0.75]
    assert [b.count for b in buckets] == [3, 0, 0, 1]
    assert (buckets[0].p50, buckets[0].max) == (20.0, 30.0)
    assert buckets[1].max != buckets[1].max  # an empty bucket: NaN
    assert (buckets[3].p50, buckets[3].max) == (7.0, 7.0)


def test_merging_a_client_process_keeps_every_action_and_the_earliest_start() -> None:
    one = _figures([(1.0, 100.0, 1)], started_at=100.0)
    two = _figures([(2.0, 99.5, 2), (3.0, 99.6, 2)], started_at=99.4)
    one.merge(two)
    assert one.action_latency_ms == [1.0, 2.0, 3.0]
    assert one.action_round == [1, 2, 2]
    assert one.actions == 3
    assert one.started_at == 99.4


def test_workers_go_on_the_server_command_line_only_when_given(tmp_path: Path) -> None:
    plain = local.server_command("py", ROOT, "sqlite", "/data")
    assert plain == [
        "py", "-m", "liars_local.cli", "serve", "--port", "0",
        "--storage", "sqlite", "--data", "/data",
    ]  # fmt: skip
    assert "--workers" not in plain
    assert local.server_command("py", ROOT, "moto", None, workers=3)[-2:] == ["--workers", "3"]


def test_a_compared_tree_without_the_workers_option_runs_without_it(tmp_path: Path) -> None:
    old = tmp_path / "old"
    (old / "liars_local").mkdir(parents=True)
    (old / "liars_local" / "cli.py").write_text('serve.add_argument("--data")\n')
    new = tmp_path / "new"
    (new / "liars_local").mkdir(parents=True)
    (new / "liars_local" / "cli.py").write_text('serve.add_argument("--workers", type=int)\n')
    assert not local.supports_workers(old)
    assert local.supports_workers(new)
    assert local.workers_for(old, 2) is None
    assert local.workers_for(new, 2) == 2
    assert local.workers_for(old, None) is None


def test_think_ms_reads_a_range_and_refuses_a_bad_one() -> None:
    assert local.parse_think_ms("300-1500") == (300, 1500)
    assert local.parse_think_ms("250") == (250, 250)
    for bad in ("", "a-b", "10-5", "-5", "1-2-3"):
        with pytest.raises(argparse.ArgumentTypeError):
            local.parse_think_ms(bad)
    args = local.parser().parse_args(["--think-ms", "20-40", "--seed", "7", "--workers", "2"])
    assert (args.think_ms, args.seed, args.workers) == ((20, 40), 7, 2)
    assert local.parser().parse_args([]).think_ms is None  # saturated by default


def test_think_times_repeat_for_a_seed_and_differ_between_games() -> None:
    def draws(seed: int, game: int) -> list[float]:
        rng = local.think_delays(seed, game, (300, 1500))
        return [rng.uniform(300, 1500) for _ in range(5)]

    assert draws(1, 0) == draws(1, 0)
    assert draws(1, 0) != draws(1, 1)
    assert draws(1, 0) != draws(2, 0)
    assert all(300 <= d <= 1500 for d in draws(3, 4))


def test_the_header_names_the_workers_and_the_pace() -> None:
    args = local.parser().parse_args(["--workers", "2", "--think-ms", "100-200"])
    text = local.table_header(20, 3, 1, args)
    assert "server --workers 2" in text
    assert "think 100-200 ms" in text
    assert "saturated" in local.table_header(20, 1, 1, local.parser().parse_args([]))
