"""Every shell and Python example in README.md and docs/*.md runs, so the docs cannot drift.

How examples are found and run (follow these when you write docs):

* A fenced block whose language is ``sh``, ``shell``, ``bash`` or ``console``
  is a shell example. Each one is a test, named ``FILE:LINE``.
* If its lines start with ``$ `` (a prompt), each ``$ command`` is run on its
  own and the lines after it, up to the next ``$ `` line, are the expected
  output (stdout and stderr together; trailing blank lines ignored). In the
  expected output ``…`` stands for any text within a line, and a line that is
  only ``…`` stands for any number of lines (timings, timestamps).
  Otherwise the whole block is one bash script (``set -eo pipefail``) that
  must exit 0; its output is not compared.
* Commands run with ``bash`` in a fresh temporary directory per markdown file
  (examples of one file run in order and share it), holding copies of
  ``rules/``, ``schema/`` and ``tests/data/``. ``smista`` and ``python`` are
  this checkout's (``python -m smista``); ``SMISTA_CACHE_DIR`` and ``HOME``
  point into the temporary directory. There is no network.
* HTML comments right before a block (any number, one per line) steer it:

  - ``<!-- docs-test: skip (REASON) -->``: not run, reported as skipped with
    REASON (needs a server, the network, minutes of benchmarks...). Use it
    for every example that cannot run offline in a second or two;
  - ``<!-- docs-test: file NAME -->``: the block (any language) is not run
    but written to NAME in the temporary directory, for later examples;
  - ``<!-- docs-test: setup COMMAND -->``: COMMAND runs first (bash), to
    create an input the example uses without showing it;
  - ``<!-- docs-test: exit N -->``: every command must exit N (default 0);
  - ``<!-- docs-test: serve [ARGS] -->``: a real ``smista serve --port 0
    ARGS`` runs on loopback while the block runs, and ``localhost:8787`` in
    the block is rewritten to its address. When a ``json`` block follows
    right after, the block's stdout must be that JSON (compared parsed, so
    layout is free);
  - ``<!-- docs-test: ignore KEY[,KEY...] -->``: with ``serve``, these keys
    (at any depth) are left out of the JSON comparison (timestamps, latencies).

  - ``<!-- docs-test: needs MODULE[,MODULE...] -->``: skipped (with the
    reason) when one of these modules is not installed: examples of an
    optional extra (``pandas``, ``litellm``, ``mcp``, ``hypothesis``...);
  - ``<!-- docs-test: pytest -->``: a Python block that is a test module,
    run with ``python -m pytest`` (it must collect tests and pass).

* A fenced block whose language is ``python`` or ``py`` is a Python example,
  a test named ``FILE:LINE`` too. Each block runs on its own, as a script
  (``python BLOCK.py``; a fresh interpreter per block, so no block depends on
  another), in the same temporary directory, environment and ``PATH`` as the
  shell examples of its file, after its ``setup`` commands; it must exit 0
  (or the ``exit`` marker's status). The markers above apply, except
  ``serve`` and ``ignore``. A Python example checks what it claims:

  - state a result with ``assert``, e.g. ``assert result.intent == "edit"``
    rather than a comment ``result.intent  # edit``, which nothing checks;
  - or ``print`` it and put a ``text`` block right after the Python block
    (only blank lines between; not for a ``pytest`` block): the block's stdout
    must be that text, with ``…`` wildcards as in shell output.

  Files an example reads come from ``file`` blocks of the same markdown file
  (a config shown earlier) or from ``setup`` commands (e.g. copying a
  fixture of ``tests/data/docs/``).

A marker a block does not understand is an error, so a typo cannot silently
skip an example.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import ROOT, cli_env

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_LANGUAGES = {"sh", "shell", "bash", "console"}
PYTHON_LANGUAGES = {"python", "py"}
COPIED = ("rules", "schema", "tests/data")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(?P<body>.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)")


@dataclass
class Block:
    """One fenced block and the markers before it."""

    doc: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    skip: str | None = None
    file: str | None = None
    setup: list[str] = field(default_factory=list)
    exit: int = 0
    serve: list[str] | None = None
    ignore: set[str] = field(default_factory=set)
    answer: str | None = None  # the json block right after a serve block
    needs: list[str] = field(default_factory=list)
    pytest: bool = False
    output: str | None = None  # the text block right after a Python block

    @property
    def name(self) -> str:
        where = self.doc.relative_to(ROOT) if self.doc.is_relative_to(ROOT) else self.doc.name
        return f"{where}:{self.line}"

    @property
    def is_shell(self) -> bool:
        return self.lang in SHELL_LANGUAGES

    @property
    def is_python(self) -> bool:
        return self.lang in PYTHON_LANGUAGES


def _apply(block: Block, marker: str) -> None:
    if marker.startswith("skip"):
        reason = marker[4:].strip()
        if not (reason.startswith("(") and reason.endswith(")") and len(reason) > 2):
            raise ValueError(f"{block.name}: write the reason: docs-test: skip (REASON)")
        block.skip = reason[1:-1]
    elif marker.startswith("file "):
        block.file = marker[5:].strip()
    elif marker.startswith("setup "):
        block.setup.append(marker[6:].strip())
    elif marker.startswith("exit "):
        block.exit = int(marker[5:])
    elif marker == "serve" or marker.startswith("serve "):
        block.serve = marker[5:].split()
    elif marker.startswith("ignore "):
        block.ignore = {key.strip() for key in marker[7:].split(",") if key.strip()}
    elif marker.startswith("needs "):
        block.needs = [name.strip() for name in marker[6:].split(",") if name.strip()]
    elif marker == "pytest":
        block.pytest = True
    else:
        raise ValueError(f"{block.name}: unknown docs-test marker {marker!r}")


def parse_blocks(doc: Path) -> list[Block]:
    """The fenced blocks of ``doc`` with their markers."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending: list[str] = []
    previous_end = -1
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = MARKER.match(line)
        if marker:
            pending.append(marker.group("body"))
            i += 1
            continue
        fence = FENCE.match(line)
        if not fence:
            if line.strip():
                pending = []  # markers belong to the block right after them
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith(fence.group("fence")):
            end += 1
        block = Block(doc, i + 1, fence.group("lang"), "\n".join(lines[i + 1 : end]) + "\n")
        for body in pending:
            _apply(block, body)
        pending = []
        previous = blocks[-1] if blocks else None
        if previous is not None and all(not lines[n].strip() for n in range(previous_end + 1, i)):
            if block.lang == "json" and previous.serve is not None:
                previous.answer = block.text
            elif block.lang == "text" and previous.is_python and not previous.pytest:
                previous.output = block.text
        blocks.append(block)
        previous_end = end
        i = end + 1
    return blocks


ALL = [block for doc in DOCS for block in parse_blocks(doc)]
EXAMPLES = [block for block in ALL if block.is_shell and block.file is None]
PYTHON_EXAMPLES = [block for block in ALL if block.is_python and block.file is None]


def expected_pattern(expected: str) -> re.Pattern[str]:
    """``expected`` output as a regex: ``…`` is any text in a line, a ``…`` line any lines."""
    parts = []
    for line in expected.splitlines():
        if line.strip() == "…":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\n]*".join(re.escape(piece) for piece in line.rstrip().split("…")))
            parts.append(r"\n")
    return re.compile("".join(parts))


def console_steps(text: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` pairs of a block written with ``$`` prompts."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    out = []
    for command, lines in steps:
        while lines and not lines[-1].strip():
            lines.pop()
        out.append((command, "".join(f"{line}\n" for line in lines)))
    return out


@pytest.fixture(scope="module")
def workdirs(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Path]:
    """One working directory per markdown file, with the files examples expect."""
    base = tmp_path_factory.mktemp("docs")
    shims = base / "bin"
    shims.mkdir()
    for name, argv in (("smista", f'"{sys.executable}" -m smista'), ("python", sys.executable)):
        shim = shims / name
        shim.write_text(f'#!/bin/sh\nexec {argv} "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
    dirs: dict[Path, Path] = {}
    for n, doc in enumerate(DOCS):
        work = base / f"{n}-{doc.stem}"
        for name in COPIED:
            shutil.copytree(ROOT / name, work / name)
        for block in parse_blocks(doc):
            if block.file is not None:
                (work / block.file).write_text(block.text, encoding="utf-8")
        dirs[doc] = work
    return dirs


def example_env(work: Path, shims: Path) -> dict[str, str]:
    """The environment examples run in (shell and Python alike)."""
    env = cli_env(SMISTA_CACHE_DIR=str(work / ".cache"), HOME=str(work))
    env["PATH"] = f"{shims}{os.pathsep}{env.get('PATH', '')}"
    env.pop("SMISTA_API_TOKEN", None)
    for name in ("NO_COLOR", "COLUMNS"):
        env.pop(name, None)
    env["COLUMNS"] = "80"  # argparse help wraps at the terminal width
    return env


def run_shell(script: str, work: Path, shims: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", "set -eo pipefail\n" + script],
        cwd=work,
        env=example_env(work, shims),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_markdown_files_have_shell_examples() -> None:
    """The collector finds examples (a broken parser would make every test vanish)."""
    assert len(EXAMPLES) >= 10
    assert {b.doc.name for b in EXAMPLES} >= {"README.md", "tiers.md", "http.md"}
    answered = [b for b in EXAMPLES if b.serve is not None and b.answer is not None]
    assert len(answered) >= 4  # the HTTP examples are compared with the answers shown


def test_the_markdown_files_have_python_examples() -> None:
    """Every Python block is collected; the README's all run (none is skipped)."""
    assert len(PYTHON_EXAMPLES) >= 15
    readme = [b for b in PYTHON_EXAMPLES if b.doc.name == "README.md"]
    assert len(readme) >= 3
    assert all(b.skip is None for b in readme)
    assert [b for b in PYTHON_EXAMPLES if b.output is not None]  # some compare their output
    assert [b for b in PYTHON_EXAMPLES if b.pytest]


def _prepare(block: Block, workdirs: dict[Path, Path]) -> tuple[Path, Path]:
    """Skip ``block`` if it says so or lacks a module; run its setup; its (work, shims) dirs."""
    if block.skip is not None:
        pytest.skip(f"{block.name}: docs-test: skip ({block.skip})")
    for module in block.needs:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{block.name}: docs-test: needs {module}, which is not installed")
    work = workdirs[block.doc]
    shims = work.parent / "bin"
    for command in block.setup:
        done = run_shell(command, work, shims)
        assert done.returncode == 0, f"setup {command!r} failed:\n{done.stderr}"
    return work, shims


@pytest.mark.parametrize("block", EXAMPLES, ids=[b.name for b in EXAMPLES])
def test_shell_example(block: Block, workdirs: dict[Path, Path]) -> None:
    """The example runs, exits as documented, and prints what the docs show."""
    work, shims = _prepare(block, workdirs)
    if block.serve is not None:
        served(block, work, shims)
        return
    steps = console_steps(block.text)
    if not steps:
        done = run_shell(block.text, work, shims)
        assert done.returncode == block.exit, f"{block.name}\n{done.stdout}\n{done.stderr}"
        return
    for command, expected in steps:
        done = run_shell(command, work, shims)
        shown = done.stdout + done.stderr
        assert done.returncode == block.exit, f"$ {command}\n{shown}"
        actual = "".join(f"{line.rstrip()}\n" for line in shown.splitlines())
        assert expected_pattern(expected).fullmatch(actual), (
            f"{block.name}: $ {command}\n--- the docs show ---\n{expected}"
            f"--- the command printed ---\n{actual}"
        )


@pytest.mark.parametrize("block", PYTHON_EXAMPLES, ids=[b.name for b in PYTHON_EXAMPLES])
def test_python_example(block: Block, workdirs: dict[Path, Path]) -> None:
    """The example runs (its asserts hold) and prints the text block shown after it."""
    work, shims = _prepare(block, workdirs)
    scripts = work / ".docs-test"
    scripts.mkdir(exist_ok=True)
    stem = re.sub(r"\W", "_", f"{block.doc.stem}_{block.line}")
    script = scripts / (f"test_{stem}.py" if block.pytest else f"{stem}.py")
    script.write_text(block.text, encoding="utf-8")
    command = [sys.executable, str(script)]
    if block.pytest:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(script)]
    done = subprocess.run(
        command,
        cwd=work,
        env=example_env(work, shims),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == block.exit, f"{block.name}\n{done.stdout}\n{done.stderr}"
    if block.output is not None:
        actual = "".join(f"{line.rstrip()}\n" for line in done.stdout.splitlines())
        assert expected_pattern(block.output).fullmatch(actual), (
            f"{block.name}\n--- the docs show ---\n{block.output}"
            f"--- the example printed ---\n{actual}"
        )


def _without(value: object, keys: set[str]) -> object:
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def served(block: Block, work: Path, shims: Path) -> None:
    """Run ``block`` against a real service; compare its stdout with the json block after it."""
    import json

    pytest.importorskip("uvicorn")
    from tests.live import LiveServer

    assert block.serve is not None
    args = [str(work / a) if (work / a).is_file() else a for a in block.serve]
    with LiveServer(args) as live:
        script = block.text.replace("localhost:8787", f"127.0.0.1:{live.port}")
        done = run_shell(script, work, shims)
    assert done.returncode == block.exit, f"{block.name}\n{done.stdout}\n{done.stderr}"
    if block.answer is None:
        return
    shown, expected = json.loads(done.stdout), json.loads(block.answer)
    assert _without(shown, block.ignore) == _without(expected, block.ignore), (
        f"{block.name}: the docs show\n{block.answer}the service answered\n{done.stdout}"
    )


def test_markers_are_understood_and_attached(tmp_path: Path) -> None:
    """Markers steer the next block only; an unknown marker or a skip without a reason
    is an error."""
    doc = tmp_path / "x.md"
    doc.write_text(
        "<!-- docs-test: skip (needs a server) -->\n```sh\ncurl x\n```\n"
        "text\n<!-- docs-test: file a.toml -->\n<!-- docs-test: exit 2 -->\n```toml\nk = 1\n```\n"
        "```console\n$ smista x\nout …\n…\n\n$ y\n```\n",
        encoding="utf-8",
    )
    first, second, third = parse_blocks(doc)
    assert (first.skip, first.file) == ("needs a server", None)
    assert (second.file, second.exit, second.is_shell) == ("a.toml", 2, False)
    assert third.skip is None
    assert console_steps(third.text) == [("smista x", "out …\n…\n"), ("y", "")]
    assert expected_pattern("out …\n…\n").fullmatch("out 1 2\nmore\nlines\n")
    assert not expected_pattern("out\n").fullmatch("out\nextra\n")
    doc.write_text(
        "<!-- docs-test: serve --rules r.toml -->\n<!-- docs-test: ignore ts,ms -->\n"
        '```sh\ncurl localhost:8787/x\n```\n\n```json\n{"a": 1}\n```\n',
        encoding="utf-8",
    )
    call, answer = parse_blocks(doc)
    assert (call.serve, call.ignore, call.answer) == (
        ["--rules", "r.toml"],
        {"ts", "ms"},
        '{"a": 1}\n',
    )
    assert answer.lang == "json"
    doc.write_text(
        "<!-- docs-test: needs pandas, pyarrow -->\n<!-- docs-test: pytest -->\n"
        "```python\ndef test_x(): pass\n```\n\n```text\nnot an output\n```\n"
        "```py\nprint(1)\n```\n\n```text\n1\n```\n"
        "```python\nx = 1\n```\nprose\n```text\nnot its output\n```\n",
        encoding="utf-8",
    )
    module, _, printing, _, silent, _ = parse_blocks(doc)
    assert (module.needs, module.pytest, module.output) == (["pandas", "pyarrow"], True, None)
    assert module.is_python
    assert printing.is_python
    assert not module.is_shell
    # the text block right after a Python block is its output, unless it is a test module
    assert (printing.output, printing.pytest, printing.needs) == ("1\n", False, [])
    assert silent.output is None  # prose in between: not its output
    for bad in ("<!-- docs-test: skipp -->", "<!-- docs-test: skip -->"):
        doc.write_text(f"{bad}\n```sh\nx\n```\n", encoding="utf-8")
        with pytest.raises(ValueError, match="docs-test"):
            parse_blocks(doc)
