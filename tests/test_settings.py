"""load_settings(): one file -> classification, routing, decision; errors name file and key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from smista.config.defaults import default_config
from smista.config.settings import load_settings, parse_settings
from smista.core.errors import ConfigError
from smista.core.intent import TaskIntent

FULL = """
[classification]
default_intent = "chat"
[[classification.rules]]
intent = "edit"
keywords = ["refactor"]

[routing.default]
model = "ollama/mock-local"
fallbacks = ["openai/gpt-mini"]

[[routing.rules]]
name = "auth edits use Claude"
priority = 30
effort = "high"
intent = "edit"
paths = ["src/auth/**"]
model = "anthropic/claude-sonnet"
fallbacks = ["openai/gpt-5.5-thinking"]

[[routing.rules]]
name = "hard work"
complexity = "complex"
min_consequential = 0.5
model = "anthropic/opus"

[decision]
enabled = true
provider = "openai"
base_url = "http://127.0.0.1:11434/v1"
model = "qwen2.5:7b"
timeout_s = 2
max_state_bytes = 4096
min_confidence = 0.6

[decision.switch]
simple = "openai/mini"
standard = "openai/std"
complex = "anthropic/opus"
new_task_threshold = 0.7

[tiers]
anything = "is left to the tiers loader"
"""


def test_full_file_loads_every_section(tmp_path: Path) -> None:
    """Classification, routing and decision come back validated; [tiers] is accepted."""
    path = tmp_path / "smista.toml"
    path.write_text(FULL, encoding="utf-8")
    settings = load_settings(path)
    assert settings.source == str(path)
    assert settings.classification.rules[0].intent is TaskIntent.EDIT
    assert [r.name for r in settings.routing.rules] == ["auth edits use Claude", "hard work"]
    assert settings.routing.default is not None
    assert settings.routing.default.model == "ollama/mock-local"
    d = settings.decision
    assert (d.enabled, d.provider, d.model, d.timeout_s) == (True, "openai", "qwen2.5:7b", 2.0)
    assert (d.max_state_bytes, d.min_confidence, d.api_key_env) == (4096, 0.6, None)
    assert d.switch is not None
    assert d.switch.effective_thresholds() == (0.5, 0.7, 0.8)


def test_defaults_when_sections_are_absent() -> None:
    """No [classification]: the shipped pack; no [routing]: empty; no [decision]: disabled."""
    settings = parse_settings("")
    assert settings.classification == default_config()
    assert settings.routing.rules == ()
    assert settings.routing.default is None
    d = settings.decision
    assert (d.enabled, d.timeout_s, d.max_state_bytes, d.max_response_bytes) == (
        False,
        5.0,
        81920,
        1048576,
    )
    assert d.min_confidence == 0.5
    assert d.switch is None


def errors_of(text: str) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as info:
        parse_settings(text, "smista.toml")
    assert str(info.value).startswith("smista.toml: ")
    return info.value.errors


RULE = '[[routing.rules]]\nname = "{name}"\nmodel = "a/b"\n'


def test_invalid_glob_names_the_pattern_and_its_key_path() -> None:
    """An invalid glob is a load-time error at routing.rules[i].paths[j]."""
    errors = errors_of('[[routing.rules]]\nname = "r"\npaths = ["src/**", "a[b"]\nmodel = "a/b"\n')
    assert errors == [
        ("routing.rules[0].paths[1]", "invalid glob 'a[b': unclosed character class; missing ']'")
    ]


def test_unknown_intent_is_an_error() -> None:
    """A routing rule's intent must be one of the seven."""
    [(loc, msg)] = errors_of('[[routing.rules]]\nname = "r"\nintent = "deploy"\nmodel = "a/b"\n')
    assert loc == "routing.rules[0].intent"
    assert "'deploy'" in msg
    assert "edit" in msg


def test_unknown_complexity_tier_is_an_error() -> None:
    """complexity is simple, standard or complex."""
    [(loc, msg)] = errors_of('[[routing.rules]]\nname = "r"\ncomplexity = "huge"\nmodel = "a/b"\n')
    assert loc == "routing.rules[0].complexity"
    assert "'huge'" in msg
    assert "complex" in msg


def test_min_consequential_must_be_a_probability() -> None:
    """min_consequential lies in [0, 1]."""
    [(loc, msg)] = errors_of(
        '[[routing.rules]]\nname = "r"\nmin_consequential = 1.5\nmodel = "a/b"\n'
    )
    assert loc == "routing.rules[0].min_consequential"
    assert "<= 1" in msg


def test_duplicate_rule_names_are_an_error() -> None:
    """Rule names are unique; the second use is reported."""
    errors = errors_of(
        '[[routing.rules]]\nname = "dup"\nintent = "edit"\nmodel = "a/a"\n'
        '[[routing.rules]]\nname = "dup"\nintent = "review"\nmodel = "a/b"\n'
    )
    assert errors == [
        (
            "routing.rules[1].name",
            "duplicate rule name 'dup' (already used by rules[0]); rule names must be unique",
        )
    ]


def test_same_priority_and_specificity_is_an_error() -> None:
    """Two overlapping rules with equal priority and specificity are ambiguous."""
    errors = errors_of(
        '[[routing.rules]]\nname = "a"\npriority = 10\nintent = "edit"\nmodel = "a/a"\n'
        '[[routing.rules]]\nname = "b"\npriority = 10\nintent = "edit"\nmodel = "a/b"\n'
    )
    assert errors == [
        (
            "routing.rules[1].priority",
            "rules 'a' and 'b' share priority 10 and specificity, so their order would be "
            "decided by file order alone; give them distinct priorities",
        )
    ]


def test_catch_all_overlapping_a_specific_rule_of_equal_rung_is_an_error() -> None:
    """Two path rules at one priority overlap (globs may both match)."""
    errors = errors_of(
        '[[routing.rules]]\nname = "auth"\npaths = ["src/auth/**"]\nmodel = "a/a"\n'
        '[[routing.rules]]\nname = "crypto"\npaths = ["src/crypto/**"]\nmodel = "a/b"\n'
    )
    assert [loc for loc, _ in errors] == ["routing.rules[1].priority"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ('intent = "edit"', 'intent = "review"'),  # disjoint intents
        ('complexity = "simple"', 'complexity = "complex"'),  # disjoint tiers
        ('intent = "edit"', 'intent = "edit"\ncomplexity = "complex"'),  # decision specificity
        ('intent = "edit"', 'intent = "edit"\npaths = ["src/**"]'),  # rung
        ("priority = 1", "priority = 2"),
    ],
)
def test_rules_that_cannot_tie_are_accepted(first: str, second: str) -> None:
    """Disjoint conditions or a different precedence are not ambiguous."""
    text = (
        f'[[routing.rules]]\nname = "a"\n{first}\nmodel = "a/a"\n'
        f'[[routing.rules]]\nname = "b"\n{second}\nmodel = "a/b"\n'
    )
    assert len(parse_settings(text).routing.rules) == 2


def test_bad_fallbacks_are_errors() -> None:
    """A route listing its own model, or a fallback twice, is reported per fallback."""
    errors = errors_of(
        '[routing.default]\nmodel = "a/x"\nfallbacks = ["a/x"]\n'
        '[[routing.rules]]\nname = "r"\nmodel = "a/a"\nfallbacks = ["a/b", "a/b"]\n'
    )
    assert errors == [
        (
            "routing.default.fallbacks[0]",
            "the default route lists its own model 'a/x' as a fallback",
        ),
        ("routing.rules[0].fallbacks[1]", "rule 'r' lists the fallback 'a/b' twice"),
    ]


def test_misspelt_key_is_an_error() -> None:
    """extra = forbid: a typo never silently does nothing."""
    [(loc, msg)] = errors_of('[[routing.rules]]\nname = "r"\nmodle = "a/b"\nmodel = "a/b"\n')
    assert loc == "routing.rules[0].modle"
    assert msg.startswith("unknown key; expected one of: name, priority, effort")


def test_malformed_model_reference_is_an_error() -> None:
    """Models are 'provider/model'."""
    [(loc, msg)] = errors_of('[routing.default]\nmodel = "gpt-5"\n')
    assert loc == "routing.default.model"
    assert "expected 'provider/model'" in msg


def test_enabled_decision_needs_provider_url_and_model() -> None:
    """enabled = true alone reports each missing key."""
    assert errors_of("[decision]\nenabled = true\n") == [
        ("decision.provider", "required when enabled; one of: systemone, openai"),
        ("decision.base_url", "required when enabled"),
        ("decision.model", "required when enabled (the decision model id)"),
    ]


def test_unknown_provider_is_an_error() -> None:
    """provider is systemone or openai."""
    [(loc, msg)] = errors_of('[decision]\nprovider = "liquid"\n')
    assert loc == "decision.provider"
    assert "'liquid'" in msg
    assert "systemone" in msg


def test_systemone_needs_a_key_variable_name() -> None:
    """SystemOne authenticates; the config names the variable holding the key."""
    errors = errors_of(
        '[decision]\nenabled = true\nprovider = "systemone"\nbase_url = "https://x.test"\n'
        'model = "jev"\n'
    )
    assert [loc for loc, _ in errors] == ["decision.api_key_env"]


def test_key_variable_must_be_a_name_and_url_http() -> None:
    """api_key_env is a variable name (never a key); base_url is http(s)."""
    errors = errors_of('[decision]\napi_key_env = "sk live key"\nbase_url = "ftp://x"\n')
    assert [loc for loc, _ in errors] == ["decision.api_key_env", "decision.base_url"]


def test_timeout_must_be_positive() -> None:
    """timeout_s > 0."""
    [(loc, _)] = errors_of("[decision]\ntimeout_s = 0\n")
    assert loc == "decision.timeout_s"


def test_switch_needs_all_three_models() -> None:
    """simple, standard and complex are required together."""
    [(loc, msg)] = errors_of('[decision.switch]\nsimple = "a/s"\nstandard = "a/m"\n')
    assert (loc, msg) == ("decision.switch.complex", "missing required key")


def test_switch_thresholds_are_clamped_not_rejected() -> None:
    """Out-of-range thresholds load and are clamped where used (<= 0: default; > 1: 1)."""
    settings = parse_settings(
        '[decision.switch]\nsimple = "a/s"\nstandard = "a/m"\ncomplex = "a/l"\n'
        "category_threshold = 0\nnew_task_threshold = 2.5\nescalate_threshold = -1\n"
    )
    assert settings.decision.switch is not None
    assert settings.decision.switch.effective_thresholds() == (0.5, 1.0, 0.8)


def test_unknown_top_level_table_is_still_an_error() -> None:
    """Only classification, routing, decision and tiers are known tables."""
    [(loc, _)] = errors_of("[routes]\n")
    assert loc == "routes"


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    """A missing file is a ConfigError naming it."""
    with pytest.raises(ConfigError, match="no such file"):
        load_settings(tmp_path / "absent.toml")
