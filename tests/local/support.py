"""Shared pieces of the local server's tests: the repository, a password, HTTP checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery"


def ok(answer: httpx.Response, status: int = 200) -> Any:
    """The answer's JSON body, once its status is ``status``."""
    assert answer.status_code == status, (answer.request.url, answer.status_code, answer.text)
    return answer.json()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
