"""The compiled-rules cache: hits skip pydantic, and nothing stale or broken is trusted."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from smista.config import rulecache
from smista.config.load import load_config
from smista.config.rulecache import cache_dir, cache_key, load_rules, render_default_pack
from smista.core.classifier import compile_rules
from smista.core.errors import ConfigError
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
    return sorted(directory.glob("rules-*.json"))


def loads_pydantic(path: Path | None, cache: Path) -> bool:
    """Load ``path`` in a fresh interpreter; whether that imported pydantic."""
    arg = "None" if path is None else repr(str(path))
    code = (
        "import sys\n"
        "from smista.config.rulecache import load_rules\n"
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
        marshal.dumps(("smista-rules",)),  # an entry of the old (marshal) format
        marshal.dumps(["not", "a", "tuple"]),
        b"smista-rules-cache 1\n" + b"0" * 64 + b" 5\n{}{}{",
        b"smista-rules-cache 1\n" + b"0" * 64 + b" 99999999\n",
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


def forge(entry: Path, data: Any, key: str | None = None) -> None:
    """Overwrite ``entry`` with a well-formed entry (valid checksum) holding ``data``."""
    forged = rulecache.encode_entry(key or entry.stem.removeprefix("rules-"), data)
    assert forged is not None
    entry.write_bytes(forged)


def replaced(data: Any, index: int, value: Any) -> Any:
    """``data`` (a tuple) with element ``index`` replaced: the rest kept whatever it is."""
    return (*data[:index], value, *data[index + 1 :])


def relabelled(data: Any, label: str) -> Any:
    """``data`` with every rule's intent replaced by ``label``."""
    return replaced(data, 2, tuple((label, *spec[1:]) for spec in data[2]))


def test_a_forged_entry_of_ours_is_used(cache: Path, rules_file: Path) -> None:
    """The control for the tests below: a well-formed entry is read (it changes answers)."""
    expected = load_rules(rules_file)
    assert expected.match_text("refactor it").label == "edit"
    (entry,) = entries(cache)
    forge(entry, relabelled(expected.to_data(), "plan"))
    assert load_rules(rules_file).match_text("refactor it").label == "plan"


def test_entry_with_wrong_data_is_ignored(cache: Path, rules_file: Path) -> None:
    """A well-formed entry of the wrong shape (or of other rules) is not trusted."""
    expected = load_rules(rules_file)
    (entry,) = entries(cache)
    data: Any = expected.to_data()
    forge(entry, replaced(data, 2, (("edit", -1, 5, ()),)))
    assert load_rules(rules_file) == expected
    forge(entry, (3, *data[1:3], {"fix": ("fix",)}, data[3]))  # an older format: not trusted
    assert load_rules(rules_file) == expected


@pytest.mark.parametrize(
    "label",
    ["\x1b[31medit\x1b[0m", "skill-x", "", "EDIT"],
)
def test_labels_outside_the_intents_are_not_trusted(
    cache: Path, rules_file: Path, label: str
) -> None:
    """A checksummed entry whose rule names no real intent (ANSI escapes, say) is rebuilt."""
    expected = load_rules(rules_file)
    (entry,) = entries(cache)
    data: Any = expected.to_data()
    forge(entry, relabelled(data, label))
    assert load_rules(rules_file) == expected
    forge(entry, replaced(data, 1, label))  # the default intent
    assert load_rules(rules_file) == expected


def test_priorities_outside_the_type_are_not_trusted(cache: Path, rules_file: Path) -> None:
    expected = load_rules(rules_file)
    (entry,) = entries(cache)
    data: Any = expected.to_data()
    for priority in (-1, 2**32, 2**80):
        specs = tuple((spec[0], priority, *spec[2:]) for spec in data[2])
        forge(entry, replaced(data, 2, specs))
        assert load_rules(rules_file) == expected


def test_every_one_byte_mutation_is_a_miss(cache: Path, rules_file: Path) -> None:
    """Flipping any byte (header, checksum or payload) never changes an answer."""
    expected = load_rules(rules_file)
    (entry,) = entries(cache)
    good = entry.read_bytes()
    prompts = ("refactor it", "please review", "hello there", "implemnt x")
    answers = [expected.match_text(p) for p in prompts]
    step = max(1, len(good) // 97)
    for at in range(0, len(good), step):
        mutated = bytearray(good)
        mutated[at] ^= 0x20
        entry.write_bytes(bytes(mutated))
        got = load_rules(rules_file)
        assert got == expected, at
        assert [got.match_text(p) for p in prompts] == answers
        assert entry.read_bytes() == good  # rebuilt and rewritten


def test_random_and_truncated_entries_change_no_answer(cache: Path, rules_file: Path) -> None:
    import random

    expected = load_rules(rules_file)
    (entry,) = entries(cache)
    good = entry.read_bytes()
    rng = random.Random(13)
    samples = [good[:n] for n in (1, 10, len(good) // 2, len(good) - 1)]
    samples += [rng.randbytes(rng.randrange(1, 4096)) for _ in range(40)]
    samples += [good[:30] + rng.randbytes(len(good) - 30) for _ in range(20)]
    for sample in samples:
        entry.write_bytes(sample)
        assert load_rules(rules_file) == expected


@pytest.mark.parametrize("special", ["/dev/zero", "fifo", "directory"])
def test_special_files_at_an_entry_name_are_a_miss(
    cache: Path, rules_file: Path, special: str
) -> None:
    """A symlink to /dev/zero or a FIFO, or a directory, where an entry belongs: no hang."""
    import os

    expected = load_rules(rules_file)
    (entry,) = entries(cache)
    entry.unlink()
    if special == "fifo":
        os.mkfifo(entry)
    elif special == "directory":
        entry.mkdir()
    else:
        entry.symlink_to(special)
    assert load_rules(rules_file) == expected
    assert load_rules(rules_file) == expected


def test_a_symlinked_entry_is_not_followed(cache: Path, rules_file: Path, tmp_path: Path) -> None:
    """Even a symlink to a perfectly valid entry is refused (then replaced)."""
    expected = load_rules(rules_file)
    (entry,) = entries(cache)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(entry.read_bytes())
    entry.unlink()
    entry.symlink_to(elsewhere)
    assert load_rules(rules_file) == expected
    assert not entry.is_symlink()


def test_the_cache_directory_is_private(cache: Path, rules_file: Path) -> None:
    """Created 0700; an existing one of ours that is too open is narrowed to 0700."""
    import stat

    load_rules(rules_file)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    cache.chmod(0o755)
    load_rules(rules_file)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700


@pytest.mark.skipif(not hasattr(os, "chown") or os.geteuid() != 0, reason="needs root to chown")
def test_entries_owned_by_another_user_are_not_trusted(cache: Path, rules_file: Path) -> None:
    """A forged entry belonging to another user is a miss, and so is their directory."""
    expected = load_rules(rules_file)
    (entry,) = entries(cache)
    data: Any = expected.to_data()
    forge(entry, relabelled(data, "plan"))
    os.chown(entry, 65534, 65534)
    assert load_rules(rules_file) == expected
    forge(entry, relabelled(data, "plan"))
    os.chown(cache, 65534, 65534)
    assert load_rules(rules_file) == expected
    os.chown(cache, 0, 0)


def test_entries_of_another_version_are_never_trusted(
    cache: Path, rules_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A different smista version misses, even when an entry sits at the same name."""
    other = load_rules(rules_file)
    (entry,) = entries(cache)
    key = entry.stem.removeprefix("rules-")
    data: Any = other.to_data()
    fake: Any = relabelled(data, "plan")
    with monkeypatch.context() as patch:  # an entry claiming another version, same name
        patch.setattr(rulecache, "__version__", "0.0.0")
        forge(entry, fake, key)
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
    """smista/config/_default_pack.py matches rules/default.toml.

    After editing the default pack, regenerate with
    ``python -m smista.config.rulecache --write-default-pack``.
    """
    generated = (ROOT / "smista" / "config" / "_default_pack.py").read_text(encoding="utf-8")
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


def test_the_generated_module_is_the_same_whatever_the_hash_seed() -> None:
    """DERIVED holds frozensets and dicts built from them: rendered in every process
    alike (else the freshness check above would depend on PYTHONHASHSEED)."""
    code = "from smista.config.rulecache import render_default_pack as r; print(r(), end='')"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env=cli_env(PYTHONHASHSEED=seed),
        ).stdout
        for seed in ("1", "2")
    }
    assert outputs == {render_default_pack()}


def test_only_plain_data_is_rendered() -> None:
    from smista.config.rulecache import _literal

    assert _literal((frozenset({"b", "a"}), {"k": (1,)}, None, True)) == (
        "(frozenset(('a', 'b')), {'k': (1,)}, None, True)"
    )
    assert _literal(frozenset()) == "frozenset()"
    with pytest.raises(TypeError, match="not plain data: float"):
        _literal(1.5)


def test_the_shipped_pack_loads_as_it_compiles() -> None:
    """The generated module's data, taken unchecked with its stored tables (gate
    plans included), is the very rule set the pack file compiles to, with the same
    tables and answers: trusting it changes nothing but the time it takes."""
    from smista.config import _default_pack
    from smista.core.engine import CompiledRules

    shipped = CompiledRules.from_data(_default_pack.DATA, _default_pack.DERIVED)
    checked = CompiledRules.from_data(_default_pack.DATA)
    compiled = compile_rules(load_config(rulecache.default_pack_path()))
    assert shipped == checked == compiled
    assert shipped.derived_data() == checked.derived_data() == compiled.derived_data()
    for text in ("fix the login bug", "/plan the migration", "なぜ動かないの？", "修正して"):
        assert shipped.match_text(text) == compiled.match_text(text)
