"""Issue 15, the first hour of a new user: each defect they hit, pinned by a test.

CLI behaviour is tested through the real entry point (``python -m smista``) in
a subprocess; the server through a real ``smista serve`` on loopback.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, RunCli, cli_env


def one_line_error(proc: subprocess.CompletedProcess[bytes], status: int = 2) -> str:
    """The single stderr line of a failed command (asserting there is one)."""
    err = proc.stderr.decode()
    assert proc.returncode == status, err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


# -- install hints that work from a checkout ---------------------------------------


def test_a_missing_extra_is_hinted_with_a_checkout_install(run_cli: RunCli, tmp_path: Path) -> None:
    """smista is on no package index: the hint is pip install '.[server]'."""
    blocked = tmp_path / "uvicorn"
    blocked.mkdir()
    (blocked / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'uvicorn'\", name='uvicorn')\n"
    )
    env = cli_env()
    env["PYTHONPATH"] = f"{tmp_path}:{env['PYTHONPATH']}"
    err = one_line_error(run_cli(["serve", "--port", "0"], env=env))
    assert "pip install '.[server]'" in err
    assert "smista[" not in err


def test_the_extras_table_is_pyprojects() -> None:
    """Every extra of pyproject.toml is in the table, with the modules its requirements
    install (a new extra cannot be forgotten by the hints and ``smista doctor``)."""
    import re
    import tomllib

    from smista._edge.extras import EXTRAS

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {
        extra: tuple(
            re.match(r"[A-Za-z0-9._-]+", requirement).group().lower().replace("-", "_")  # type: ignore[union-attr]
            for requirement in requirements
        )
        for extra, requirements in project["optional-dependencies"].items()
    }
    assert declared == EXTRAS


def test_smista_mcp_without_the_sdk_hints_the_mcp_extra(run_cli: RunCli, tmp_path: Path) -> None:
    """``smista mcp`` without the mcp SDK names the extra to install, not an import error."""
    blocked = tmp_path / "mcp"
    blocked.mkdir()
    (blocked / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n"
    )
    env = cli_env()
    env["PYTHONPATH"] = f"{tmp_path}:{env['PYTHONPATH']}"
    err = one_line_error(run_cli(["mcp"], env=env))
    assert err == (
        "smista mcp: error: needs mcp; install it with: "
        "pip install '.[mcp]' (from the smista checkout)\n"
    )


def test_doctor_lists_every_extra(run_cli: RunCli) -> None:
    """``smista doctor`` reports each extra of pyproject.toml, installed or missing."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    done = run_cli(["doctor", "--json"])
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)["extras"]) == set(project["optional-dependencies"])


def test_no_doc_suggests_installing_from_a_package_index() -> None:
    """README, docs and sources never say pip install 'smista[...]'."""
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "smista").rglob("*.py")]
    offenders = [str(p) for p in texts if "smista[" in p.read_text(encoding="utf-8")]
    assert offenders == []


# -- smista batch ----------------------------------------------------------------------


def read_terminal(controller: int) -> bytes:
    """Everything written to the pty until its other end is closed."""
    import os

    shown = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    return shown


def _ctrl_c_as_on_a_terminal() -> None:
    """In the child before exec: SIGINT back to its default. A process started in the
    background of a non-interactive shell (``nohup .ci/run &``) inherits SIGINT ignored,
    and Python then never turns it into KeyboardInterrupt: a terminal user's Ctrl-C
    always reaches the program."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def batch_on_a_terminal(args: list[str], stdin: int | None = None, stdout: int | None = None):
    """Start ``smista batch ARGS`` with stderr on a pty; (process, pty controller)."""
    import os
    import subprocess
    import sys

    controller, terminal = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "smista", "batch", "--workers", "1", *args],
        stdin=stdin,
        stdout=subprocess.PIPE if stdout is None else stdout,
        stderr=terminal,
        env=cli_env(),
        preexec_fn=_ctrl_c_as_on_a_terminal,
    )
    os.close(terminal)
    return proc, controller


def test_batch_progress_clears_its_line_and_shows_percentage_for_a_file(tmp_path: Path) -> None:
    """Each redraw clears the line; a file gets a percentage and the time left; the
    final summary counts the bad lines."""
    import os

    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"text":"fix it"}\nnot json\n{"text":"plan it"}\n{"txt":"x"}\n')
    proc, controller = batch_on_a_terminal([str(source)])
    try:
        out, _ = proc.communicate(timeout=120)
        shown = read_terminal(controller).decode().replace("\r\n", "\n")  # the pty's onlcr
    finally:
        os.close(controller)
    assert proc.returncode == 0
    assert len(out.splitlines()) == 4
    redraws = shown.split("\r")[1:]
    assert redraws, shown
    assert all(r.startswith("\x1b[K") for r in redraws), shown
    assert "100%, 0:00 left" in redraws[0], shown
    assert redraws[-1].startswith("\x1b[Ksmista batch: 4 lines in ")
    assert "; 2 bad lines (first: line 2)" in redraws[-1]
    assert shown.endswith("\n")


def test_batch_after_ctrl_c_ends_the_progress_line() -> None:
    """Interrupted, the progress line is finished with a newline (exit 130)."""
    import os
    import signal
    import subprocess
    import time

    proc, controller = batch_on_a_terminal([], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    assert proc.stdin is not None
    try:
        proc.stdin.write(b'{"text":"fix it"}\n' * 20000)  # more than one block
        proc.stdin.flush()
        shown = b""
        while b"lines/s" not in shown:  # the first block was classified
            shown += os.read(controller, 4096)
        # Interrupt it while it waits for more input. (A SIGINT that lands while
        # CPython copies a read buffer in C is only noticed at the next syscall
        # return: a known race of blocking reads, not what this test is about.)
        wchan = Path(f"/proc/{proc.pid}/wchan")
        for _ in range(6000):
            if not wchan.exists() or "pipe" in wchan.read_text():
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(300) == 130  # generous: a loaded machine finishes the block first
        shown += read_terminal(controller)
    finally:
        os.close(controller)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
    text = shown.decode()
    assert text.endswith("\n"), text
    assert "interrupted after" in text


def test_batch_reports_bad_lines_even_off_a_terminal(run_cli: RunCli) -> None:
    """Off a terminal there is no progress, but bad lines get one summary line."""
    done = run_cli(["batch", "--workers", "2"], stdin=b'{"text":"fix"}\n[1]\n\n{"id":3}\n')
    assert done.returncode == 0
    assert done.stderr.decode() == (
        'smista batch: 4 lines; 2 bad lines (first: line 2), see their "error" records\n'
    )
    clean = run_cli(["batch"], stdin=b'{"text":"fix"}\n')
    assert clean.stderr == b""


def test_readme_batch_synopsis_matches_the_cli(run_cli: RunCli) -> None:
    """The README's usage line for batch is the one the CLI accepts (-o OUT, not [OUT])."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`smista batch [--rules FILE] [--workers N] [-o OUT] [IN]`" in readme
    usage = run_cli(["batch", "--help"]).stdout.decode()
    assert "-o FILE, --output FILE" in usage


# -- empty inputs fail quality gates ----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content"),
    [("empty.jsonl", ""), ("blank.jsonl", "\n\n"), ("none.toml", "cases = []\n")],
)
def test_empty_inputs_fail_the_quality_gates(
    run_cli: RunCli, tmp_path: Path, name: str, content: str
) -> None:
    """A mistyped path in CI must not go green: no cases is an error, not 0/0 = 100%."""
    data = tmp_path / name
    data.write_text(content, encoding="utf-8")
    err = one_line_error(run_cli(["test", "default", "--cases", str(data)]))
    assert "no cases" in err
    err = one_line_error(run_cli(["eval", str(data)]))
    assert "no labelled prompts" in err


def test_checking_an_empty_directory_fails(run_cli: RunCli, tmp_path: Path) -> None:
    """smista check DIR with no rule file in it is an error."""
    err = one_line_error(run_cli(["check", str(tmp_path)]))
    assert f"{tmp_path}: no .toml files" in err


# -- server exits -------------------------------------------------------------------------


def test_ctrl_c_stops_the_service_with_status_zero() -> None:
    """docs/http.md: on SIGTERM or Ctrl-C the service drains and exits 0 (it was 130)."""
    import signal

    pytest.importorskip("uvicorn")
    from tests.live import LiveServer

    live = LiveServer().start()
    try:
        with live.client() as c:
            assert c.get("/healthz").status_code == 200
        live.signal(signal.SIGINT)
        assert live.stop() == 0
    finally:
        if live.proc is not None and live.proc.poll() is None:
            live.proc.kill()
            live.stop()


def test_a_port_in_use_is_one_line_without_startup_logs(run_cli: RunCli) -> None:
    """No uvicorn log lines, no 'Application startup complete' (it printed 7 lines and
    exited 3): one error line, and the exit status docs/http.md gives (1: the
    environment failed, as for other OS errors of the CLI)."""
    import socket

    pytest.importorskip("uvicorn")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        err = one_line_error(run_cli(["serve", "--port", str(port)]), status=1)
    assert err.startswith(f"smista serve: error: cannot listen on 127.0.0.1:{port}: ")
    docs = " ".join((ROOT / "docs" / "http.md").read_text(encoding="utf-8").split())
    assert "exit status 1: `smista serve: error: cannot listen on" in docs
    assert "in use" in err


def test_serve_help_lists_every_post_endpoint(run_cli: RunCli) -> None:
    """The help names /v1/preview and /v1/tier (and whatever else is plugged in)."""
    pytest.importorskip("uvicorn")
    from smista.server.plugins import available_endpoints

    text = " ".join(run_cli(["serve", "--help"]).stdout.decode().split())
    paths = ["/v1/classify", "/v1/classify/batch", *(ep.path for ep in available_endpoints())]
    assert {"/v1/preview", "/v1/tier"} <= set(paths)
    for path in paths:
        assert path in text


# -- one rule for a config without [tiers] ------------------------------------------------


def test_a_config_without_tiers_means_the_shipped_pack_everywhere(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """The CLI errored, router_from_file disabled routing, the server used the shipped
    pack: now all three use the shipped pack."""
    from smista.tiers.loader import router_from_file
    from smista.tiers.request import TierRequest

    config = tmp_path / "smista.toml"
    config.write_text('[classification]\ndefault_intent = "chat"\n', encoding="utf-8")
    task = "rename the variable foo to bar"
    shipped = run_cli(["tier", "--json", task])
    via_cli = run_cli(["tier", "--json", "--config", str(config), task])
    assert via_cli.returncode == 0, via_cli.stderr
    fields = ("outcome", "selected_tier", "model", "reason")
    expected = {k: json.loads(shipped.stdout)[k] for k in fields}
    assert {k: json.loads(via_cli.stdout)[k] for k in fields} == expected
    assert expected["outcome"] == "routed"

    router = router_from_file(config)
    assert router.error is None
    decision = router.route_sync(TierRequest(task=task)).as_dict()
    assert {k: decision[k] for k in fields} == expected

    pytest.importorskip("uvicorn")
    from tests.live import LiveServer

    with LiveServer(["--config", str(config)]) as live, live.client() as c:
        answer = c.post("/v1/tier", json={"task": task}).json()
    assert {k: answer[k] for k in fields} == expected


# -- case files take batch input's id ----------------------------------------------------------


def test_labelled_batch_input_with_ids_is_a_case_file(run_cli: RunCli, tmp_path: Path) -> None:
    """Batch input carries "id"; the same lines with an "intent" can be tested and scored."""
    data = tmp_path / "labelled.jsonl"
    data.write_text(
        '{"id": 7, "text": "fix the login bug", "intent": "edit"}\n'
        '{"id": "a-2", "text": "hello there", "intent": "review"}\n'
        '{"id": 3, "text": "please review", "contexts": ["git_diff"], "intent": "review"}\n',
        encoding="utf-8",
    )
    tested = run_cli(["test", "default", "--cases", str(data), "-q"])
    assert tested.returncode == 1, tested.stderr
    assert f'FAIL {data}: line 2 (id "a-2")' in tested.stdout.decode()
    assert "2/3 cases passed" in tested.stdout.decode()
    scored = run_cli(["eval", str(data), "--json"])
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["total"] == 3


# -- the no-compiler fallback is visible -----------------------------------------------------

BLOCK_SPEEDUPS = '''
import sys

class _NoSpeedups:
    """As on a machine without a C compiler: smista.core._speedups was never built."""

    def find_spec(self, name, path=None, target=None):
        if name == "smista.core._speedups":
            raise ModuleNotFoundError("No module named 'smista.core._speedups'", name=name)
        return None

sys.meta_path.insert(0, _NoSpeedups())
'''


def test_doctor_reports_version_python_speedups_extras_and_cache(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """One command answers "which smista is this, and is it the fast one?"."""
    import platform

    import smista
    from smista._edge.extras import installed_extras
    from smista.core.engine import ACCELERATED

    env = cli_env(SMISTA_CACHE_DIR=str(tmp_path / "cache"))
    done = run_cli(["doctor", "--json"], env=env)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["version"] == smista.__version__
    assert found["python"] == platform.python_version()
    assert found["speedups"]["active"] is ACCELERATED
    assert found["extras"] == installed_extras()
    assert found["cache_dir"] == str(tmp_path / "cache")
    text = run_cli(["doctor"], env=env).stdout.decode()
    assert f"rules cache:  {tmp_path / 'cache'} (from SMISTA_CACHE_DIR)" in text
    version = run_cli(["--version"]).stdout.decode()
    assert version.startswith(f"smista {smista.__version__} (Python {platform.python_version()}, ")


def test_doctor_and_version_say_when_the_pure_python_path_is_used(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """Without the compiled extension (no compiler at install time) both say so."""
    (tmp_path / "sitecustomize.py").write_text(BLOCK_SPEEDUPS, encoding="utf-8")
    env = cli_env()
    env.pop("SMISTA_IMPLEMENTATION", None)  # the no-compiler case, not the runtime switch
    env["PYTHONPATH"] = f"{tmp_path}:{env['PYTHONPATH']}"
    doctor = run_cli(["doctor"], env=env).stdout.decode()
    assert "C speedups:   inactive (pure-Python matcher (slower)" in doctor
    assert "C speedups inactive (pure Python)" in run_cli(["--version"], env=env).stdout.decode()
    assert run_cli(["classify", "fix it"], env=env).stdout.startswith(b"intent:     edit")


def _source_tree(tmp_path: Path) -> Path:
    """A copy of what a source build needs (no built extension), in ``tmp_path/src``."""
    import shutil

    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "hatch_build.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "rules", src / "rules")
    shutil.copytree(ROOT / "csrc", src / "csrc")
    shutil.copytree(
        ROOT / "smista", src / "smista", ignore=shutil.ignore_patterns("*.so", "__pycache__")
    )
    if not (src / "smista" / "__init__.py").exists():
        # CI runs the suite from a copy without smista/__init__.py (so that the
        # installed wheel is what is imported): take the installed one, the same file.
        import smista

        shutil.copy(Path(smista.__file__), src / "smista" / "__init__.py")
    return src


def _no_compiler_env(**extra: str) -> dict[str, str]:
    """The environment of a build on a machine whose C compiler always fails."""
    import os

    env = dict(os.environ, CC="/bin/false", PIP_NO_INPUT="1", **extra)
    for name in ("SMISTA_NO_SPEEDUPS", "SMISTA_REQUIRE_SPEEDUPS"):
        if name not in extra:
            env.pop(name, None)
    return env


@pytest.mark.slow
def test_building_without_a_compiler_warns_on_the_terminal(tmp_path: Path) -> None:
    """A source build (no SMISTA_REQUIRE_SPEEDUPS) falls back to pure Python with a warning;
    pip hides a build's output unless -v, so the warning reaches the terminal."""
    import os
    import pty
    import sys

    src = _source_tree(tmp_path)
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), "."]
    env = _no_compiler_env()
    pid, controller = pty.fork()
    if pid == 0:  # the child: the pty is its controlling terminal, as for a user
        os.chdir(src)
        os.execve(argv[0], argv, env)
    shown = read_terminal(controller).decode("utf-8", "replace")
    os.close(controller)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, shown
    assert "WARNING: smista: C speedups not built" in shown
    assert "pure-Python matcher" in shown
    assert [p.name for p in tmp_path.glob("*.whl")] == ["smista-0.1.0-py3-none-any.whl"]


@pytest.mark.slow
def test_a_packaged_build_fails_when_the_extension_does_not_compile(tmp_path: Path) -> None:
    """SMISTA_REQUIRE_SPEEDUPS=1 (.ci/run, release wheels) turns the fallback into a build
    error naming the extension and the switch: a published wheel is never silently pure."""
    import subprocess
    import sys

    src = _source_tree(tmp_path)
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), "."]
    env = _no_compiler_env(SMISTA_REQUIRE_SPEEDUPS="1")
    done = subprocess.run(argv, cwd=src, env=env, capture_output=True, text=True, check=False)
    assert done.returncode != 0, done.stdout
    shown = done.stdout + done.stderr
    assert "did not compile" in shown, shown
    assert "SMISTA_REQUIRE_SPEEDUPS=1 asks for it" in shown, shown
    assert list(tmp_path.glob("*.whl")) == []


# -- smaller defects ----------------------------------------------------------------------------

PREVIEW_CONFIG = """
[classification]
default_intent = "chat"

[routing.default]
model = "anthropic/claude-sonnet"

[decision]
enabled = true
provider = "openai"
base_url = "{url}"
model = "m"
timeout_s = 2
"""


def test_the_service_answers_bad_json_and_skipped_decisions_truthfully(tmp_path: Path) -> None:
    """NaN is malformed JSON (400, as documented; it was 422); a lone surrogate escape is
    named as such (it was 'unexpected end of hex escape'); skip_decision reports the
    stage as skipped (it said 'disabled' although a stage is configured)."""
    pytest.importorskip("uvicorn")
    from tests.decision_server import decision_server
    from tests.live import LiveServer

    with decision_server() as (url, behaviour):
        config = tmp_path / "smista.toml"
        config.write_text(PREVIEW_CONFIG.format(url=f"{url}/v1"), encoding="utf-8")
        with LiveServer(["--config", str(config)]) as live, live.client() as c:
            for body in ('{"text": NaN}', '{"text": "x", "contexts": [Infinity]}'):
                answer = c.post("/v1/classify", content=body)
                assert answer.status_code == 400, answer.text
                assert answer.json()["error"]["code"] == "invalid_json"
                assert "NaN and Infinity are not JSON numbers" in answer.json()["error"]["message"]
            answer = c.post("/v1/classify", content='{"text": "\\ud800"}')
            assert answer.status_code == 400
            message = answer.json()["error"]["message"]
            assert "lone surrogate escape '\\ud800'" in message
            assert "end of hex escape" not in message
            paired = c.post("/v1/classify", content='{"text": "fix \\ud83d\\ude00"}')
            assert paired.status_code == 200
            skipped = c.post("/v1/preview", json={"text": "fix it", "skip_decision": True})
            assert skipped.status_code == 200, skipped.text
            assert skipped.json()["decision"]["status"] == "skipped"
            assert behaviour.requests == []  # the decision model was not called
            called = c.post("/v1/preview", json={"text": "fix it"})
            assert called.json()["decision"]["status"] == "ok"


def test_text_starting_with_a_dash_gets_a_hint_about_double_dash(run_cli: RunCli) -> None:
    """smista classify "-fix" said only that TEXT was missing."""
    err = one_line_error(run_cli(["classify", "-fix"]))
    assert "put '--' before text that starts with '-' (smista classify -- '-fix')" in err
    assert run_cli(["classify", "--", "-fix"]).stdout.startswith(b"intent:     edit")


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["serve", "--port", "-1"], "argument --port: expected a port number 0-65535, got '-1'"),
        (["serve", "--port", "-x"], "argument --port: expected one argument"),
        (["serve", "-x"], "unrecognized arguments: -x"),
        (["doctor", "-x"], "unrecognized arguments: -x"),
        (["batch", "-o", "-x"], "argument -o/--output: expected one argument"),
    ],
)
def test_no_double_dash_hint_where_no_text_is_taken(
    run_cli: RunCli, argv: list[str], error: str
) -> None:
    """``smista serve --port -1`` suggested ``smista serve -- '-1'``: the hint is for
    commands that take text (or files), never for an option's value."""
    err = one_line_error(run_cli(argv))
    assert err == f"smista {argv[0]}: error: {error} (see 'smista {argv[0]} --help')\n"


@pytest.mark.parametrize("command", ["classify", "explain", "tier"])
def test_an_empty_context_kind_is_rejected(run_cli: RunCli, command: str) -> None:
    """--context "" names no context kind, so it is a usage error (it was accepted)."""
    err = one_line_error(run_cli([command, "--context", "", "fix it"]))
    assert "argument --context: a context kind cannot be empty" in err


def test_classify_frame_without_a_text_column_says_so() -> None:
    """A frame without 'text' raised a bare KeyError."""
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    from smista.scale.frames import classify_frame, classify_table

    frame = pd.DataFrame({"prompt": ["fix it"], "id": [1]})
    with pytest.raises(ValueError, match=r"no 'text' column \(columns: prompt, id\); pass text="):
        classify_frame(frame)
    with pytest.raises(ValueError, match="the table has no 'text' column"):
        classify_table(pa.table({"prompt": ["fix it"]}))
    assert list(classify_frame(frame, text="prompt")["intent"]) == ["edit"]


def test_the_html_report_names_rules_hash_time_and_contexts(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """The report says which rules file (and its sha256) it measured, when, and shows
    each miss's contexts."""
    import hashlib
    import re

    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[classification]\n[[classification.rules]]\nintent = "edit"\nkeywords = ["fix"]\n',
        encoding="utf-8",
    )
    data = tmp_path / "data.jsonl"
    data.write_text(
        '{"text": "review this", "intent": "review", "contexts": ["git_diff", "pull_request"]}\n',
        encoding="utf-8",
    )
    page = tmp_path / "report.html"
    done = run_cli(["eval", str(data), "--rules", str(rules), "--html", str(page)])
    assert done.returncode == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    digest = hashlib.sha256(rules.read_bytes()).hexdigest()
    assert f"rules: <code>{rules}</code>" in html
    assert f"rules sha256: <code>{digest}</code>" in html
    assert re.search(r"generated: <code>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</code>", html)
    assert "<th>contexts</th>" in html
    assert '<td class="text">git_diff, pull_request</td>' in html
