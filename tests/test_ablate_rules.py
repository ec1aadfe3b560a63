"""tools/ablate_rules.py: a rule that only misreads is found, and --greedy removes it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "ablate_rules.py"

RULES = """\
[classification]
default_intent = "chat"

[[classification.rules]]
intent = "edit"
keywords = ["fix", "add", "change", "update", "implement", "create", "remove"]

[[classification.rules]]
intent = "summarize"
keywords = ["the"]
"""


def _run(tmp_path: Path, *args: str) -> str:
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(TOOL), "--rules", str(rules), "--through", "dev", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


def test_each_deciding_rule_is_listed_with_what_its_removal_changes(tmp_path: Path) -> None:
    out = _run(tmp_path)
    assert re.search(r"^prompts: recent 0, older 294, written \d+$", out, re.M)
    found = {
        int(m.group(1)): (int(m.group(2)), int(m.group(4)))
        for m in re.finditer(
            r"^  rule\s+(\d+): real ([+-]\d+) \(recent ([+-]\d+), older ([+-]\d+)\)", out, re.M
        )
    }
    # "the" as a summary misreads nearly every prompt it decides: taking it out gains;
    # the edit verbs read edits right, so taking them out loses.
    assert found[1][0] > 0
    assert found[1][0] == found[1][1]  # all of it on the older sets (no recent set read)
    assert found[0][0] < 0


def test_greedy_removes_the_rule_that_only_misreads_and_stops(tmp_path: Path) -> None:
    out = _run(tmp_path, "--greedy")
    removed = re.findall(r"^remove rule\s+(\d+):", out, re.M)
    assert removed == ["1"]
    assert out.rstrip().endswith("no removal left that gains enough")
    before, after = (int(m) for m in re.findall(r"^right: recent 0, older (\d+)", out, re.M)[:2])
    assert after > before
