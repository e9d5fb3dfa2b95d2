"""What the benchmarks share: percentiles, the local server as a child process (its request log,
and the CPU time and resident memory of its whole process tree from ``/proc``), DynamoDB's item
size, and the room settings that give a rule system its starting count.

Imported as ``_common`` (each bench runs with ``bench/`` first on ``sys.path``, as a script or
as tests import it). Only the standard library at import time: ``bench/local.py`` stays a lean
client, and the engine is imported only by ``count_settings``.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

#: A request-log line of an action: ``POST /rooms/<id>/actions 200 3.1ms``.
ACTION_LOG = re.compile(r"^POST /rooms/[^/ ]+/actions \d+ ([0-9.]+)ms")
#: Any HTTP request-log line of the local server: ``<METHOD> <path> <status> <ms>ms``.
ACCESS_LOG = re.compile(r"^([A-Z]+) (/\S*) (\d{3}) ([0-9.]+)ms$")
#: The server's first lines hold ``open http://127.0.0.1:<port>/``; a few notes may come first.
URL_LINE = re.compile(r"open (http://[^/\s]+)/")
URL_LINES = 20


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of ``values``; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered)) - 1))
    return ordered[rank]


# --- the local server as a child process ------------------------------------------------------


class ServerLog:
    """What the server's request log says of each HTTP request: its own time, in ms, from the
    request's arrival at the app to its answer (waiting for a worker thread included; HTTP
    parsing and the client's side not). Actions (``POST /rooms/<id>/actions``) apart from the
    rest; WebSocket lines (``WS /ws ...``) and anything else are counted as not parsed."""

    def __init__(self) -> None:
        self.action_ms: list[float] = []
        self.other_ms: list[float] = []
        self.status: dict[int, int] = {}
        self.unparsed = 0

    def feed(self, line: str) -> None:
        """Note one line of the log (list appends: safe from the one draining thread)."""
        found = ACCESS_LOG.match(line.strip())
        if found is None:
            self.unparsed += 1
            return
        method, path, status, ms = found.groups()
        code = int(status)
        self.status[code] = self.status.get(code, 0) + 1
        if method == "POST" and ACTION_LOG.match(f"{method} {path} {status} {ms}ms"):
            self.action_ms.append(float(ms))
        else:
            self.other_ms.append(float(ms))

    def mark(self) -> tuple[int, int]:
        """Where the log is now (actions, others): ``since`` reads what came after."""
        return len(self.action_ms), len(self.other_ms)

    def since(self, mark: tuple[int, int]) -> tuple[list[float], list[float]]:
        """The action and other times logged after ``mark``."""
        return self.action_ms[mark[0] :], self.other_ms[mark[1] :]


def drain(
    stream: IO[str], server_ms: list[float] | None = None, server_log: ServerLog | None = None
) -> None:
    """Read the child's request log (so it never blocks on a full pipe), noting request times.

    With ``server_ms``, the server's own time of each ``POST .../actions`` is appended: from its
    arrival at the app to its answer (waiting for a worker thread included; HTTP parsing and
    the client's side not). With ``server_log``, every line is fed to it.
    """
    for line in stream:
        if server_log is not None:
            server_log.feed(line)
        found = ACTION_LOG.match(line) if server_ms is not None else None
        if found and server_ms is not None:
            server_ms.append(float(found.group(1)))


def start_server(
    command: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    server_ms: list[float] | None = None,
    server_log: ServerLog | None = None,
) -> tuple[subprocess.Popen[str], str]:
    """Start ``command`` (a ``liars-dice serve --port 0`` on loopback) in ``cwd``; return the
    child and its URL, read from its first lines. Its output is drained on a thread (see
    ``drain``); a child that prints no URL is killed and the bench stops."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = ""
    for _ in range(URL_LINES):
        line = proc.stdout.readline()
        match = URL_LINE.search(line)
        if match:
            threading.Thread(
                target=drain, args=(proc.stdout, server_ms, server_log), daemon=True
            ).start()
            return proc, match.group(1)
        if not line:
            break
    proc.kill()
    raise SystemExit(f"the server did not start: {line!r}")


# --- a process tree's CPU time and memory, from /proc (Linux) -----------------------------------


def _stat(proc_root: Path, pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (``state`` first), or None."""
    try:
        text = (proc_root / str(pid) / "stat").read_text()
    except (OSError, ValueError):
        return None
    _, _, rest = text.rpartition(")")  # the name may hold spaces and parentheses
    fields = rest.split()
    return fields if len(fields) > 14 else None


def _ticks(fields: list[str], with_children: bool) -> int:
    """utime + stime (fields 14, 15 of ``stat``), plus cutime + cstime (16, 17) if asked."""
    used = int(fields[11]) + int(fields[12])
    return used + (int(fields[13]) + int(fields[14]) if with_children else 0)


def cpu_seconds(pid: int, proc_root: Path = Path("/proc")) -> float:
    """User + system CPU time of one process so far (its threads, not its children; NaN when
    it cannot be read, e.g. off Linux)."""
    fields = _stat(proc_root, pid)
    return float("nan") if fields is None else _ticks(fields, False) / os.sysconf("SC_CLK_TCK")


def process_tree(pid: int, proc_root: Path = Path("/proc")) -> list[int]:
    """``pid`` and every living descendant of it (by the parent pid in each ``stat``)."""
    children: dict[int, list[int]] = {}
    for entry in proc_root.iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(proc_root, int(entry.name))
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, todo = [], [pid]
    while todo:
        here = todo.pop()
        if here in tree:
            continue
        tree.append(here)
        todo += children.get(here, [])
    return tree


def tree_cpu_seconds(pid: int, proc_root: Path = Path("/proc")) -> float:
    """User + system CPU time so far of ``pid``'s whole process tree: every living process in
    it (all their threads), plus what the descendants that exited and were reaped left in
    their parent's ``cutime``/``cstime``. NaN when ``pid`` cannot be read (e.g. off Linux)."""
    if _stat(proc_root, pid) is None:
        return float("nan")
    ticks = 0
    for member in process_tree(pid, proc_root):
        fields = _stat(proc_root, member)
        if fields is not None:  # it may have exited since the scan
            ticks += _ticks(fields, True)
    return ticks / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int, proc_root: Path = Path("/proc")) -> int | None:
    """Resident memory of one process (``VmRSS`` of ``/proc/<pid>/status``), or None."""
    try:
        text = (proc_root / str(pid) / "status").read_text()
    except (OSError, ValueError):
        return None
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024  # the kernel writes it in kB
    return None  # a zombie has no memory lines


def tree_rss_bytes(pid: int, proc_root: Path = Path("/proc")) -> tuple[int, int]:
    """Resident memory of ``pid``'s whole process tree (the sum over its living processes;
    pages shared between them count once per process) and how many processes were read.
    (0, 0) when ``pid`` cannot be read."""
    total = members = 0
    for member in process_tree(pid, proc_root) if _stat(proc_root, pid) is not None else []:
        rss = rss_bytes(member, proc_root)
        if rss is not None:
            total += rss
            members += 1
    return total, members


# --- DynamoDB's item size -----------------------------------------------------------------------


def value_size(value: Mapping[str, Any]) -> int:
    """Bytes of one attribute value by DynamoDB's documented item-size rules.

    Strings are their UTF-8 bytes, binaries their bytes, BOOL and NULL 1 byte; a number is
    about 1 byte per two significant digits plus 1 (sign, decimal point, and leading and
    trailing zeros do not count); a set is the sum of its members; a list or map is 3 bytes
    plus, per element, 1 byte (and a map's key) and the element's size.
    """
    kind, v = next(iter(value.items()))
    if kind == "S":
        return len(v.encode())
    if kind == "N":
        digits = v.lstrip("-").replace(".", "").strip("0") or "0"
        return math.ceil(len(digits) / 2) + 1
    if kind == "B":
        return len(v)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(x.encode()) for x in v)
    if kind == "NS":
        return sum(value_size({"N": x}) for x in v)
    if kind == "BS":
        return sum(len(x) for x in v)
    if kind == "L":
        return 3 + sum(1 + value_size(x) for x in v)
    if kind == "M":
        return 3 + sum(len(k.encode()) + 1 + value_size(x) for k, x in v.items())
    raise ValueError(f"unknown DynamoDB type {kind}")


def item_size(item: Mapping[str, Any] | None) -> int:
    """An item's size by DynamoDB's rules: every attribute name (UTF-8) plus its value (0 for
    no item). This is what DynamoDB bills by and what its 400 KB limit counts."""
    if not item:
        return 0
    return sum(len(name.encode()) + value_size(value) for name, value in item.items())


# --- rule systems from the engine's registry ------------------------------------------------------


class _CountProbe:
    """Room settings that answer every read with ``count`` and note which setting was read."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.read: list[str] = []

    def __getattr__(self, name: str) -> int:
        self.read.append(name)
        return self.count

    def option(self, name: str) -> int:
        """A setting a system declares itself (``Settings.option``, e.g. Poker's lives)."""
        self.read.append(name)
        return self.count


def count_setting(rules: str) -> str:
    """The room setting a rule system's players start with as their count (dice or lives).

    Asked of the system itself: its ``starting_count`` hook reads that setting.
    """
    from chalicelib.engine.systems import rule_system

    probe = _CountProbe(1)
    rule_system(rules).starting_count(probe)  # type: ignore[arg-type]
    if len(probe.read) != 1:
        raise ValueError(f"{rules}: its starting count reads {probe.read}, not one setting")
    return probe.read[0]


def count_settings(rules: str, count: int) -> dict[str, Any]:
    """Room settings (``rules`` included) whose players start with ``count`` (dice or lives),
    or the nearest count the system offers when its choices do not include it."""
    from chalicelib.engine.systems import rule_system

    name = count_setting(rules)
    choices = rule_system(rules).setting_choices.get(name)
    if choices and count not in choices:
        count = min(choices, key=lambda c: (abs(c - count), c))
    return {"rules": rules, name: count}


def rules_mix(default_share: float) -> tuple[tuple[str, float], ...]:
    """Every registered rule system with its share of rooms: ``default_share`` for the default
    system, the rest split evenly over the others (registry order)."""
    from chalicelib.engine.systems import DEFAULT_RULES, SYSTEMS

    others = [name for name in SYSTEMS if name != DEFAULT_RULES]
    each = (1.0 - default_share) / len(others) if others else 0.0
    return ((DEFAULT_RULES, default_share if others else 1.0), *((n, each) for n in others))
