"""What the Lambda's ``import app`` leaves to the first request (cold start).

``import app`` stays within 1.5x of ``import boto3`` (``bench/coldstart.py``). Two things it
used to pay for and a request may never need: the bots of the four rule systems (with the
endgame tables' reader and the opponent model), loaded on the first bot move; and the
validators of the ~110 request and answer models, which pydantic builds on a model's first
use (``defer_build``) instead of at class creation.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from chalicelib.engine.systems import rule_system
from chalicelib.engine.systems.poker import bot as poker_bot

LAZY_MODULES = [
    # the WebSocket messages' validators (the error body is read from it on first use)
    "chalicelib.wire",
    # the game flow and rooms (chalicelib.engine re-exports them on first use)
    "chalicelib.engine.game",
    "chalicelib.engine.room",
]
BOT_MODULES = [
    "chalicelib.engine.bot_model",
    "chalicelib.engine.endgames",
    "chalicelib.engine.systems.classic.bot",
    "chalicelib.engine.systems.classic.bot_baselines",
    "chalicelib.engine.systems.perudo.bot",
    "chalicelib.engine.systems.poker.bot",
    "chalicelib.engine.systems.wild_stars.bot",
]


def test_import_app_loads_no_bot_nor_what_the_first_request_needs() -> None:
    code = (
        "import sys, app\n"
        f"loaded = [m for m in {BOT_MODULES + LAZY_MODULES!r} if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=Path(__file__).resolve().parents[1],
        env={"AWS_DEFAULT_REGION": "us-east-1", "PATH": "/usr/bin:/bin"},
    )


def test_poker_rules_name_the_bots_own_notes() -> None:
    # spelt out in the rules so that reading them does not import the bot
    assert rule_system("poker").bot_notes == poker_bot.NOTES


def test_import_app_builds_no_model_validator() -> None:
    code = (
        "import app\n"
        "from chalicelib import schemas as s\n"
        "assert not s.RoomView.__pydantic_complete__\n"
        "assert not s.JoinBody.__pydantic_complete__\n"
        "s.JoinBody.model_validate({'passcode': '1234'})\n"
        "assert s.JoinBody.__pydantic_complete__\n"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=Path(__file__).resolve().parents[1],
        env={"AWS_DEFAULT_REGION": "us-east-1", "PATH": "/usr/bin:/bin"},
    )
