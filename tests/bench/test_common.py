"""bench/_common.py: the helpers every bench shares (percentiles, DynamoDB's item size, the
rule systems from the engine's registry, the server's request log, and the CPU time and
resident memory of a process tree: a fake /proc and real child processes)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from chalicelib.engine.model import Settings
from chalicelib.engine.systems import DEFAULT_RULES, SYSTEMS, rule_system

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import _common


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert _common.percentile(values, 50) == 50.0
    assert _common.percentile(values, 99) == 99.0
    assert _common.percentile([3.0], 99) == 3.0
    assert math.isnan(_common.percentile([], 50))


def test_numbers_count_their_significant_digits_only() -> None:
    # DynamoDB: about 1 byte per two significant digits, plus 1; leading and trailing zeros
    # are trimmed, sign and decimal point are not digits.
    assert _common.item_size({"n": {"N": "12345"}}) == 1 + 4
    assert _common.item_size({"n": {"N": "1500"}}) == 1 + 2  # "15"
    assert _common.item_size({"n": {"N": "-0.0070"}}) == 1 + 2  # "7"
    assert _common.item_size({"n": {"N": "0"}}) == 1 + 2


def test_lists_and_maps_count_their_overhead_and_elements() -> None:
    listed = {"l": {"L": [{"S": "ab"}, {"BOOL": True}]}}
    assert _common.item_size(listed) == 1 + 3 + (1 + 2) + (1 + 1)
    mapped = {"m": {"M": {"k": {"S": "v"}}}}
    assert _common.item_size(mapped) == 1 + 3 + (1 + 1 + 1)
    assert _common.item_size(None) == 0


def test_every_system_starts_with_the_count_its_settings_ask_for() -> None:
    for name in SYSTEMS:
        settings = _common.count_settings(name, 2)
        assert settings["rules"] == name
        room_settings = Settings.of(**settings)
        assert rule_system(name).starting_count(room_settings) == 2


def test_a_count_a_system_does_not_offer_becomes_the_nearest_it_does() -> None:
    for name, system in SYSTEMS.items():
        setting = _common.count_setting(name)
        choices = system.setting_choices.get(setting)
        if choices:
            too_many = max(choices) + 10
            assert _common.count_settings(name, too_many)[setting] == max(choices)


def test_the_mix_gives_the_default_its_share_and_the_others_alike() -> None:
    mix = dict(_common.rules_mix(0.7))
    assert set(mix) == set(SYSTEMS) and mix[DEFAULT_RULES] == 0.7
    others = {share for name, share in mix.items() if name != DEFAULT_RULES}
    assert len(others) == 1 and math.isclose(sum(mix.values()), 1.0)


def _write_stat(root: Path, pid: int, ppid: int, times: tuple[int, int, int, int]) -> None:
    utime, stime, cutime, cstime = times
    (root / str(pid)).mkdir()
    # the command name may hold spaces and a ")"
    (root / str(pid) / "stat").write_text(
        f"{pid} (py thon) x) S {ppid} {pid} {pid} 0 -1 4194560 100 0 0 0"
        f" {utime} {stime} {cutime} {cstime} 20 0 3 0 1000 1000000 100\n"
    )


def test_the_tree_cpu_sums_the_server_its_descendants_and_their_reaped_children(
    tmp_path: Path,
) -> None:
    tick = os.sysconf("SC_CLK_TCK")
    _write_stat(tmp_path, 10, 1, (100, 50, 7, 3))  # the server; reaped children: 10 ticks
    _write_stat(tmp_path, 11, 10, (200, 20, 0, 0))  # a worker
    _write_stat(tmp_path, 12, 11, (5, 5, 0, 0))  # a worker's child
    _write_stat(tmp_path, 20, 1, (999, 999, 999, 999))  # not in the tree
    _write_stat(tmp_path, 21, 20, (999, 0, 0, 0))  # nor its child
    (tmp_path / "self").mkdir()  # non-numeric entries are skipped
    assert sorted(_common.process_tree(10, tmp_path)) == [10, 11, 12]
    assert _common.tree_cpu_seconds(10, tmp_path) == pytest.approx((160 + 220 + 10) / tick)
    assert _common.cpu_seconds(10, tmp_path) == pytest.approx(150 / tick)


def test_the_tree_cpu_of_a_process_that_is_gone_is_nan(tmp_path: Path) -> None:
    value = _common.tree_cpu_seconds(4242, tmp_path)
    assert value != value


BURN = textwrap.dedent(
    """
    import os, sys, time

    def burn(seconds):
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass

    reaped = os.fork()
    if reaped == 0:
        burn(0.3)
        os._exit(0)
    os.waitpid(reaped, 0)  # exited and reaped: its CPU is in our cutime now
    living = os.fork()
    if living == 0:
        burn(0.3)
        print("burnt", flush=True)
        time.sleep(60)
        os._exit(0)
    sys.stdin.readline()
    os.kill(living, 9)
    """
)


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads Linux /proc")
def test_the_tree_cpu_counts_a_living_child_and_a_reaped_one_of_a_real_process() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", BURN],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline() == "burnt\n"
        assert len(_common.process_tree(proc.pid)) == 2
        own = _common.cpu_seconds(proc.pid)
        whole = _common.tree_cpu_seconds(proc.pid)
        tick = 1 / os.sysconf("SC_CLK_TCK")
        # two children burnt 0.3 s of CPU each; the parent only started them
        assert whole - own >= 0.6 - 2 * tick
        proc.stdin.write("\n")
        proc.stdin.flush()
    finally:
        proc.wait(30)


def _write_status(root: Path, pid: int, rss_kb: int | None) -> None:
    memory = f"VmPeak:\t  900000 kB\nVmRSS:\t  {rss_kb} kB\n" if rss_kb is not None else ""
    (root / str(pid) / "status").write_text(f"Name:\tpython\nState:\tS\n{memory}Threads:\t3\n")


def test_the_tree_rss_sums_the_living_members_of_the_tree(tmp_path: Path) -> None:
    _write_stat(tmp_path, 10, 1, (0, 0, 0, 0))  # the supervisor
    _write_stat(tmp_path, 11, 10, (0, 0, 0, 0))  # two workers
    _write_stat(tmp_path, 12, 10, (0, 0, 0, 0))
    _write_stat(tmp_path, 13, 10, (0, 0, 0, 0))  # a zombie: no memory lines
    _write_stat(tmp_path, 20, 1, (0, 0, 0, 0))  # not in the tree
    for pid, kb in ((10, 30_000), (11, 50_000), (12, 70_000), (13, None), (20, 999_999)):
        _write_status(tmp_path, pid, kb)
    assert _common.rss_bytes(11, tmp_path) == 50_000 * 1024
    assert _common.rss_bytes(13, tmp_path) is None
    assert _common.tree_rss_bytes(10, tmp_path) == (150_000 * 1024, 3)
    assert _common.tree_rss_bytes(4242, tmp_path) == (0, 0)


GROW = textwrap.dedent(
    """
    import os, sys

    child = os.fork()
    if child == 0:
        print("small", flush=True)
        sys.stdin.readline()
        block = bytearray(80 * 1024 * 1024)  # zero pages are not resident until written
        for i in range(0, len(block), 4096):
            block[i] = 1
        print("grown", flush=True)
        sys.stdin.readline()
        os._exit(0)
    os.waitpid(child, 0)  # only the child reads stdin
    """
)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads Linux /proc")
def test_the_tree_rss_sees_a_childs_memory_grow() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", GROW], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline() == "small\n"
        before, members = _common.tree_rss_bytes(proc.pid)
        assert members == 2
        proc.stdin.write("\n")  # the child reads it and grows; the parent waits for the next
        proc.stdin.flush()
        assert proc.stdout.readline() == "grown\n"
        after, _ = _common.tree_rss_bytes(proc.pid)
        assert after - before >= 78 * 1024 * 1024
        parent = _common.rss_bytes(proc.pid)
        assert parent is not None and after - parent >= 78 * 1024 * 1024  # the child's part
        proc.stdin.write("\n")
        proc.stdin.flush()
    finally:
        proc.wait(30)


#: Lines as ``liars-dice serve`` prints them (copied from a run: requests and WebSocket lines).
LOG_LINES = """\
open http://127.0.0.1:41234/
POST /auth/guest 201 4.2ms
POST /rooms 201 12.9ms
POST /rooms/r_7Hq2xk/bots 201 6.0ms
POST /rooms/r_7Hq2xk/actions 200 3.1ms
POST /rooms/r_7Hq2xk/actions 409 1.4ms
WS /ws 101 2.2ms u_abc c_0123
GET /rooms/r_7Hq2xk 200 2.5ms
POST /rooms/r_7Hq2xk/actions/undo 404 0.3ms
WS /ws closed 3001.0ms c_0123
"""


def test_the_server_log_parts_action_times_from_the_others() -> None:
    log = _common.ServerLog()
    mark = log.mark()
    for line in LOG_LINES.splitlines(keepends=True):
        log.feed(line)
    assert log.action_ms == [3.1, 1.4]
    assert log.other_ms == [4.2, 12.9, 6.0, 2.5, 0.3]
    assert log.status == {200: 2, 201: 3, 409: 1, 404: 1}
    assert log.unparsed == 3  # the URL line and the two WebSocket lines
    log.feed("POST /rooms/r_x/actions 200 9.5ms\n")
    assert log.since(mark) == ([3.1, 1.4, 9.5], [4.2, 12.9, 6.0, 2.5, 0.3])
    assert log.since(log.mark()) == ([], [])
