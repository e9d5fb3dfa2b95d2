"""The web client names a rule system only in that system's own module (issue 12 point 5).

What "names a system" means here: a file contains the system's ``rules`` value (the room's
``settings.rules``: ``classic``, ``wild-stars``, ``poker``…) in any spelling code uses (any case,
its words joined by nothing, ``-``, ``_`` or a space: ``wild-stars``, ``WILD_STARS``,
``wildStars``, ``Wild Stars``), or the system's display ``label`` or ``short`` name. Identifiers
count (``isPokerRoom``, ``pokerPanel``), and so do comments, CSS classes and test ids.

Only ``web/systems/<rules>.js`` (and its stylesheet ``web/systems/<rules>.css``) may name system
``<rules>``; the registry ``web/systems/index.js`` names them once, in its ``RULES`` list, and
is the only file that loads a system module. Every module in ``web/systems/`` is in the registry
and declares the ``rules`` value of its file name, so a new system is one new file plus one
word in ``RULES``.
"""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"
SYSTEMS = WEB / "systems"
REGISTRY = SYSTEMS / "index.js"
CLIENT_SUFFIXES = {".js", ".css", ".html"}


def _registry_rules() -> list[str]:
    match = re.search(r"export const RULES = \[([^\]]*)\];", REGISTRY.read_text())
    assert match, "web/systems/index.js has no `export const RULES = [...]`"
    return re.findall(r"'([^']+)'", match.group(1))


def _module_files() -> list[Path]:
    return sorted(p for p in SYSTEMS.glob("*.js") if p != REGISTRY)


def _declared(path: Path, key: str) -> str | None:
    """The string a system module declares for ``key`` (``rules: 'poker'``), if any."""
    match = re.search(rf"^  {key}: (['\"])(.+?)\1,$", path.read_text(), re.MULTILINE)
    return match.group(2) if match else None


def _name_patterns() -> dict[str, re.Pattern[str]]:
    """Every registered system's names, as one case-insensitive pattern each."""
    patterns = {}
    for rules in _registry_rules():
        module = SYSTEMS / f"{rules}.js"
        words = re.split(r"[-_ ]", rules)
        names = [r"[-_ ]?".join(re.escape(w) for w in words)]
        for key in ("label", "short"):
            value = _declared(module, key)
            if value:
                names.append(r"\s+".join(re.escape(w) for w in value.split()))
        patterns[rules] = re.compile("|".join(names), re.IGNORECASE)
    return patterns


def _client_files() -> list[Path]:
    return sorted(p for p in WEB.rglob("*") if p.suffix in CLIENT_SUFFIXES)


def _owner(path: Path) -> str | None:
    """The system a file belongs to: ``web/systems/<rules>.js`` and ``.css`` are its own."""
    return path.stem if path.parent == SYSTEMS and path != REGISTRY else None


def _hits(pattern: re.Pattern[str], text: str) -> list[str]:
    lines = text.splitlines()
    return [
        f"{n}: {line.strip()[:100]}"
        for n, line in enumerate(lines, start=1)
        if pattern.search(line)
    ]


def test_every_module_in_web_systems_is_registered_under_its_file_name() -> None:
    rules = _registry_rules()
    files = _module_files()
    assert rules, "the registry lists no system"
    assert sorted(rules) == sorted(p.stem for p in files), (
        "web/systems/*.js and the registry's RULES differ"
    )
    assert len(set(rules)) == len(rules)
    for path in files:
        assert _declared(path, "rules") == path.stem, (
            f"{path.name} must declare rules: '{path.stem}'"
        )
        assert _declared(path, "label"), f"{path.name} declares no label"


def test_a_system_is_named_only_in_its_own_module() -> None:
    patterns = _name_patterns()
    shared = [p for p in _client_files() if _owner(p) is None and p != REGISTRY]
    assert len(shared) > 10, "the scan found too few shared client files"
    problems = []
    for path in _client_files():
        text = path.read_text()
        if path == REGISTRY:
            # the registry names each system once: in RULES
            text = re.sub(r"export const RULES = \[[^\]]*\];", "", text)
        for rules, pattern in patterns.items():
            if _owner(path) == rules:
                assert pattern.search(text), f"{path.name} does not even name its own system"
                continue
            problems += [
                f"web/{path.relative_to(WEB)}:{hit} (names {rules})" for hit in _hits(pattern, text)
            ]
    assert problems == [], "\n".join(problems)


def test_only_the_registry_loads_system_modules() -> None:
    importing = re.compile(r"""(?:from|import\()\s*['"`][^'"`]*systems/(?!index\.js)""")
    for path in _client_files():
        if path.suffix != ".js" or path == REGISTRY:
            continue
        text = path.read_text()
        assert not importing.search(text), f"web/{path.relative_to(WEB)} imports a system module"
        if _owner(path):
            # a system module may use the shared pieces, never another system's module
            siblings = re.findall(r"""from\s+['"]\./([\w-]+)\.js['"]""", text)
            assert siblings == [], f"{path.name} imports {siblings}"


def test_the_installed_package_ships_every_web_client_file() -> None:
    """pyproject's package data covers every file the client serves (none is left behind)."""
    import fnmatch
    import tomllib

    setuptools = tomllib.loads((WEB.parent / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "web" in setuptools["packages"]["find"]["include"]
    data = setuptools["package-data"]
    # the message catalogues (web/i18n/*.json, web/systems/<rules>.i18n.json) are served too
    served = _client_files() + sorted(WEB.rglob("*.json"))
    assert served
    for path in served:
        package = ".".join(path.parent.relative_to(WEB.parent).parts)
        globs = data.get(package, [])
        assert any(fnmatch.fnmatch(path.name, g) for g in globs), (
            f"web/{path.relative_to(WEB)} is not package data of {package!r}"
        )
