"""The cold start: ``import smista; smista.classify(...)`` and ``smista classify``.

The first classify on the shipped default pack takes the precompiled pack and
must not parse TOML or load the pydantic rule model; it must still answer
exactly what the validated path (TOML -> ClassificationConfig -> Classifier)
answers. Each check runs in a fresh interpreter, since ``sys.modules`` of the
test process already holds everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from smista.config.load import load_config
from smista.config.rulecache import default_pack_path
from smista.core.classifier import Classifier

ROOT = Path(__file__).resolve().parent.parent

PROMPTS = [
    "fix the login bug",
    "review this diff please",
    "plan the migration to postgres, don't write code yet",
    "summarize the thread",
    "hello there",
    "refactr the parser",  # a typo
    "не редактируй файлы, просто объясни ошибку",
    "ログイン画面のバグを直してください",
    "/review security of the auth module",
    "",
]

HEAVY = ("pydantic", "pydantic_core", "tomllib", "smista.core.rules", "smista.config.load")


# What the interpreter held before ``code`` ran: a coverage run (``.ci/run`` measures
# subprocesses) starts in every Python process and imports tomllib, json and pathlib
# itself; only what the code under test imports counts.
_PRELUDE = "import sys\n_preloaded = frozenset(sys.modules)\n"


def fresh(code: str, *args: str) -> str:
    """Run ``code`` in a fresh interpreter with the rule cache disabled; its stdout."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SMISTA_CACHE_DIR": ""}
    res = subprocess.run(
        [sys.executable, "-c", _PRELUDE + code, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    return res.stdout


def full_path_answers() -> list[dict[str, object]]:
    """What the validated path answers (the TOML read by the pydantic models)."""
    classifier = Classifier(load_config(default_pack_path()))
    return [classifier.classify(p).to_wire() for p in PROMPTS]


LIBRARY = """
import json, sys
import smista
prompts = json.loads(sys.argv[1])
answers = [smista.classify(p).to_wire() for p in prompts]
reprs = [repr(smista.classify(p)) for p in prompts]
print(json.dumps({
    "answers": answers,
    "reprs": reprs,
    "loaded": [m for m in json.loads(sys.argv[2]) if m in sys.modules and m not in _preloaded],
}))
"""


def test_first_classify_imports_no_pydantic_nor_toml() -> None:
    """``smista.classify`` on the default pack loads neither pydantic nor tomllib, and
    answers exactly what the validated path answers."""
    out = json.loads(fresh(LIBRARY, json.dumps(PROMPTS), json.dumps(HEAVY)))
    assert out["loaded"] == []
    assert out["answers"] == full_path_answers()
    classifier = Classifier(load_config(default_pack_path()))
    assert out["reprs"] == [repr(classifier.classify(p)) for p in PROMPTS]


@pytest.mark.parametrize(
    "call",
    [
        "from smista.api import classify; r = classify(p)",
        "from smista.config.defaults import default_classifier; r = default_classifier().classify(p)",
        "import smista; r = smista.default_classifier().classify(p, contexts=['git_diff'])",
    ],
)
def test_every_library_entry_stays_cold(call: str) -> None:
    """``smista.api.classify``, ``default_classifier()`` (with contexts too) stay off pydantic."""
    code = (
        "import json, sys\n"
        "p = sys.argv[1]\n"
        f"{call}\n"
        f"print(json.dumps([r.to_wire(), [m for m in {HEAVY!r} if m in sys.modules and m not in _preloaded]]))\n"
    )
    answer, loaded = json.loads(fresh(code, "review my last commit"))
    assert loaded == []
    classifier = Classifier(load_config(default_pack_path()))
    contexts = ["git_diff"] if "contexts" in call else []
    assert answer == classifier.classify("review my last commit", contexts=contexts).to_wire()


def test_config_is_built_when_asked_for() -> None:
    """The default classifier's ``config`` is the validated pack, built on first use; explain,
    equality and pickling work on it as on any classifier."""
    code = (
        "import pickle, sys\n"
        "import smista\n"
        "c = smista.default_classifier()\n"
        "c.classify('fix it')\n"
        "before = 'pydantic' in sys.modules and 'pydantic' not in _preloaded\n"
        "config = c.config\n"
        "after = 'pydantic' in sys.modules\n"
        "from smista.config.load import load_config\n"
        "from smista.config.defaults import default_config, shipped_rules_path\n"
        "from smista.core.classifier import Classifier\n"
        "full = Classifier(load_config(shipped_rules_path()))\n"
        "print(before, after, config is default_config(), config == full.config, c == full,"
        " hash(c) == hash(full), pickle.loads(pickle.dumps(c)) == c,"
        " c.explain('fix the bug') == full.explain('fix the bug'), repr(c) == repr(full))\n"
    )
    assert fresh(code).split() == ["False", "True"] + ["True"] * 7


def test_cli_classify_imports_only_what_it_needs() -> None:
    """``smista classify TEXT`` loads no pydantic, TOML parser, pathlib, shutil, json or
    argparse, and prints what it always printed."""
    code = (
        "import io, sys\n"
        "from contextlib import redirect_stdout\n"
        "from smista.cli import main\n"
        "buf = io.StringIO()\n"
        "with redirect_stdout(buf):\n"
        "    main(['classify', 'fix the login bug'])\n"
        "heavy = ('pydantic', 'tomllib', 'pathlib', 'shutil', 'json', 'smista.core.rules',"
        " 'argparse')\n"
        "print([m for m in heavy if m in sys.modules and m not in _preloaded])\n"
        "print(buf.getvalue(), end='')\n"
    )
    loaded, *lines = fresh(code).splitlines()
    assert loaded == "[]"
    result = Classifier(load_config(default_pack_path())).classify("fix the login bug")
    assert result.confidence is not None
    assert lines == [
        f"intent:     {result.intent.value} ({result.source.value})",
        f"confidence: {result.confidence.value}",
        f"reason:     {result.reason}",
    ]


@pytest.mark.parametrize(
    "text",
    [
        b"fix the login bug",
        b"",
        b"  -not an option after a space",
        "не редактируй файлы\nпросто объясни".encode(),
        b"please review\xff",  # not UTF-8: a usage error either way
        b"/plan the rollout",
    ],
)
def test_bare_classify_answers_as_the_parser_does(text: bytes, run_cli: Any) -> None:
    """``smista classify TEXT`` (no parser) answers, fails and exits exactly as
    ``smista classify -- TEXT`` (through argparse) does."""
    bare = run_cli([b"classify", text])
    parsed = run_cli([b"classify", b"--", text])
    assert (bare.returncode, bare.stdout, bare.stderr) == (
        parsed.returncode,
        parsed.stdout,
        parsed.stderr,
    )
    assert bare.returncode == (2 if text.endswith(b"\xff") else 0)


def test_cli_help_width_follows_columns() -> None:
    """Help is wrapped to ``$COLUMNS`` as argparse (through shutil) would wrap it."""
    import argparse
    import shutil

    from smista.cli._common import HelpFormatter

    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "60"}
    res = subprocess.run(
        [sys.executable, "-m", "smista", "classify", "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    assert max(len(line) for line in res.stdout.splitlines()) <= 58
    assert HelpFormatter("p")._width == argparse.HelpFormatter("p")._width
    assert HelpFormatter("p")._width == shutil.get_terminal_size().columns - 2
