"""`smista batch`: JSONL in, classification JSONL out, in order, whatever the input."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smista.config.defaults import default_classifier
from smista.config.rulecache import load_rules
from smista.core.workspace import Workspace
from smista.scale.batch import (
    LONE_SURROGATE,
    BatchStats,
    classify_block,
    iter_blocks,
    iter_spans,
    run_batch,
)
from tests.conftest import RunCli, cli_env

PROMPTS = [
    "fix the login bug",
    "please reveiw my changes",
    "summarise this thread",
    "what does this function do?",
    "Write a sysprompt for the agent",
    "café naïve ΟΔΥΣΣΕΥΣ 🚀 refactor",
    "",
]


def expected_line(record: dict[str, Any]) -> dict[str, Any]:
    """What the library API says for this record (the wire JSON, id first)."""
    workspace = Workspace(**record["workspace"]) if record.get("workspace") else None
    result = default_classifier().classify(
        record["text"],
        command=record.get("command"),
        contexts=record.get("contexts") or (),
        workspace=workspace,
    )
    out: dict[str, Any] = {"id": record["id"]} if "id" in record else {}
    out.update(json.loads(result.model_dump_json(exclude_none=True)))
    return out


def records(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        record: dict[str, Any] = {"id": i, "text": PROMPTS[i % len(PROMPTS)]}
        if i % 3 == 1:
            record["contexts"] = ["git_diff"]
        if i % 11 == 5:
            record["workspace"] = {"git_diff": "", "referenced_paths": ["a.py"]}
        if i % 13 == 7:
            record["command"] = "Plan"
        out.append(record)
    return out


def jsonl(items: list[Any]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items).encode()


def parse(output: bytes) -> list[dict[str, Any]]:
    # JSONL lines end at b"\n" only (str.splitlines would also cut at U+2028,
    # U+0085 and others, which JSON strings may hold unescaped).
    return [json.loads(line) for line in output.split(b"\n") if line]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_order_and_results_with_any_number_of_workers(workers: int) -> None:
    """Tiny blocks over several workers still give every result, in input order."""
    items = records(400)
    sink = io.BytesIO()
    stats = run_batch(
        load_rules(None), io.BytesIO(jsonl(items)), sink, workers=workers, block_bytes=200
    )
    got = parse(sink.getvalue())
    assert got == [expected_line(r) for r in items]
    assert stats.records == len(items)
    assert stats.lines == len(items)


def test_output_bytes_are_the_wire_json() -> None:
    """Each line is exactly model_dump_json(exclude_none=True), with the id in front."""
    out = classify_block(load_rules(None), b'{"text":"fix it","id":"x"}\n{"text":"hello"}', 1)
    first, second = out.decode().splitlines()
    wire = default_classifier().classify("fix it").model_dump_json(exclude_none=True)
    assert first == '{"id":"x",' + wire[1:]
    assert second == default_classifier().classify("hello").model_dump_json(exclude_none=True)


def test_ids_of_any_json_type_come_back_unchanged() -> None:
    """Numbers, strings, null, arrays and objects are echoed as given."""
    ids: list[Any] = [0, -7, 2.5, 10**30, "abc", "ünï", None, [1, "a"], {"k": [True]}, False]
    items = [{"id": i, "text": "fix it"} for i in ids]
    got = parse(classify_block(load_rules(None), jsonl(items), 1))
    assert [g["id"] for g in got] == ids


def test_an_empty_context_name_is_an_error_line_as_on_the_command_line() -> None:
    """``--context ''`` and the service refuse an empty context kind; so does a batch line."""
    lines = [
        b'{"text": "x", "contexts": [""]}',
        b'{"text": "x", "contexts": ["git_diff", " "]}',
        b'{"messages": [{"role": "user", "content": "x"}], "contexts": [""]}',
        b'{"text": "x", "contexts": ["git_diff"]}',
    ]
    got = parse(classify_block(load_rules(None), b"\n".join(lines), 1))
    assert [g.get("error") for g in got[:3]] == [
        "contexts[0]: a context kind cannot be empty",
        "contexts[1]: a context kind cannot be empty",
        "contexts[0]: a context kind cannot be empty",
    ]
    assert "intent" in got[3]


def test_bad_lines_become_error_objects_and_the_run_goes_on() -> None:
    """Every kind of bad line yields one error object naming its line (and id)."""
    lines = [
        b"not json",
        b"[1, 2]",
        b'{"text": 5, "id": 1}',
        b'{"id": 2}',
        b'{"text": "x", "colour": "red", "id": 3}',
        b'{"text": "x", "command": "deploy", "id": 4}',
        b'{"text": "x", "contexts": "git_diff", "id": 5}',
        b'{"text": "x", "contexts": [1], "id": 6}',
        b'{"text": "x", "workspace": {"git_dif": ""}, "id": 7}',
        b'{"text": "x", "workspace": [], "id": 8}',
        b'{"text": "x", "workspace": {"referenced_paths": null}, "id": 9}',
        b'{"text": "x", "id": NaN}',
        b'{"text": "x", "id": 1e400}',
        b'{"text": "x"} trailing',
        b"\xff\xfe not utf-8",
        b'{"text": "how does this work?", "id": "ok"}',
    ]
    got = parse(classify_block(load_rules(None), b"\n".join(lines), 10))
    assert len(got) == len(lines)
    errors, last = got[:-1], got[-1]
    assert [e["line"] for e in errors] == list(range(10, 10 + len(lines) - 1))
    assert all(set(e) <= {"id", "line", "error"} and e["error"] for e in errors)
    assert [e.get("id") for e in errors[2:11]] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    messages = [e["error"] for e in errors]
    assert messages[0].startswith("invalid JSON")
    assert messages[1] == "expected a JSON object, got an array"
    assert messages[2] == "text: expected a string, got a number"
    assert messages[3] == "text: missing required key"
    assert messages[4].startswith("colour: unknown key")
    assert "unknown task intent: 'deploy'" in messages[5]
    assert messages[6].startswith("contexts: expected an array")
    assert messages[7] == "contexts[0]: expected a string, got a number"
    assert messages[8].startswith("workspace.git_dif: unknown key")
    assert messages[9] == "workspace: expected an object, got an array"
    assert messages[10] == ("workspace.referenced_paths: expected an array of strings, got null")
    assert "NaN" in messages[11]
    assert messages[12] == "invalid JSON: number 1e400 is out of range"
    assert messages[13].startswith("invalid JSON: Extra data")
    assert messages[14].startswith("not valid UTF-8")
    assert last["id"] == "ok"
    assert last["intent"] == "chat"


def test_blank_lines_are_skipped_and_line_numbers_stay_true() -> None:
    """Empty and whitespace-only lines give no output; errors keep their real line."""
    data = b'\n{"text":"fix it"}\n   \n\nbad\n'
    got = parse(classify_block(load_rules(None), data, 1))
    assert [g.get("line") for g in got] == [None, 5]


@pytest.mark.parametrize(
    "line",
    [
        b'{"text":"x","id":"\\ud800"}',
        b'{"text":"fix \\udc00 it"}',
        b'{"text":"x","contexts":["\\uD83D"]}',
    ],
)
def test_lone_surrogates_are_refused_as_the_server_refuses_them(line: bytes) -> None:
    """A lone \\ud800-\\udfff escape is invalid JSON here too (an error line, no id)."""
    out = classify_block(load_rules(None), line, 1)
    assert json.loads(out) == {"line": 1, "error": LONE_SURROGATE}
    out.decode("utf-8")


def test_surrogate_pairs_are_fine() -> None:
    out = classify_block(
        load_rules(None), b'{"text":"fix it \\ud83d\\ude00","id":"\\ud83d\\ude00"}', 1
    )
    assert json.loads(out)["id"] == "\U0001f600"


def from_file_and_memory(
    path: Path, data: bytes, *, workers: int, block_bytes: int
) -> tuple[bytes, bytes, BatchStats]:
    """Output of ``workers`` reading ``data`` from a file, output in-process, file stats."""
    path.write_bytes(data)
    in_memory = io.BytesIO()
    run_batch(load_rules(None), io.BytesIO(data), in_memory, workers=1)
    with path.open("rb") as source:
        sink = io.BytesIO()
        stats = run_batch(load_rules(None), source, sink, workers=workers, block_bytes=block_bytes)
        assert source.tell() == len(data)  # consumed, as a stream would be
    return sink.getvalue(), in_memory.getvalue(), stats


@pytest.mark.parametrize("workers", [2, 3])
def test_a_regular_file_is_read_by_the_workers(tmp_path: Path, workers: int) -> None:
    """From a file, workers read their own spans; output is the same as in-process."""
    items = records(300)
    data = b"\n\n" + jsonl(items) + b'{"text": "no newline at the end", "id": "last"}'
    got, expected, stats = from_file_and_memory(
        tmp_path / "in.jsonl", data, workers=workers, block_bytes=150
    )
    assert got == expected
    assert stats.lines == len(items) + 3
    assert stats.records == len(items) + 1


def test_a_file_read_from_part_way(tmp_path: Path) -> None:
    """A file whose first bytes were already consumed is classified from there on."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"text": "skipped header"}\n' + jsonl(records(50)))
    with path.open("rb") as source:
        source.readline()
        sink = io.BytesIO()
        run_batch(load_rules(None), source, sink, workers=2, block_bytes=100)
    assert parse(sink.getvalue()) == [expected_line(r) for r in records(50)]


@pytest.mark.parametrize("data", [b"", b"\n", b"\n\n", b"x", b"x\n", b"a\nb", b"ab\n\ncd\n"])
def test_an_empty_or_tiny_file_from_workers(tmp_path: Path, data: bytes) -> None:
    got, expected, _ = from_file_and_memory(tmp_path / "in", data, workers=2, block_bytes=1)
    assert got == expected


@settings(max_examples=300)
@given(
    st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    st.booleans(),
    st.integers(1, 40),
    st.integers(0, 5),
)
def test_spans_are_the_blocks(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[bytes],
    trailing: bool,
    size: int,
    skip: int,
) -> None:
    """iter_spans cuts a file into whole lines, numbered as iter_blocks numbers them."""
    data = b"\n".join(lines) + (b"\n" if trailing and lines else b"")
    skip = min(skip, len(data))
    path = tmp_path_factory.mktemp("spans") / "in"
    path.write_bytes(data)
    blocks = list(iter_blocks(io.BytesIO(data[skip:]), size=size))
    with path.open("rb") as fh:
        spans = list(iter_spans(fh.fileno(), skip, len(data), size))
    # Both cover the same bytes in order, cut only at newlines, numbered alike.
    assert b"\n".join(data[o : o + n] for o, n, _, _ in spans) == b"\n".join(
        b for b, _, _ in blocks
    )
    line = 1
    for offset, length, first, count in spans:
        assert first == line
        assert count == data[offset : offset + length].count(b"\n") + 1
        line += count
    assert line == sum(count for _, _, count in blocks) + 1


def test_blocks_hold_whole_lines_whatever_the_read_size() -> None:
    """iter_blocks never splits a line and numbers blocks by their first line."""
    data = b"".join(b"line %d\n" % i for i in range(1, 200)) + b"last"
    blocks = list(iter_blocks(io.BytesIO(data), size=17))
    joined = b"\n".join(b for b, _, _ in blocks)
    assert joined == data
    for block, first, count in blocks:
        assert block.split(b"\n")[0] in (b"line %d" % first, b"last")
        assert count == block.count(b"\n") + 1


def test_cli_stdin_to_stdout(run_cli: RunCli, tmp_path: Path) -> None:
    """No FILE reads stdin; output goes to stdout; nothing on stderr off a terminal."""
    items = records(30)
    done = run_cli(
        ["batch", "--workers", "2"],
        stdin=jsonl(items),
        env=cli_env(SMISTA_CACHE_DIR=str(tmp_path)),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert parse(done.stdout) == [expected_line(r) for r in items]


def test_cli_file_to_file_with_rules(run_cli: RunCli, tmp_path: Path) -> None:
    """FILE and -o FILE, with a user's rules file."""
    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[classification]\ndefault_intent = "plan"\n'
        '[[classification.rules]]\nintent = "review"\nkeywords = ["zorkmid"]\n',
        encoding="utf-8",
    )
    source = tmp_path / "in.jsonl"
    source.write_bytes(jsonl([{"text": "zorkmad this", "id": 1}, {"text": "hello", "id": 2}]))
    target = tmp_path / "out.jsonl"
    done = run_cli(
        ["batch", str(source), "-o", str(target), "--rules", str(rules), "--workers", "1"],
        env=cli_env(SMISTA_CACHE_DIR=str(tmp_path / "cache")),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""
    first, second = parse(target.read_bytes())
    assert first == {
        "id": 1,
        "intent": "review",
        "source": "inferred",
        "reason": "keyword 'zorkmid' matched rule 0",
        "matched_rule": 0,
        "confidence": "medium",
    }
    assert second == {
        "id": 2,
        "intent": "plan",
        "source": "inferred",
        "reason": "no rule matched; default intent 'plan'",
        "confidence": "low",
    }


def test_cli_usage_errors(run_cli: RunCli, tmp_path: Path) -> None:
    """Bad worker counts, missing input and bad rules are one-line errors, exit 2."""
    done = run_cli(["batch", "--workers", "0"], stdin=b"")
    assert done.returncode == 2
    assert b"--workers" in done.stderr
    done = run_cli(["batch", "--workers", "100000"], stdin=b"")
    assert done.returncode == 2
    assert b"--workers 100000 is more than" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    done = run_cli(["batch", str(tmp_path / "missing.jsonl")])
    assert done.returncode == 2
    assert b"cannot read" in done.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[classification]\nrules = 3\n", encoding="utf-8")
    done = run_cli(["batch", "--rules", str(bad)], stdin=b'{"text":"x"}\n')
    assert done.returncode == 2
    assert done.stderr.count(b"\n") == 1
    assert b"classification.rules" in done.stderr


def test_progress_shows_on_a_terminal_only(tmp_path: Path) -> None:
    """With stderr on a terminal a progress line appears; stdout holds only JSONL."""
    import os
    import subprocess
    import sys

    source = tmp_path / "in.jsonl"
    source.write_bytes(jsonl(records(50)))
    controller, terminal = os.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "smista", "batch", "--workers", "1", str(source)],
            stdout=subprocess.PIPE,
            stderr=terminal,
            env=cli_env(SMISTA_CACHE_DIR=str(tmp_path)),
            timeout=120,
            check=False,
        )
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
    assert done.returncode == 0
    assert b"50 lines" in shown
    assert len(parse(done.stdout)) == 50


@settings(max_examples=200)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=40),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                lambda inner: (
                    st.lists(inner, max_size=3)
                    | st.dictionaries(
                        st.sampled_from(["text", "id", "command", "contexts", "workspace", "x"]),
                        inner,
                        max_size=4,
                    )
                ),
                max_leaves=8,
            ).map(lambda v: json.dumps(v).encode()),
        ),
        max_size=8,
    )
)
def test_no_input_line_stops_the_run(lines: list[bytes]) -> None:
    """Any bytes give one valid JSON output line per non-blank input line."""
    lines = [line.replace(b"\n", b" ") for line in lines]
    out = classify_block(load_rules(None), b"\n".join(lines), 1)
    got = parse(out) if out else []
    assert len(got) == sum(1 for line in lines if line.strip())
