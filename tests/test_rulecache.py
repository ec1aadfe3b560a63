"""The compiled-rules cache: hits skip pydantic, and nothing stale or broken is trusted."""

from __future__ import annotations

import marshal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from smista import rulecache
from smista.classifier import compile_rules
from smista.config import load_config
from smista.errors import ConfigError
from smista.rulecache import cache_dir, cache_key, load_rules, render_default_pack
from tests.conftest import ROOT, cli_env

RULES = """
[classification]
default_intent = "chat"

[[classification.rules]]
intent = "edit"
priority = 10
keywords = ["refactor", "Implement"]

[[classification.rules]]
intent = "review"
keywords = ["review"]
requires_any_context = ["git_diff"]
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("SMISTA_CACHE_DIR", str(directory))
    return directory


@pytest.fixture
def rules_file(tmp_path: Path) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(RULES, encoding="utf-8")
    return path


def entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("rules-*.bin"))


def loads_pydantic(path: Path | None, cache: Path) -> bool:
    """Load ``path`` in a fresh interpreter; whether that imported pydantic."""
    arg = "None" if path is None else repr(str(path))
    code = (
        "import sys\n"
        "from smista.rulecache import load_rules\n"
        f"load_rules({arg})\n"
        "print('pydantic' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=cli_env(SMISTA_CACHE_DIR=str(cache)),
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip() == "True"


def test_loaded_rules_equal_the_validated_config(cache: Path, rules_file: Path) -> None:
    """A miss and then a hit both give the rules compile_rules gives."""
    expected = compile_rules(load_config(rules_file))
    assert load_rules(rules_file) == expected
    assert len(entries(cache)) == 1
    hit = load_rules(rules_file)
    assert hit == expected
    assert hit.match_text("please implemnt it") == expected.match_text("please implemnt it")


def test_a_hit_skips_pydantic(cache: Path, rules_file: Path) -> None:
    """The first load validates with pydantic; a later one reads the cache only."""
    assert loads_pydantic(rules_file, cache)
    assert not loads_pydantic(rules_file, cache)


def test_the_default_pack_loads_without_pydantic(cache: Path) -> None:
    """The shipped pack comes precompiled: no pydantic and no cache entry needed."""
    assert not loads_pydantic(None, cache)
    assert entries(cache) == []


def test_changed_file_is_recompiled(cache: Path, rules_file: Path) -> None:
    """Editing the file changes the key: the new rules are used, never the old entry."""
    assert load_rules(rules_file).match_text("refactor it").rule == 0
    rules_file.write_text(RULES.replace('"refactor"', '"rewrite"'), encoding="utf-8")
    changed = load_rules(rules_file)
    assert changed.match_text("refactor it").rule is None
    assert changed.match_text("rewrite it").rule == 0
    assert len(entries(cache)) == 2


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"\x00\x01garbage",
        marshal.dumps(("smista-rules",)),
        marshal.dumps(["not", "a", "tuple"]),
        marshal.dumps((1, 2, 3, 4)),
    ],
)
def test_corrupt_entry_is_ignored_and_rebuilt(
    cache: Path, rules_file: Path, garbage: bytes
) -> None:
    """An unreadable or malformed entry is a miss, and the rebuilt entry replaces it."""
    expected = load_rules(rules_file)
    (entry,) = entries(cache)
    entry.write_bytes(garbage)
    assert load_rules(rules_file) == expected
    assert entry.read_bytes() != garbage
    assert load_rules(rules_file) == expected


def test_entry_with_wrong_data_is_ignored(cache: Path, rules_file: Path) -> None:
    """Well-formed marshal data of the wrong shape (or other rules) is not trusted."""
    expected = load_rules(rules_file)
    (entry,) = entries(cache)
    magic, stamp, key, data = marshal.loads(entry.read_bytes())
    bad_rules = (data[0], data[1], (("edit", -1, 5, ()),), *data[3:])
    entry.write_bytes(marshal.dumps((magic, stamp, key, bad_rules)))
    assert load_rules(rules_file) == expected
    other: Any = compile_rules(load_config(rules_file)).to_data()
    foreign = (2, other[1], (), {"fix": ("fix",)})  # an older format (with a typo index)
    entry.write_bytes(marshal.dumps((magic, stamp, key, foreign)))
    assert load_rules(rules_file) == expected


def test_entries_of_another_version_are_never_trusted(
    cache: Path, rules_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A different smista version misses, even when an entry sits at the same name."""
    load_rules(rules_file)
    (entry,) = entries(cache)
    magic, stamp, key, data = marshal.loads(entry.read_bytes())
    # an entry claiming another version, under the current name, holding other rules
    other = compile_rules(load_config(rules_file))
    fake = (data[0], data[1], (("plan", 0, ("refactor",), ()),), ())
    entry.write_bytes(marshal.dumps((magic, ("0.0.0", *stamp[1:]), key, fake)))
    assert load_rules(rules_file) == other
    monkeypatch.setattr(rulecache, "__version__", "999.0")
    assert cache_key(rules_file.read_bytes()) != key
    assert load_rules(rules_file) == other
    assert len(entries(cache)) == 2


def test_errors_are_those_of_load_config(cache: Path, tmp_path: Path) -> None:
    """Invalid, missing and undecodable files raise load_config's exact errors."""
    bad = tmp_path / "bad.toml"
    bad.write_text('[classification]\nrules = [{intent = "edit", keywords = [1]}]\n')
    undecodable = tmp_path / "latin1.toml"
    undecodable.write_bytes(b"[classification]\n# caf\xe9\n")
    for path in (bad, tmp_path / "missing.toml", undecodable, tmp_path):
        with pytest.raises(ConfigError) as expected:
            load_config(str(path))
        with pytest.raises(ConfigError) as got:
            load_rules(str(path))
        assert str(got.value) == str(expected.value)
    assert entries(cache) == []


def test_cache_location_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SMISTA_CACHE_DIR, then XDG_CACHE_HOME/smista, then ~/.cache/smista; '' disables."""
    monkeypatch.delenv("SMISTA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "smista"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "smista"
    monkeypatch.setenv("SMISTA_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.setenv("SMISTA_CACHE_DIR", "")
    assert cache_dir() is None


def test_disabled_or_unwritable_cache_still_loads(
    tmp_path: Path, rules_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No cache directory, or one that cannot be created, only costs speed."""
    expected = compile_rules(load_config(rules_file))
    monkeypatch.setenv("SMISTA_CACHE_DIR", "")
    assert load_rules(rules_file) == expected
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("SMISTA_CACHE_DIR", str(blocker / "cache"))
    assert load_rules(rules_file) == expected


def test_writes_are_atomic_and_pruned(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No temporary file is left behind, and old entries beyond the limit go."""
    monkeypatch.setattr(rulecache, "CACHE_LIMIT", 3)
    for i in range(5):
        path = tmp_path / f"r{i}.toml"
        path.write_text(RULES.replace("refactor", f"refactor{i}"), encoding="utf-8")
        load_rules(path)
    assert len(entries(cache)) == 3
    assert [p for p in cache.iterdir() if not p.name.startswith("rules-")] == []


def test_shipped_default_pack_is_current() -> None:
    """smista/_default_pack.py matches rules/default.toml.

    After editing the default pack, regenerate with
    ``python -m smista.rulecache --write-default-pack``.
    """
    generated = (ROOT / "smista" / "_default_pack.py").read_text(encoding="utf-8")
    assert generated == render_default_pack()


def test_cli_classify_fast_path_avoids_pydantic(tmp_path: Path) -> None:
    """`smista classify` with the default pack never imports pydantic."""
    code = (
        "import sys\n"
        "from smista.cli import main\n"
        "main(['classify', '--json', 'fix the login bug'])\n"
        "print('pydantic' in sys.modules, 'rapidfuzz' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=cli_env(SMISTA_CACHE_DIR=str(tmp_path)),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert out[0].startswith('{"intent":"edit"')
    assert out[1] == "False False"
