"""A clone has no ``../shared``: the project's documents stand alone.

The README, every page in ``docs/`` and the two documents the API serves (OpenAPI, AsyncAPI)
name nothing outside the repository, their links resolve, and the repository paths the pages
name in backticks exist.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OUTSIDE = ("../shared", "/work/shared", "SPEC-VARIANTS", "NOTES-AWS")


def _served() -> dict[str, str]:
    from chalicelib.asyncapi import asyncapi_document
    from chalicelib.schemas import openapi_document

    return {
        "openapi": json.dumps(openapi_document()),
        "asyncapi": json.dumps(asyncapi_document()),
    }


@pytest.mark.parametrize("name", ["openapi", "asyncapi"])
def test_served_api_documents_name_no_text_outside_the_repository(name: str) -> None:
    text = _served()[name]
    assert [word for word in OUTSIDE if word in text] == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_name_no_text_outside_the_repository(page: Path) -> None:
    text = page.read_text()
    # DECISIONS.md collects everyone's audit notes: there, only a path to the texts is refused.
    words = OUTSIDE[:2] if page.name == "DECISIONS.md" else OUTSIDE
    assert [word for word in words if word in text] == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_links_resolve_inside_the_repository(page: Path) -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text())
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    missing = [link for link in local if not (page.parent / link).exists()]
    assert missing == []


# DECISIONS.md is a log: it may name files as they were when a decision was taken.
CURRENT = [page for page in PAGES if page.name != "DECISIONS.md"]
PATH = re.compile(
    r"`((?:chalicelib|liars_local|tests|bench|web|infra|docs|\.chalice|\.ci)/[\w./<>*-]+)"
)


@pytest.mark.parametrize("page", CURRENT, ids=lambda p: p.name)
def test_repository_paths_a_page_names_exist(page: Path) -> None:
    named = {m.rstrip(".") for m in PATH.findall(page.read_text()) if not set("<>*") & set(m)}
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert missing == []
