"""[tiers] configuration: defaults, the shipped pack, validation errors with key paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from smista.core.errors import ConfigError
from smista.tiers import (
    DEFAULT_PROMPT,
    TierOutcome,
    TierRequest,
    TiersConfig,
    default_tiers,
    load_tiers,
    parse_tiers,
    preview,
    render_prompt,
    router_from_file,
)

DATA = Path(__file__).parent / "data"


def errors_of(text: str) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as info:
        parse_tiers(text, "cfg.toml")
    assert info.value.path == "cfg.toml"
    return info.value.errors


def paths_of(text: str) -> list[str]:
    return [path for path, _ in errors_of(text)]


def test_defaults_are_the_seed_design() -> None:
    """Enabled, default tier normal, explicit models respected, rules classifier, seed tiers."""
    config = TiersConfig()
    assert config.enabled
    assert config.respect_explicit_model
    assert config.default_tier == "normal"
    assert config.classifier == "rules"
    assert config.models == {"cheap": "@task_cheap", "normal": "@task", "hard": "@task_hard"}
    assert config.tier_ids == ("cheap", "normal", "hard")
    assert config.llm.model == "@tiny"
    assert config.llm.timeout_ms == 8000
    assert config.llm.cache is True
    assert config.llm.prompt == DEFAULT_PROMPT


def test_default_prompt_is_the_seed_text() -> None:
    """DEFAULT_PROMPT is exactly the seed's prompt (spec B.3)."""
    assert (DATA / "tier_default_prompt.txt").read_text("utf-8") == DEFAULT_PROMPT


def test_render_prompt_lists_tiers_and_preview_is_80() -> None:
    """Seed config helpers: rendered tiers and an 80-character preview."""
    rendered = render_prompt(DEFAULT_PROMPT, ["cheap", "normal", "hard"])
    for line in ("- cheap", "- normal", "- hard"):
        assert line in rendered
    assert "{tiers}" not in rendered
    assert len(preview("x" * 100)) == 80
    assert preview("x" * 100).endswith("…")
    assert preview("  a \n\t b  ") == "a b"
    assert preview(None) == ""


def test_render_replaces_first_placeholder_only() -> None:
    """Only the first {tiers} is replaced, as String.replace does."""
    assert render_prompt("{tiers}|{tiers}", ["a", "b"]) == "- a\n- b|{tiers}"


def test_prompt_without_placeholder_gets_tier_list_appended() -> None:
    """A custom prompt without {tiers} gets the tier list section appended."""
    config = parse_tiers('[tiers.llm]\nprompt = "Pick one."\n')
    assert config.llm.prompt == "Pick one.\n\nTiers:\n{tiers}"
    kept = parse_tiers('[tiers.llm]\nprompt = "Tiers: {tiers}"\n')
    assert kept.llm.prompt == "Tiers: {tiers}"


def test_shipped_pack_loads_and_uses_rules() -> None:
    """rules/tiers.toml: the seed tiers, rules classifier, every rule naming a tier."""
    config = default_tiers()
    assert config.tier_ids == ("cheap", "normal", "hard")
    assert config.classifier == "rules"
    assert config.rules
    assert {rule.tier for rule in config.rules} <= set(config.tier_ids)


def test_full_config_with_other_sections(tmp_path: Path) -> None:
    """A smista config holding [classification] and [tiers] yields its [tiers]."""
    path = tmp_path / "smista.toml"
    path.write_text(
        '[classification]\ndefault_intent = "chat"\n\n'
        '[tiers]\ndefault_tier = "deep"\n[tiers.models]\nfast = "m1"\ndeep = "m2"\n',
        encoding="utf-8",
    )
    config = load_tiers(path)
    assert config.tier_ids == ("fast", "deep")
    assert config.models["deep"] == "m2"


@pytest.mark.parametrize(
    ("text", "path", "fragment"),
    [
        ("[tiers]\nenabled = 'yes'\n", "tiers.enabled", "expected a boolean"),
        ("[tiers]\ncolour = 1\n", "tiers.colour", "unknown key"),
        ("[tiers.llm]\ntimeuot_ms = 5\n", "tiers.llm.timeuot_ms", "timeout_ms"),
        ("[tiers.llm]\ntimeout_ms = 0\n", "tiers.llm.timeout_ms", "> 0"),
        ("[tiers.llm]\ntimeout_ms = 1.5\n", "tiers.llm.timeout_ms", "integer"),
        ("[tiers.llm]\nprompt = '  '\n", "tiers.llm.prompt", "non-blank prompt"),
        ("[tiers.llm]\napi_key_env = 'MY KEY'\n", "tiers.llm.api_key_env", "environment variable"),
        ("[tiers]\nclassifier = 'gpt'\n", "tiers.classifier", "'rules' or 'llm'"),
        ("[tiers.models]\n'bad id' = 'm'\n", "tiers.models.bad id", "invalid tier id"),
        ("[tiers.models]\nfast = ' '\n", "tiers.models.fast", "non-blank"),
        ("[tiers]\ndefault_tier = 'huge'\n", "tiers.default_tier", "not a tier"),
        (
            "[tiers]\n[[tiers.rules]]\ntier = 'hard'\n[[tiers.rules]]\ntier = 'epic'\n",
            "tiers.rules[1].tier",
            "'epic' is not a tier",
        ),
        (
            "[tiers]\n[[tiers.rules]]\ntier = 'hard'\nintent = 'edit'\n",
            "tiers.rules[0].intent",
            "unknown key",
        ),
        (
            "[tiers]\n[[tiers.rules]]\ntier = 'hard'\npriority = -1\n",
            "tiers.rules[0].priority",
            ">= 0",
        ),
        ("[tiers]\nclassifier = 'llm'\n", "tiers.llm.endpoint", "missing required key"),
        (
            "[tiers]\nclassifier = 'llm'\n[tiers.llm]\nendpoint = 'ftp://x'\n",
            "tiers.llm.endpoint",
            "http",
        ),
        ("[tiers]\nids = ['a', 'a']\ndefault_tier = 'a'\n", "tiers.ids[1]", "duplicate"),
        (
            "[tiers]\nids = ['a']\ndefault_tier = 'a'\n[tiers.models]\nb = 'm'\n",
            "tiers.models.b",
            "not listed",
        ),
        ("[tiers]\nids = []\n", "tiers.ids", "at least one tier"),
        ("[tiers.models]\n", "tiers.models", "at least one tier"),
        (
            "[tiers]\nenabled = true\n[tiers.models]\nfast = 1\n",
            "tiers.models.fast",
            "expected a string",
        ),
    ],
)
def test_errors_name_key_path(text: str, path: str, fragment: str) -> None:
    """Every malformed value is reported at its TOML key path with what was expected."""
    errors = errors_of(text)
    matching = [msg for loc, msg in errors if loc == path]
    assert matching, errors
    assert any(fragment in msg for msg in matching), matching


def test_missing_tiers_table() -> None:
    """A document without [tiers] is an error naming what was expected."""
    assert errors_of('[classification]\ndefault_intent = "chat"\n') == [
        ("", "expected a [tiers] table")
    ]


def test_ids_without_models_means_unmapped_not_default_models() -> None:
    """Listing ids with no [tiers.models] leaves every tier unmapped (no foreign defaults)."""
    config = parse_tiers("[tiers]\nids = ['x', 'y']\ndefault_tier = 'x'\n")
    assert config.models == {}
    assert config.tier_ids == ("x", "y")


def test_model_names_are_trimmed() -> None:
    """Model names and the classifier model are stored trimmed."""
    config = parse_tiers("[tiers.models]\nnormal = ' @task '\n[tiers.llm]\nmodel = ' m '\n")
    assert config.models == {"normal": "@task"}
    assert config.llm.model == "m"


def test_python_construction_validates_structure() -> None:
    """Building TiersConfig from Python applies the same structural checks."""
    with pytest.raises(ValidationError):
        TiersConfig.model_validate({"models": {"a b": "m"}})


def test_malformed_file_disables_routing_with_clear_error(tmp_path: Path) -> None:
    """router_from_file never raises: routing is disabled and the error names file and key."""
    path = tmp_path / "bad.toml"
    path.write_text("[tiers]\ndefault_tier = 'huge'\n", encoding="utf-8")
    router = router_from_file(path)
    assert router.error is not None
    assert str(path) in str(router.error)
    decision = router.route_sync(TierRequest(task="fix the race"))
    assert decision.outcome is TierOutcome.ROUTER_DISABLED
    assert decision.model is None
    assert "tiers.default_tier" in decision.reason
    missing = router_from_file(tmp_path / "nope.toml")
    assert "no such file" in str(missing.error)
    invalid = tmp_path / "invalid.toml"
    invalid.write_text("[tiers\n", encoding="utf-8")
    assert "invalid TOML" in str(router_from_file(invalid).error)
