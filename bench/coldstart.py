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

To compare two trees side by side in one run (say, before and after a change), give each with
``--root``: ``git archive <commit> | tar -x -C /tmp/before`` then
``bench/coldstart.py --root . --root /tmp/before`` (each tree's ``app`` is imported from its
own directory, with this interpreter's packages).

Run: ``.venv/bin/python bench/coldstart.py [--runs 15] [--first-request] [--root DIR ...]``.
Figures only.
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
        "import chalicelib.adapters.notifier"
    ),
}
OBSERVABILITY = (
    # what chalicelib/observability.py imports at the first invocation, not with the app
    "\nimport chalicelib.observability\n"
    "from aws_lambda_powertools.logging import Logger\n"
    "from aws_lambda_powertools.metrics import EphemeralMetrics"
)


def snippet(name: str, root: Path) -> str:
    """The import code of line ``name`` for the tree at ``root``."""
    body = SNIPPETS[name]
    if name == "app + first request" and (root / "chalicelib" / "observability.py").exists():
        body += OBSERVABILITY
    return body


TIMER = """
import time
_t0 = time.perf_counter()
{body}
print((time.perf_counter() - _t0) * 1000)
"""


def sample(body: str, root: Path = REPO_ROOT) -> float:
    """Milliseconds one fresh interpreter spends on ``body``'s imports."""
    env = {
        **os.environ,
        # As in Lambda: no configuration is needed to import the app.
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    done = subprocess.run(
        [sys.executable, "-c", TIMER.format(body=body)],
        cwd=root,
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
    parser.add_argument(
        "--root", type=Path, action="append", help="tree to import app from (repeatable)"
    )
    args = parser.parse_args()
    roots = [r.resolve() for r in args.root] if args.root else [REPO_ROOT]
    apps = ["app"] + (["app + first request"] if args.first_request else [])
    lines = [("boto3", "boto3", REPO_ROOT)] + [
        (f"{name}{'' if len(roots) == 1 else f' [{root}]'}", name, root)
        for root in roots
        for name in apps
    ]
    for _, name, root in lines:  # warm the .pyc cache and the page cache once, untimed
        sample(snippet(name, root), root)
    times: dict[str, list[float]] = {label: [] for label, _, _ in lines}
    for _ in range(args.runs):
        for label, name, root in lines:
            times[label].append(sample(snippet(name, root), root))
    base = statistics.median(times["boto3"])
    width = max(len(label) for label in times) + 2
    print(f"python {sys.version.split()[0]}, {args.runs} fresh interpreters per line")
    print(f"{'import':<{width}}{'median ms':>10}{'min ms':>9}{'× boto3':>9}")
    for label, samples in times.items():
        med = statistics.median(samples)
        print(f"{label:<{width}}{med:>10.1f}{min(samples):>9.1f}{med / base:>9.2f}")


if __name__ == "__main__":
    main()
