"""smista eval: metrics on a fixture with a hand-counted confusion matrix; HTML."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista.authoring.evaluate import (
    Evaluation,
    GroupScore,
    evaluate_cases,
    evaluate_labels,
    parse_labelled,
    source_group,
    source_interval,
)
from smista.authoring.golden import load_cases
from smista.authoring.report import render_html, render_text
from smista.config.load import load_config
from smista.core.classifier import Classifier
from smista.core.errors import ConfigError
from smista.core.intent import INTENT_NAMES

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
RunCli = Callable[..., subprocess.CompletedProcess[bytes]]

RULES = DATA / "eval_rules.toml"
CASES = DATA / "eval_cases.jsonl"

# rows: expected, columns: predicted, in INTENT_NAMES order
# (chat plan edit review summarize prompt skill)
EXPECTED_MATRIX = (
    (1, 0, 0, 0, 0, 0, 0),  # chat: "hello"
    (0, 0, 1, 0, 0, 0, 0),  # plan: "plan the fix" -> edit (fix is tried first)
    (0, 0, 1, 1, 0, 0, 0),  # edit: "fix the bug"; "review and fix" -> review
    (0, 0, 0, 2, 0, 0, 0),  # review: both right
    (1, 0, 0, 0, 0, 0, 0),  # summarize: no rule -> chat
    (0, 0, 0, 0, 0, 0, 0),
    (0, 0, 0, 0, 0, 0, 0),
)


def fixture_evaluation() -> Evaluation:
    return evaluate_cases(Classifier(load_config(RULES)), load_cases(CASES))


def test_confusion_matrix_and_accuracy_match_the_hand_count() -> None:
    """The fixture's matrix, accuracy and misses are known exactly."""
    ev = fixture_evaluation()
    assert ev.labels == INTENT_NAMES
    assert ev.matrix == EXPECTED_MATRIX
    assert (ev.correct, ev.total) == (4, 7)
    assert ev.accuracy == pytest.approx(4 / 7)
    assert [(m.where, m.expected, m.got) for m in ev.misses] == [
        ("line 4", "plan", "edit"),
        ("line 7", "summarize", "chat"),
        ("line 8", "edit", "review"),
    ]
    assert ev.misses[0].reason == "keyword 'fix' matched rule 1"


def test_per_intent_precision_recall_f1() -> None:
    """P/R/F1 per intent, zero when undefined; macro F1 over intents present."""
    scores = {s.intent: s for s in fixture_evaluation().scores}
    assert scores["review"].precision == pytest.approx(2 / 3)
    assert scores["review"].recall == 1.0
    assert scores["review"].f1 == pytest.approx(0.8)
    assert (scores["edit"].precision, scores["edit"].recall, scores["edit"].f1) == (
        0.5,
        0.5,
        0.5,
    )
    assert scores["chat"].f1 == pytest.approx(2 / 3)
    assert (scores["plan"].precision, scores["plan"].f1, scores["plan"].support) == (
        0.0,
        0.0,
        1,
    )
    assert scores["skill"].support == 0
    assert scores["skill"].predicted == 0
    assert fixture_evaluation().macro_f1 == pytest.approx((2 / 3 + 0 + 0.5 + 0.8 + 0) / 5)


def test_evaluate_labels_of_a_perfect_run() -> None:
    """All-correct labels give accuracy 1 and a diagonal matrix."""
    ev = evaluate_labels([("chat", "chat"), ("edit", "edit"), ("edit", "edit")])
    assert ev.accuracy == 1.0
    assert ev.matrix[2][2] == 2
    assert not ev.misses


def test_text_report_lists_matrix_and_misses() -> None:
    """The printed report has the summary line, the matrix rows and each miss."""
    text = render_text(fixture_evaluation())
    assert text.splitlines()[0] == "accuracy: 57.1% (4/7)"
    assert re.search(r"^edit\s+0\s+0\s+1\s+1\s+0\s+0\s+0$", text, re.M)
    assert "misclassified: 3" in text
    assert "'plan the fix'" in text


def test_html_report_is_self_contained_escaped_and_has_the_heat_map() -> None:
    """No external assets, user text escaped, every matrix count present in its cell."""
    page = render_html(fixture_evaluation(), source="data <x>")
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"(src|href)\s*=", page)
    assert "<script" not in page
    assert "@import" not in page
    assert "summarize &lt;b&gt;it&lt;/b&gt; &amp; more" in page
    assert "<b>it</b>" not in page
    assert "data &lt;x&gt;" in page
    table = page[page.index('id="confusion-matrix"') : page.index("</table>")]
    cells = re.findall(r'<td style="([^"]*)"[^>]*>(\d+)</td>', table)
    assert [int(n) for _, n in cells] == [n for row in EXPECTED_MATRIX for n in row]
    review_diagonal = cells[3 * 7 + 3][0]
    assert "hsl(130" in review_diagonal  # green on the diagonal
    assert "hsl(0" in cells[1 * 7 + 2][0]  # red off it


def test_eval_cli_prints_metrics_json_and_writes_html(run_cli: RunCli, tmp_path: Path) -> None:
    """`smista eval` end to end: text, --json, --html, --min-accuracy."""
    report = tmp_path / "report.html"
    proc = run_cli(["eval", str(CASES), "--rules", str(RULES), "--html", str(report)])
    assert proc.returncode == 0, proc.stderr
    assert b"accuracy: 57.1% (4/7)" in proc.stdout
    assert b"confusion matrix" in proc.stdout
    assert report.exists()
    assert 'id="confusion-matrix"' in report.read_text(encoding="utf-8")
    doc = json.loads(run_cli(["eval", str(CASES), "--rules", str(RULES), "--json"]).stdout)
    assert doc["confusion_matrix"] == [list(r) for r in EXPECTED_MATRIX]
    assert doc["per_intent"]["review"]["f1"] == pytest.approx(0.8)
    low = run_cli(["eval", str(CASES), "--rules", str(RULES), "--min-accuracy", "0.9"])
    assert low.returncode == 1


ANNOTATED = DATA / "eval_annotated.jsonl"


def annotated_evaluation() -> Evaluation:
    text = ANNOTATED.read_text(encoding="utf-8")
    return evaluate_cases(Classifier(load_config(RULES)), parse_labelled(text, str(ANNOTATED)))


def test_alt_counts_as_correct_and_enters_the_matrix_as_the_expected_intent() -> None:
    """a2 (plan, alt edit) got edit: right; a3 (review, alt chat) got edit: wrong."""
    ev = annotated_evaluation()
    assert (ev.correct, ev.total) == (5, 7)
    plan = INTENT_NAMES.index("plan")
    assert ev.matrix[plan][plan] == 1
    assert [(m.where, m.expected, m.got) for m in ev.misses] == [
        ("line 3 (a3)", "review", "edit"),
        ("line 4 (a4)", "review", "chat"),
    ]


def test_accuracy_per_intent_and_per_language() -> None:
    ev = annotated_evaluation()
    by_intent = {g.group: (g.correct, g.total) for g in ev.by_intent}
    assert by_intent["review"] == (1, 3)
    assert by_intent["chat"] == (2, 2)
    assert by_intent["skill"] == (0, 0)
    assert [(g.group, g.correct, g.total) for g in ev.by_language] == [
        ("en", 2, 3),
        ("es", 2, 3),
    ]  # the last line names no language and is in no language group
    other = ev.non_english
    assert other is not None
    assert (other.correct, other.total) == (2, 3)
    assert other.accuracy == pytest.approx(2 / 3)


def test_plain_case_files_have_no_language_groups() -> None:
    ev = fixture_evaluation()
    assert ev.by_language == ()
    assert ev.non_english is None


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ('{"text": "x", "intent": "edit", "alt": "nope"}', "line 2.alt"),
        ('{"text": "x", "intent": "edit", "alt": 3}', "line 2.alt"),
        ('{"text": "x", "intent": "nope", "alt": "edit"}', "line 2.intent"),
        ('{"text": "x", "intent": "edit", "lang": ""}', "line 2.lang"),
        ('{"text": "x", "intent": "edit", "id": [1]}', "line 2.id"),
        ('{"text": "x", "intent": "edit", "source": 1}', "line 2.source"),
        ('{"text": "x", "intent": "edit", "colour": "red"}', "line 2.colour"),
        ("[1]", "line 2"),
        ("{", "line 2"),
    ],
)
def test_bad_annotated_lines_name_the_line_and_key(line: str, where: str) -> None:
    text = '{"text": "ok", "intent": "chat"}\n' + line + "\n"
    with pytest.raises(ConfigError) as info:
        parse_labelled(text, "cases.jsonl")
    assert info.value.path == "cases.jsonl"
    assert [loc for loc, _ in info.value.errors] == [where]


def test_toml_case_files_parse_as_before() -> None:
    toml = DATA / "eval_cases.toml"
    parsed = parse_labelled(toml.read_text(encoding="utf-8"), str(toml))
    assert [(c.where, c.case) for c in parsed] == [tuple(c) for c in load_cases(toml)]


def test_the_real_prompt_file_is_a_case_file() -> None:
    """Every line of the real-prompt set reads, with its alt and language."""
    path = DATA / "real-prompts-dev.jsonl"
    parsed = parse_labelled(path.read_text(encoding="utf-8"), str(path))
    assert len(parsed) == 294
    assert all(c.lang for c in parsed)
    assert sum(c.alt is not None for c in parsed) > 50


def test_eval_cli_reports_accuracy_per_intent_and_language(run_cli: RunCli) -> None:
    proc = run_cli(["eval", str(ANNOTATED), "--rules", str(RULES)])
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "accuracy: 71.4% (5/7)" in out
    assert re.search(r"^review\s+33\.3%\s+1\s+3$", out, re.M)
    assert re.search(r"^es\s+66\.7%\s+2\s+3$", out, re.M)
    assert re.search(r"^non-en\s+66\.7%\s+2\s+3$", out, re.M)
    doc = json.loads(run_cli(["eval", str(ANNOTATED), "--rules", str(RULES), "--json"]).stdout)
    assert doc["accuracy_by_language"]["en"] == {"correct": 2, "total": 3, "accuracy": 2 / 3}
    assert doc["accuracy_by_intent"]["chat"]["correct"] == 2


@pytest.mark.parametrize(
    ("source", "group"),
    [
        ("Owner/Repo:.claude/history.jsonl", "owner/repo"),
        ("owner/repo.js:docs/prompts.md", "owner/repo.js"),
        ("https://docs.example.com/a (mirror: x/y:docs/a.md)", "https://docs.example.com/a"),
        ("fixture", "fixture"),
        ("  spaced out  ", "spaced"),
        ("   ", "   "),
    ],
)
def test_a_source_is_resampled_by_its_repository_or_page(source: str, group: str) -> None:
    assert source_group(source) == group


def _sourced(rows: list[tuple[str | None, str, str]]) -> Evaluation:
    """Cases of the fixture rules: (source, text, intent) each."""
    lines = [
        json.dumps({"text": text, "intent": intent, **({"source": src} if src else {})})
        for src, text, intent in rows
    ]
    cases = parse_labelled("\n".join(lines), "cases.jsonl")
    return evaluate_cases(Classifier(load_config(RULES)), cases)


def test_accuracy_per_source_and_its_interval() -> None:
    ev = _sourced(
        [
            ("a/one:h.jsonl", "review this", "review"),
            ("a/one:other.md", "fix the bug", "edit"),
            ("b/two:h.jsonl", "hello", "chat"),
            ("b/two:h.jsonl", "review this", "chat"),
            ("https://x.dev/p", "hello", "summarize"),
        ]
    )
    assert [(g.group, g.correct, g.total) for g in ev.by_source] == [
        ("a/one", 2, 2),
        ("b/two", 1, 2),
        ("https://x.dev/p", 0, 1),
    ]
    interval = ev.interval
    assert interval is not None
    low, high = interval
    assert 0.0 <= low < ev.accuracy < high <= 1.0
    assert ev.interval == interval  # a fixed seed: the same data, the same interval
    doc = ev.to_json()
    assert doc["sources"] == 3
    assert doc["accuracy_interval_by_source"] == {
        "low": low,
        "high": high,
        "confidence": 0.95,
        "draws": 2000,
    }


def test_no_interval_without_two_sources_or_when_a_case_names_none() -> None:
    one = _sourced([("a/one:h", "hello", "chat"), ("a/one:h", "hello", "edit")])
    assert one.interval is None
    assert one.to_json()["accuracy_interval_by_source"] is None
    unnamed = _sourced(
        [("a/one:h", "hello", "chat"), ("b/two:h", "hello", "edit"), (None, "x", "chat")]
    )
    assert len(unnamed.by_source) == 2
    assert unnamed.interval is None  # an interval over part of the prompts would mislead
    assert fixture_evaluation().interval is None


@given(
    st.lists(
        st.integers(min_value=1, max_value=40).flatmap(
            lambda total: st.tuples(st.integers(min_value=0, max_value=total), st.just(total))
        ),
        min_size=2,
        max_size=30,
    )
)
def test_the_interval_lies_between_the_lowest_and_highest_source(
    tallies: list[tuple[int, int]],
) -> None:
    """Every resample's accuracy is a weighted mean of the sources', so the bounds are too."""
    groups = [GroupScore(f"s{i}", c, t) for i, (c, t) in enumerate(tallies)]
    found = source_interval(groups, draws=200)
    assert found is not None
    low, high = found
    rates = [c / t for c, t in tallies]
    assert min(rates) - 1e-12 <= low <= high <= max(rates) + 1e-12
    assert source_interval(groups, draws=200) == found


def test_eval_cli_prints_the_interval_resampling_sources(run_cli: RunCli) -> None:
    path = DATA / "real-prompts-fresh25.jsonl"
    proc = run_cli(["eval", str(path)])
    assert proc.returncode == 0, proc.stderr
    found = re.search(
        r"^95% interval, resampling the (\d+) sources \(prompts of one source go together\):"
        r" (\d+\.\d)% to (\d+\.\d)%$",
        proc.stdout.decode(),
        re.M,
    )
    assert found is not None
    assert int(found.group(1)) == 61
    low, high = float(found.group(2)), float(found.group(3))
    accuracy = re.search(r"^accuracy: (\d+\.\d)%", proc.stdout.decode(), re.M)
    assert accuracy is not None
    assert low < float(accuracy.group(1)) < high
    quiet = run_cli(["eval", str(ANNOTATED), "--rules", str(RULES)]).stdout.decode()
    assert "interval" not in quiet  # one source names all but two lines: no interval


def test_eval_cli_names_the_bad_line(run_cli: RunCli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "x", "intent": "edit", "alt": "nope"}\n', encoding="utf-8")
    proc = run_cli(["eval", str(bad)])
    assert proc.returncode != 0
    assert b"line 1.alt" in proc.stderr
    assert b"Traceback" not in proc.stderr


@pytest.mark.parametrize("command", ["eval", "test"])
def test_a_deeply_nested_case_line_is_one_line_naming_it(
    run_cli: RunCli, tmp_path: Path, command: str
) -> None:
    """JSON nested past the decoder's depth is a bad line (exit 2), not an internal
    RecursionError."""
    bad = tmp_path / "deep.jsonl"
    bad.write_text(
        '{"text": "fix it", "intent": "edit"}\n' + "[" * 100_000 + "\n", encoding="utf-8"
    )
    args = ["eval", str(bad)] if command == "eval" else ["test", "default", "--cases", str(bad)]
    proc = run_cli(args)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err == f"smista {command}: error: {bad}: line 2: invalid JSON: nested too deeply\n"


def test_a_negative_max_misses_is_a_usage_error(run_cli: RunCli) -> None:
    """``--max-misses -1`` is not read as a Python slice (every miss but the last)."""
    proc = run_cli(["eval", str(ANNOTATED), "--rules", str(RULES), "--max-misses", "-1"])
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr == b"smista eval: error: --max-misses must be 0 or more, got -1\n"


def test_max_misses_with_json_is_refused_not_ignored(run_cli: RunCli) -> None:
    """The JSON always lists every miss, so a limit given with --json would do nothing."""
    proc = run_cli(["eval", str(ANNOTATED), "--rules", str(RULES), "--json", "--max-misses", "1"])
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr == (
        b"smista eval: error: --max-misses limits the text report; "
        b"--json lists every misclassified prompt\n"
    )
