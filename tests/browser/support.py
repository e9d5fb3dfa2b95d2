"""Shared pieces of the browser tests: Debian's chromium, its flags, where screenshots go."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
OUTPUT = Path(__file__).resolve().parents[2] / "test-output"
GAME_TIMEOUT_S = 120


def by_testid(name: str) -> str:
    """CSS selector of an element by its ``data-testid``."""
    return f"[data-testid='{name}']"
