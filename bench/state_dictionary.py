"""Make a zlib preset dictionary for room states (``chalicelib/adapters/room_state.zdict``).

A room item just over 1 KB bills two write units per change; zlib alone gets a 4-player
room's state to about 660 bytes, zlib with a dictionary of typical states to about 300. This
plays games of several shapes through ``bench/cost.py``'s bench, keeps a mid-game and a
final state of each rule system, blanks their ids (random hex helps no other room) and
writes the last ``--size`` bytes, the most common text last (zlib reaches near text cheaper).

A dictionary is frozen once rooms are stored with it: the zlib header names it by checksum
and ``decode_state`` finds it by that, so a new one is added beside the old, never in place.

    .venv/bin/python bench/state_dictionary.py --out /tmp/new.zdict
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cost


def samples() -> list[str]:
    """Compact JSON of room states as the store writes them, from a few whole games."""
    from moto import mock_aws

    from chalicelib.adapters.dynamo import rooms as dynamo
    from chalicelib.settings import reset_settings

    seen: list[tuple[str, str]] = []
    original = dynamo.encode_state

    def spy(state: dict[str, object]) -> tuple[str, dict[str, object]]:
        rules = str((state.get("settings") or {}).get("rules"))  # type: ignore[union-attr]
        seen.append((rules, json.dumps(state, separators=(",", ":"), ensure_ascii=False)))
        return original(state)

    os.environ.update(cost.ENV)
    reset_settings()
    dynamo.encode_state = spy  # type: ignore[assignment]
    try:
        with mock_aws():
            bench = cost.Bench(4000, True, cost.load_prices())
            for shape in cost.SHAPES:
                bench.play(shape, seed=1)
            bench.close()
    finally:
        dynamo.encode_state = original  # type: ignore[assignment]
    by_rules: dict[str, list[str]] = {}
    for rules, text in seen:
        by_rules.setdefault(rules, []).append(text)
    picked = []
    for rules in ("poker", "wild-stars", "classic"):
        states = by_rules[rules]
        picked += [states[len(states) // 2], states[-1]]
    return picked


def blank_ids(text: str) -> str:
    """Random hex ids (rooms, users) become zeros of the same length."""
    return re.sub(r"(?<=[\"u])[0-9a-f]{16}(?=\")", "0" * 16, text)


def main() -> int:
    """Write the dictionary."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    data = "".join(blank_ids(s) for s in samples()).encode()[-args.size :]
    args.out.write_bytes(data)
    print(f"wrote {len(data)} bytes to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
