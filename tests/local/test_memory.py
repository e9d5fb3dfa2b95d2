"""A serving process frees the reference cycles every WebSocket connection leaves behind.

The figure (RSS per round of 2,000 connections) is ``bench/soak.py``'s; this test checks the
cause found with it: after ``tune_gc_for_serving`` a full collection, the only one that frees
cycles that lived through a younger one, still runs within a few million allocations."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import collections
import gc
from liars_local.environment import tune_gc_for_serving

tune_gc_for_serving()
before = gc.get_stats()[2]["collections"]
live = collections.deque(maxlen=300_000)  # connections alive across young collections
for n in range(4_000_000):
    a = [n]
    a.append(a)  # a cycle, as a closed connection's task and frames leave
    live.append(a)  # dropped, as garbage, 300,000 allocations later
print(gc.get_stats()[2]["collections"] - before)
"""


def test_a_serving_process_runs_full_collections_every_few_million_allocations() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=120
    )
    assert int(done.stdout.strip()) >= 1, done.stdout
