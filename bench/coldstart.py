"""Cold import of the Lambda entry point (``import app``) against ``import boto3``.

A Lambda cold start pays for importing the handler module before the first request. boto3 is
the yardstick: it is in the Lambda runtime and most Python functions import it, so the
question is how much *our* code costs next to it. Each sample is a fresh interpreter
(``python -c``) timing only the import; one untimed run per side first fills the ``.pyc``
cache, so both sides are measured with compiled bytecode alike.

The interpreters alternate (boto3, app, boto3, app, ...) so that noise from other work on the
machine hits both sides equally; the script prints each side's median, minimum and the ratio
of medians. ``app`` here means what the Lambda imports: ``app.py`` and what it pulls in at
import time; the first request's lazy imports (service, adapters, engine) are measured
separately as ``app + first request`` with ``--first-request`` to show what laziness defers.

Run: ``.venv/bin/python bench/coldstart.py [--runs 15] [--first-request]``. Figures only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

# Each snippet prints the wall time of its imports in milliseconds (perf_counter, in-process,
# so interpreter start-up itself is excluded: it is the same for every Python Lambda).
SNIPPETS = {
    "boto3": "import boto3",
    "app": "import app",
    "app + first request": (
        "import app\n"
        "import chalicelib.service, chalicelib.realtime, chalicelib.wiring\n"
        "import chalicelib.adapters.dynamo, chalicelib.adapters.scheduler\n"
        "import chalicelib.adapters.notifier\n"
        # observability imports Powertools at the first invocation, not with the app
        "import chalicelib.observability\n"
        "from aws_lambda_powertools.logging import Logger\n"
        "from aws_lambda_powertools.metrics import EphemeralMetrics"
    ),
}

TIMER = """
import time
_t0 = time.perf_counter()
{body}
print((time.perf_counter() - _t0) * 1000)
"""


def sample(body: str) -> float:
    """Milliseconds one fresh interpreter spends on ``body``'s imports."""
    env = {
        **os.environ,
        # As in Lambda: no configuration is needed to import the app.
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    done = subprocess.run(
        [sys.executable, "-c", TIMER.format(body=body)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Alternate fresh interpreters, then print medians and the ratio to ``import boto3``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="interpreters per side")
    parser.add_argument(
        "--first-request", action="store_true", help="also time app + the lazy imports"
    )
    args = parser.parse_args()
    names = ["boto3", "app"] + (["app + first request"] if args.first_request else [])
    for name in names:  # warm the .pyc cache and the page cache once, untimed
        sample(SNIPPETS[name])
    times: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(args.runs):
        for name in names:
            times[name].append(sample(SNIPPETS[name]))
    base = statistics.median(times["boto3"])
    print(f"python {sys.version.split()[0]}, {args.runs} fresh interpreters per line")
    print(f"{'import':<22}{'median ms':>10}{'min ms':>9}{'× boto3':>9}")
    for name in names:
        med = statistics.median(times[name])
        print(f"{name:<22}{med:>10.1f}{min(times[name]):>9.1f}{med / base:>9.2f}")


if __name__ == "__main__":
    main()
