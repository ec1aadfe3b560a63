"""The real-prompt sets: the dev set and its v3 split (tools/split_real_prompts.py), the
second sets, and the fresh held-out sets (fresh to fresh6)."""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "split_real_prompts", ROOT / "tools" / "split_real_prompts.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows() -> list[dict[str, object]]:
    lines = (DATA / "real-prompts-dev.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_every_row_keeps_its_fields() -> None:
    rows = _rows()
    assert len(rows) == 294
    assert all(set(r) == {"id", "text", "intent", "alt", "lang", "source"} for r in rows)
    assert len({r["id"] for r in rows}) == 294


def test_the_committed_split_is_what_the_tool_makes() -> None:
    made = _tool().make_split(_rows())
    committed = json.loads((DATA / "real-prompts-split.json").read_text(encoding="utf-8"))
    assert committed == made


def test_the_held_out_third_takes_whole_sources() -> None:
    rows = _rows()
    split = json.loads((DATA / "real-prompts-split.json").read_text(encoding="utf-8"))
    held = set(split["heldout_ids"])
    assert len(held) == split["heldout_count"] == round(len(rows) / 3)
    by_source: dict[object, Counter[bool]] = {}
    for row in rows:
        by_source.setdefault(row["source"], Counter())[row["id"] in held] += 1
    assert all(len(parts) == 1 for parts in by_source.values())  # never split
    assert {s for s, parts in by_source.items() if parts[True]} == set(split["heldout_sources"])


def _extra_rows() -> dict[str, list[dict[str, object]]]:
    return {
        p.name: [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line]
        for p in sorted(DATA.glob("real-prompts-extra-*.jsonl"))
    }


def test_the_second_sets_keep_the_dev_sets_fields_and_share_no_text_with_it() -> None:
    dev = {str(r["text"]) for r in _rows()}
    dev_sources = {str(r["source"]).split(":")[0] for r in _rows()}
    files = _extra_rows()
    assert files
    ids: set[object] = set()
    for rows in files.values():
        assert all(set(r) == {"id", "text", "intent", "alt", "lang", "source"} for r in rows)
        assert not {str(r["text"]) for r in rows} & dev
        assert not {str(r["source"]).split(":")[0] for r in rows} & dev_sources
        ids |= {r["id"] for r in rows}
    assert len(ids) == sum(map(len, files.values()))


def test_the_committed_second_split_is_what_the_tool_makes_and_takes_whole_sources() -> None:
    files = _extra_rows()
    made = _tool().make_extra_split(files)
    committed = json.loads((DATA / "real-prompts-extra-split.json").read_text(encoding="utf-8"))
    assert committed == made
    for name, rows in files.items():
        part = committed["files"][name]
        held = set(part["heldout_ids"])
        assert len(held) == part["heldout_count"] <= round(len(rows) / 2)
        assert part["heldout_count"] >= 0.4 * len(rows)
        by_source: dict[object, set[bool]] = {}
        for row in rows:
            by_source.setdefault(row["source"], set()).add(row["id"] in held)
        assert all(len(parts) == 1 for parts in by_source.values())


def test_the_fresh_set_keeps_the_fields_and_shares_no_text_or_source_with_the_others() -> None:
    """tests/data/real-prompts-fresh.jsonl, the held-out set: nothing in it comes from
    a page, file or prompt any tuned-on set holds."""
    path = DATA / "real-prompts-fresh.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert len(rows) == 314
    assert all(set(r) == {"id", "text", "intent", "alt", "lang", "source"} for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)
    others = [*_rows(), *(r for rs in _extra_rows().values() for r in rs)]
    assert not {str(r["text"]) for r in rows} & {str(r["text"]) for r in others}
    assert not {str(r["source"]) for r in rows} & {str(r["source"]) for r in others}


def test_the_second_fresh_set_shares_no_text_or_source_with_the_tuned_on_sets() -> None:
    """tests/data/real-prompts-fresh2.jsonl, the held-out set pack v5 is measured on:
    nothing in it comes from a page, file or prompt any tuned-on set holds."""
    rows = _jsonl(DATA / "real-prompts-fresh2.jsonl")
    assert len(rows) == 301
    assert all(set(r) == {"id", "text", "intent", "alt", "lang", "source"} for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)
    others = [
        *_rows(),
        *(r for rs in _extra_rows().values() for r in rs),
        *_jsonl(DATA / "real-prompts-fresh.jsonl"),
        *_jsonl(DATA / "real-prompts-fresh3.jsonl"),
    ]
    assert not {str(r["text"]) for r in rows} & {str(r["text"]) for r in others}
    assert not {str(r["source"]) for r in rows} & {str(r["source"]) for r in others}


_REPO_IN_URL = re.compile(r"github\.com/([\w.-]+/[\w.-]+)")
_REPO_BEFORE_PATH = re.compile(r"([\w.-]+/[\w.-]+):")


def _source_repos(source: str) -> set[str]:
    """Every owner/repo a source field names (a repository path, a mirror in brackets,
    or a github.com address)."""
    return set(_REPO_IN_URL.findall(source)) | set(_REPO_BEFORE_PATH.findall(source))


def _source_page(source: str) -> str | None:
    """The documentation page a source field starts with, if it names one."""
    return source.split(" ", 1)[0] if source.startswith(("http://", "https://")) else None


_LATER_SETS = {
    # name: (prompts, id prefix, the sets gathered before it)
    "fresh3": (301, "f3", ("fresh", "fresh2")),
    "fresh4": (291, "f4", ("fresh", "fresh2", "fresh3")),
    "fresh5": (300, "f5", ("fresh", "fresh2", "fresh3", "fresh4")),
    "fresh6": (275, "f6", ("fresh", "fresh2", "fresh3", "fresh4", "fresh5")),
    "fresh7": (531, "f7", ("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6")),
    "fresh8": (296, "f8", ("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7")),
    "fresh9": (
        311,
        "f9",
        ("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8"),
    ),
    "fresh10": (
        145,
        "f10",
        ("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9"),
    ),
    "fresh11": (
        267,
        "f11",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5"),
            *("fresh6", "fresh7", "fresh8", "fresh9", "fresh10"),
        ),
    ),
    "fresh12": (
        232,
        "f12",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5"),
            *("fresh6", "fresh7", "fresh8", "fresh9", "fresh10", "fresh11"),
        ),
    ),
    "fresh13": (
        205,
        "f13",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5"),
            *("fresh6", "fresh7", "fresh8", "fresh9", "fresh10", "fresh11", "fresh12"),
        ),
    ),
    "fresh14": (
        381,
        "f14",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13"),
        ),
    ),
    "fresh15": (
        412,
        "f15",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
        ),
    ),
    "fresh16": (
        406,
        "f16",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            "fresh15",
        ),
    ),
    "fresh17": (
        442,
        "f17",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16"),
        ),
    ),
    "fresh18": (
        310,
        "f18",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17"),
        ),
    ),
    "fresh19": (
        354,
        "f19",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18"),
        ),
    ),
    "fresh20": (
        334,
        "f20",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19"),
        ),
    ),
    "fresh21": (
        287,
        "f21",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20"),
        ),
    ),
    "fresh22": (
        264,
        "f22",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
        ),
    ),
    "fresh23": (
        311,
        "f23",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            "fresh22",
        ),
    ),
    "fresh24": (
        332,
        "f24",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            *("fresh22", "fresh23"),
        ),
    ),
    "fresh25": (
        322,
        "f25",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            *("fresh22", "fresh23", "fresh24"),
        ),
    ),
    "fresh26": (
        320,
        "f26",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            *("fresh22", "fresh23", "fresh24", "fresh25"),
        ),
    ),
    "fresh27": (
        317,
        "f27",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            *("fresh22", "fresh23", "fresh24", "fresh25", "fresh26"),
        ),
    ),
    "fresh28": (
        317,
        "f28",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            *("fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27"),
        ),
    ),
    "fresh29": (
        224,
        "f29",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            *("fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28"),
        ),
    ),
    "fresh30": (
        337,
        "f30",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            *("fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28"),
            "fresh29",
        ),
    ),
    "fresh31": (
        300,
        "f31",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            *("fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28"),
            *("fresh29", "fresh30"),
        ),
    ),
    "fresh32": (
        128,
        "f32",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            *("fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28"),
            *("fresh29", "fresh30", "fresh31"),
        ),
    ),
    "fresh33": (
        339,
        "f33",
        (
            *("fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"),
            *("fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14"),
            *("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21"),
            *("fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28"),
            *("fresh29", "fresh30", "fresh31", "fresh32"),
        ),
    ),
}

_LONGEST = {"fresh23": 4000}
"""A set's longest text where its protocol allowed more than 1,500 characters (fresh23's
said 4,000; its nine texts past 1,500 were scored with the rest, so they stay)."""


@pytest.mark.parametrize("name", sorted(_LATER_SETS))
def test_a_later_fresh_set_shares_no_text_repository_or_page_with_the_earlier_sets(
    name: str,
) -> None:
    """tests/data/real-prompts-fresh3.jsonl, -fresh4.jsonl, -fresh5.jsonl and -fresh6.jsonl, each
    gathered after the sets before it: fields are right, no text equals one in those sets, no repository
    source shares an owner/repo with any of their sources, and no documentation page
    (https://... sources, whose mirror repositories other sets may cite for other
    pages) is one they used."""
    total, prefix, earlier = _LATER_SETS[name]
    rows = _jsonl(DATA / f"real-prompts-{name}.jsonl")
    assert len(rows) == total
    assert all(set(r) == {"id", "text", "intent", "alt", "lang", "source"} for r in rows)
    assert [r["id"] for r in rows] == [f"{prefix}-{i:04d}" for i in range(1, len(rows) + 1)]
    intents = {"chat", "plan", "edit", "review", "summarize", "prompt", "skill"}
    assert all(r["intent"] in intents for r in rows)
    assert all(r["alt"] is None or (r["alt"] in intents and r["alt"] != r["intent"]) for r in rows)
    assert all(re.fullmatch(r"[a-z]{2}", str(r["lang"])) for r in rows)
    assert all(str(r["text"]) == str(r["text"]).strip() and r["text"] for r in rows)
    assert all(len(str(r["text"])) <= _LONGEST.get(name, 1500) for r in rows)
    assert len({str(r["text"]) for r in rows}) == len(rows)
    others = [
        *_rows(),
        *(r for rs in _extra_rows().values() for r in rs),
        *(r for other in earlier for r in _jsonl(DATA / f"real-prompts-{other}.jsonl")),
    ]
    assert not {str(r["text"]) for r in rows} & {str(r["text"]) for r in others}
    other_repos = set().union(*(_source_repos(str(r["source"])) for r in others))
    other_pages = {_source_page(str(r["source"])) for r in others} - {None}
    for row in rows:
        source = str(row["source"])
        page = _source_page(source)
        if page is None:
            assert _source_repos(source), source
            assert not _source_repos(source) & other_repos, source
        else:
            assert page not in other_pages, source


def _jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_the_second_labelling_covers_its_two_sets_exactly() -> None:
    """tests/data/second-labels.jsonl (benchmarks.agreement): one second label per prompt of
    the dev set and of fresh16, no other, each an intent with a different or null alt."""
    intents = {"chat", "plan", "edit", "review", "summarize", "prompt", "skill"}
    rows = _jsonl(DATA / "second-labels.jsonl")
    assert {r["set"] for r in rows} == {"dev", "fresh16"}
    assert all(list(r) == ["set", "id", "intent", "alt"] for r in rows)
    assert all(r["intent"] in intents and r["alt"] in intents | {None} for r in rows)
    assert all(r["alt"] != r["intent"] for r in rows)
    for name in ("dev", "fresh16"):
        first = [str(r["id"]) for r in _jsonl(DATA / f"real-prompts-{name}.jsonl")]
        second = [str(r["id"]) for r in rows if r["set"] == name]
        assert sorted(second) == sorted(first)
    assert len(rows) == len({(r["set"], r["id"]) for r in rows})
