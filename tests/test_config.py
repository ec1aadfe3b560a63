"""TOML rule files: the original's shape, strict structure, errors with file and key path."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given

from smista import ClassificationConfig, ConfigError, TaskIntent, load_config, parse_config
from smista.config.defaults import default_config, shipped_rules_path
from smista.config.load import parse_document
from tests.test_classifier import config_st

SPEC_EXAMPLE = """
[[classification.rules]]
intent = "review"
priority = 10
keywords = ["review", "audit", "check", "inspect"]
requires_any_context = ["git_diff", "pull_request"]

[[classification.rules]]
intent = "edit"
priority = 20
keywords = ["change", "modify", "refactor", "fix", "implement"]

[classification]
default_intent = "chat"
"""


def write(tmp_path: Path, text: str, name: str = "rules.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> ConfigError:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value)
    return info.value


def test_loads_the_documented_shape(tmp_path: Path) -> None:
    """The original CLI's config.toml shape loads (array of tables before the table)."""
    config = load_config(write(tmp_path, SPEC_EXAMPLE))
    assert config.default_intent is TaskIntent.CHAT
    assert [r.intent for r in config.rules] == ["review", "edit"]
    assert config.rules[0].requires_any_context == ("git_diff", "pull_request")
    assert config.rules[1].priority == 20


def test_loads_from_a_larger_config_with_other_tables(tmp_path: Path) -> None:
    """Other known sections of a full config.toml do not disturb loading."""
    text = SPEC_EXAMPLE + '\n[routing.default]\nmodel = "ollama/llama3"\n'
    assert len(load_config(write(tmp_path, text)).rules) == 2


def test_loads_the_classification_of_a_hosts_full_config(tmp_path: Path) -> None:
    """The original CLI's config.toml ([router], [tools], [privacy] ...) yields its rules."""
    text = (
        '[router]\nport = 7331\n[tools.permissions]\nfile_read = "allow"\n'
        '[privacy]\nrestricted_paths = [".env"]\n' + SPEC_EXAMPLE
    )
    assert [r.intent for r in load_config(write(tmp_path, text)).rules] == ["review", "edit"]


def test_a_misspelt_classification_table_is_not_silently_empty(tmp_path: Path) -> None:
    """[clasification] is reported: the file has no [classification] table."""
    assert "expected a [classification] table" in str(error_of(tmp_path, "[clasification]\n"))


def test_smista_config_files_reject_unknown_tables() -> None:
    """A smista config document (settings, check) allows only its own sections."""
    with pytest.raises(ConfigError, match="unknown table"):
        parse_document("[clasification]\n", "x.toml")


def test_empty_path_is_named() -> None:
    """An empty --rules value is a clear error, not 'is a directory'."""
    with pytest.raises(ConfigError, match="empty file name"):
        load_config("")


def test_empty_classification_table_is_the_default(tmp_path: Path) -> None:
    """[classification] with nothing in it is the default config."""
    assert load_config(write(tmp_path, "[classification]\n")) == ClassificationConfig()


def test_parse_config_from_text() -> None:
    """Text can be parsed without a file."""
    assert len(parse_config(SPEC_EXAMPLE).rules) == 2


@pytest.mark.parametrize(
    ("text", "loc", "fragment"),
    [
        (
            '[classification]\n[[classification.rules]]\nintent = "edit"\nkeywrods = ["x"]\n',
            "classification.rules[0].keywrods",
            "unknown key; expected one of: intent, priority, keywords, commands, mentions, leading, lead_endings, phrases, stems, substrings, question, exclude, exclude_substrings, predicted, likeliest, requires_any_context, typo",
        ),
        (
            '[[classification.rules]]\nintent = "edit"\n[[classification.rules]]\nintent = "plan"\n[[classification.rules]]\nintent = "deploy"\n',
            "classification.rules[2].intent",
            "'deploy'",
        ),
        ('[[classification.rules]]\nintent = "Chat"\n', "classification.rules[0].intent", "'Chat'"),
        (
            '[[classification.rules]]\nintent = "edit"\npriority = -1\n',
            "classification.rules[0].priority",
            ">= 0",
        ),
        (
            '[[classification.rules]]\nintent = "edit"\npriority = 4294967296\n',
            "classification.rules[0].priority",
            "<= 4294967295",
        ),
        (
            '[[classification.rules]]\nintent = "edit"\npriority = 1.5\n',
            "classification.rules[0].priority",
            "expected an integer",
        ),
        (
            '[[classification.rules]]\nintent = "edit"\npriority = "10"\n',
            "classification.rules[0].priority",
            "expected an integer",
        ),
        (
            '[[classification.rules]]\nintent = "edit"\npriority = true\n',
            "classification.rules[0].priority",
            "expected an integer",
        ),
        (
            '[[classification.rules]]\nintent = "edit"\nkeywords = "fix"\n',
            "classification.rules[0].keywords",
            "expected an array",
        ),
        (
            '[[classification.rules]]\nintent = "edit"\nkeywords = ["fix", 3]\n',
            "classification.rules[0].keywords[1]",
            "expected a string",
        ),
        (
            '[[classification.rules]]\nkeywords = ["fix"]\n',
            "classification.rules[0].intent",
            "missing required key",
        ),
        (
            '[classification]\ndefault_intent = "deploy"\n',
            "classification.default_intent",
            "'deploy'",
        ),
        (
            '[classification]\ndefualt_intent = "chat"\n',
            "classification.defualt_intent",
            "unknown key",
        ),
        ("[classification]\nrules = 3\n", "classification.rules", "expected an array"),
        ("classification = 3\n", "classification", "expected a table"),
    ],
)
def test_structural_errors_name_file_key_path_and_expectation(
    tmp_path: Path, text: str, loc: str, fragment: str
) -> None:
    """Each structural problem is reported with its TOML key path and what was expected."""
    error = error_of(tmp_path, text)
    locs = [where for where, _ in error.errors]
    assert loc in locs, error.errors
    assert fragment in str(error)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[classification.rules]]\nintent = "edit"\npriority = true\n',
            "classification.rules[0].priority: expected an integer, got true",
        ),
        (
            "[[classification.rules]]\nintent = false\n",
            "classification.rules[0].intent: expected one of 'chat', 'plan', 'edit', 'review', "
            "'summarize', 'prompt' or 'skill', got false",
        ),
        (
            '[[classification.rules]]\nintent = "edit"\nkeywords = [true, "fix"]\n',
            "classification.rules[0].keywords[0]: expected a string, got true",
        ),
        (
            '[[classification.rules]]\nintent = "edit"\nkeywords = [[true, "x"]]\n',
            "classification.rules[0].keywords[0]: expected a string, got an array [true, 'x']",
        ),
        (
            '[classification.model]\nfile = ""\n',
            "classification.model.file: the model file name is empty",
        ),
    ],
    ids=["priority", "intent", "keyword", "nested", "model-file"],
)
def test_messages_speak_toml(tmp_path: Path, text: str, message: str) -> None:
    """Values are spelt as in TOML (``true``, not Python's ``True``), and an empty model
    file name is said to be empty (not ``: no such file``)."""
    error = error_of(tmp_path, text)
    assert [f"{where}: {what}" for where, what in error.errors] == [message]


def test_unknown_intent_lists_the_allowed_names(tmp_path: Path) -> None:
    """An unknown intent error lists the seven names."""
    message = str(error_of(tmp_path, '[[classification.rules]]\nintent = "deploy"\n'))
    assert all(
        name in message
        for name in ("chat", "plan", "edit", "review", "summarize", "prompt", "skill")
    )


def test_all_errors_are_reported_at_once(tmp_path: Path) -> None:
    """Several problems are all listed, none lost."""
    error = error_of(
        tmp_path,
        '[[classification.rules]]\nintent = "x"\nkeywrods = []\n[[classification.rules]]\npriority = -2\n',
    )
    assert len(error.errors) >= 4


def test_invalid_toml_names_line(tmp_path: Path) -> None:
    """A TOML syntax error reports the parser's line and column."""
    message = str(error_of(tmp_path, "[classification\n"))
    assert "invalid TOML" in message
    assert "line 1" in message


def test_missing_classification_table(tmp_path: Path) -> None:
    """A file without [classification] is an error, not an empty rule set."""
    assert "[classification]" in str(error_of(tmp_path, "[routing]\n"))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    """Unreadable paths are config errors naming the path."""
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match="directory"):
        load_config(tmp_path)


def test_invalid_utf8(tmp_path: Path) -> None:
    """A file that is not UTF-8 is rejected clearly."""
    path = tmp_path / "bad.toml"
    path.write_bytes(b'[classification]\ndefault_intent = "\xff"\n')
    with pytest.raises(ConfigError, match="UTF-8"):
        load_config(path)


def test_semantic_oddities_load_as_in_the_original(tmp_path: Path) -> None:
    """Empty keywords, duplicate rules and equal priorities are accepted."""
    text = '[[classification.rules]]\nintent = "edit"\nkeywords = [""]\n' * 2
    config = load_config(write(tmp_path, text))
    assert config.rules[0] == config.rules[1]


def test_shipped_default_pack_loads_and_covers_every_intent() -> None:
    """rules/default.toml is valid and covers all seven intents."""
    config = default_config()
    assert config == load_config(shipped_rules_path())
    assert {r.intent for r in config.rules} | {config.default_intent} == set(TaskIntent)


def _to_toml(config: ClassificationConfig) -> str:
    def s(v: str) -> str:
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'

    out = [f"[classification]\ndefault_intent = {s(config.default_intent.value)}\n"]
    for rule in config.rules:
        out.append(
            f"[[classification.rules]]\nintent = {s(rule.intent.value)}\npriority = {rule.priority}\n"
            f"keywords = [{', '.join(s(k) for k in rule.keywords)}]\n"
            f"requires_any_context = [{', '.join(s(c) for c in rule.requires_any_context)}]\n"
        )
    return "\n".join(out)


@given(config_st)
def test_toml_and_json_round_trips(data: dict[str, object]) -> None:
    """A config survives JSON and TOML round trips unchanged."""
    config = ClassificationConfig.model_validate(data)
    assert ClassificationConfig.model_validate_json(config.model_dump_json()) == config
    text = _to_toml(config)
    tomllib.loads(text)
    assert parse_config(text) == config


DEEP_TOML = "[classification]\nx = " + "[" * 5000 + "]" * 5000 + "\n"


def test_toml_nested_too_deeply_is_a_config_error_not_a_recursion_error() -> None:
    """tomllib parses arrays recursively; every TOML reader words the overflow as bad TOML."""
    from smista.authoring.check import check_text
    from smista.authoring.golden import parse_cases
    from smista.config.settings import parse_settings

    for parse in (parse_config, parse_settings, parse_cases):
        with pytest.raises(ConfigError) as info:
            parse(DEEP_TOML, "deep.toml")
        assert info.value.errors == [("", "invalid TOML: nested too deeply")]
    [finding] = check_text(DEEP_TOML, "deep.toml")
    assert (finding.code, finding.message) == ("invalid", "invalid TOML: nested too deeply")
