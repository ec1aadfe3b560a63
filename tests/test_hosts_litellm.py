"""smista's LiteLLM plugins inside a real ``litellm.Router`` (deployments answer with ``mock_response``).

No network: LiteLLM is told to use its bundled model cost map, and every
deployment answers from ``mock_response``, so the answer's text names the
deployment the router picked.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

from smista.config.settings import parse_settings
from smista.hosts.engine import HostEngine
from smista.integrations.litellm import SmistaClassifier, SmistaRoutingPlugin

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
litellm = pytest.importorskip("litellm")

# LiteLLM's own models trip these; smista's code is not involved.
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*ReadOnly.*qualifier:UserWarning"),
]

POLICY = """
[routing.default]
model = "openai/chatter"

[[routing.rules]]
name = "plans"
priority = 10
intent = "plan"
model = "openai/planner"

[[routing.rules]]
name = "edits"
priority = 20
intent = "edit"
model = "openai/editor"
fallbacks = ["openai/backup-editor"]
"""

PLAN = [
    {"role": "system", "content": "You are a coding agent. Fix bugs when asked."},
    {"role": "user", "content": "plan the migration from sqlite to postgres step by step"},
]
EDIT = [
    {"role": "system", "content": "You are a coding agent. Plan carefully."},
    {"role": "user", "content": "plan the migration"},
    {"role": "assistant", "content": "1. dump 2. load 3. switch"},
    {
        "role": "user",
        "content": "<system-reminder>plan mode is off</system-reminder>fix the typo in db.py",
    },
]
TITLE = [
    {
        "role": "user",
        "content": "Please write a 5-10 word title for the following conversation: ...",
    },
]


def engine() -> HostEngine:
    from smista.core.classifier import Classifier

    settings = parse_settings(POLICY, "policy.toml")
    return HostEngine(Classifier(settings.classification), settings.routing, "policy.toml")


def deployment(name: str, model: str, answer: str) -> dict[str, Any]:
    return {
        "model_name": name,
        "litellm_params": {"model": model, "api_key": "sk-test", "mock_response": answer},
    }


def answer(router: Any, model: str, messages: list[dict[str, Any]]) -> str:
    async def call() -> str:
        response = await router.acompletion(model=model, messages=messages)
        return str(response.choices[0].message.content)

    return asyncio.run(call())


def complexity_router(plugin: SmistaClassifier, tiers: dict[str, str], fallback: str) -> Any:
    return litellm.Router(
        model_list=[
            deployment("planner", "openai/planner", "from planner"),
            deployment("editor", "openai/editor", "from editor"),
            deployment("chatter", "openai/chatter", "from chatter"),
            {
                "model_name": "smart",
                "litellm_params": {
                    "model": "auto_router/complexity_router",
                    "complexity_router_config": {
                        "classifier_type": "custom",
                        "classifier_plugin": plugin,
                        "tiers": tiers,
                        "fallback_tier": fallback,
                    },
                },
            },
        ]
    )


def test_classifier_plugin_sends_plan_and_edit_turns_to_different_deployments() -> None:
    """Tier from the routed model: the policy's plan and edit rules pick two tiers."""
    plugin = SmistaClassifier(
        engine(), tiers={"openai/planner": "deep", "openai/editor": "quick", "chat": "talk"}
    )
    router = complexity_router(
        plugin, {"deep": "planner", "quick": "editor", "talk": "chatter"}, "talk"
    )
    assert answer(router, "smart", PLAN) == "from planner"
    assert answer(router, "smart", EDIT) == "from editor"


def test_classifier_plugin_without_tiers_names_the_intent() -> None:
    router = complexity_router(
        SmistaClassifier(), {"plan": "planner", "edit": "editor", "chat": "chatter"}, "chat"
    )
    assert answer(router, "smart", PLAN) == "from planner"
    assert answer(router, "smart", EDIT) == "from editor"


def test_classifier_plugin_maps_onto_the_builtin_tiers() -> None:
    plugin = SmistaClassifier(engine(), tiers={"plans": "REASONING", "edits": "SIMPLE"})
    router = litellm.Router(
        model_list=[
            deployment("planner", "openai/planner", "from planner"),
            deployment("editor", "openai/editor", "from editor"),
            deployment("chatter", "openai/chatter", "from chatter"),
            {
                "model_name": "smart",
                "litellm_params": {
                    "model": "auto_router/complexity_router",
                    "complexity_router_config": {
                        "classifier_type": "custom",
                        "classifier_plugin": plugin,
                        "tiers": {
                            "SIMPLE": "editor",
                            "MEDIUM": "chatter",
                            "COMPLEX": "chatter",
                            "REASONING": "planner",
                        },
                    },
                },
            },
        ]
    )
    assert answer(router, "smart", PLAN) == "from planner"
    assert answer(router, "smart", EDIT) == "from editor"


def test_classifier_plugin_declines_housekeeping_and_bad_messages() -> None:
    """Declining hands the request to LiteLLM's fallback tier."""
    router = complexity_router(
        SmistaClassifier(engine(), tiers={"openai/planner": "deep", "openai/editor": "quick"}),
        {"deep": "planner", "quick": "editor", "rest": "chatter"},
        "rest",
    )
    assert answer(router, "smart", TITLE) == "from chatter"
    housekeeping = SmistaClassifier(engine(), tiers={"housekeeping": "rest"})
    router = complexity_router(housekeeping, {"deep": "planner", "rest": "chatter"}, "deep")
    assert answer(router, "smart", TITLE) == "from chatter"


def routing_router(plugin: SmistaRoutingPlugin) -> Any:
    return litellm.Router(
        model_list=[
            deployment("coder", "openai/planner", "from planner"),
            deployment("coder", "openai/editor", "from editor"),
            deployment("coder", "openai/backup-editor", "from backup"),
        ],
        plugins=[plugin],
    )


def test_routing_plugin_narrows_candidates_by_the_policy() -> None:
    router = routing_router(SmistaRoutingPlugin(engine()))
    for _ in range(3):  # with three candidates, a non-narrowing plugin would soon differ
        assert answer(router, "coder", PLAN) == "from planner"
        assert answer(router, "coder", EDIT) == "from editor"


def test_routing_plugin_falls_back_and_maps_model_names() -> None:
    """No deployment serves openai/editor: its fallback's deployment is kept."""
    plugin = SmistaRoutingPlugin(
        engine(), models={"openai/planner": ["openai/big-planner"], "openai/editor": ["nowhere"]}
    )
    router = litellm.Router(
        model_list=[
            deployment("coder", "openai/big-planner", "from big planner"),
            deployment("coder", "openai/backup-editor", "from backup"),
        ],
        plugins=[plugin],
    )
    for _ in range(3):
        assert answer(router, "coder", PLAN) == "from big planner"
        assert answer(router, "coder", EDIT) == "from backup"


def test_routing_plugin_signals_and_leaves_housekeeping_alone() -> None:
    from litellm.types.router import RoutingContext

    plugin = SmistaRoutingPlugin(engine())
    candidates = ["openai/planner", "openai/editor"]

    def run(messages: list[dict[str, Any]]) -> Any:
        context = RoutingContext(
            raw_messages=messages, structured_messages=messages, candidate_models=list(candidates)
        )
        return asyncio.run(plugin.run(context))

    planned = run(PLAN)
    assert planned.candidate_models == ["openai/planner"]
    assert planned.signals["smista"]["classification"]["intent"] == "plan"
    assert planned.signals["smista"]["narrowed"] is True
    title = run(TITLE)
    assert title.candidate_models == candidates
    assert title.signals["smista"]["skipped"] == "housekeeping call (title: claude-code-title)"
    broken = run([{"role": "user", "content": 42}])
    assert broken.candidate_models == candidates


DECIDED = """
[[routing.rules]]
name = "complex work"
priority = 5
complexity = "complex"
model = "openai/planner"
"""


def decided_plugin(url: str) -> SmistaClassifier:
    from smista.core.classifier import Classifier
    from smista.decision.providers import build_stage
    from tests.preview_config import decision_table

    text = POLICY + DECIDED + decision_table(url, provider="openai", key_env="SMISTA_TEST_KEY")
    settings = parse_settings(text, "decided.toml")
    stage = build_stage(settings.decision, environ={"SMISTA_TEST_KEY": "sk-test-key"})
    assert stage is not None
    engine = HostEngine(Classifier(settings.classification), settings.routing, "decided.toml")
    tiers = {"openai/planner": "deep", "openai/editor": "quick", "openai/chatter": "talk"}
    return SmistaClassifier(engine, tiers=tiers, decision_stage=stage)


def test_a_decision_stage_feeds_the_complexity_rules() -> None:
    """A complex verdict sends an edit turn to the 'complex work' model; failing open, not."""
    from tests.decision_server import decision_server, refused_url

    tiers = {"deep": "planner", "quick": "editor", "talk": "chatter"}
    with decision_server(category="complex", confidence=0.9) as (url, _):
        router = complexity_router(decided_plugin(url), tiers, "talk")
        assert answer(router, "smart", EDIT) == "from planner"
    router = complexity_router(decided_plugin(refused_url()), tiers, "talk")
    assert answer(router, "smart", EDIT) == "from editor"  # no signal: the rules alone


def test_the_plugins_pass_litellms_own_interface_checks() -> None:
    """What the proxy checks when it loads a dotted-path plugin, and what Router needs."""
    import copy
    import inspect

    from litellm.types.router import ClassifierPlugin, RoutingPlugin

    classifier, routing = SmistaClassifier(engine()), SmistaRoutingPlugin(engine())
    assert isinstance(classifier, ClassifierPlugin)
    assert inspect.iscoroutinefunction(classifier.classify)
    assert isinstance(routing, RoutingPlugin)
    assert inspect.iscoroutinefunction(routing.run)
    assert copy.deepcopy(classifier) is classifier  # Router deep-copies its model list


def test_the_documented_setup_routes_plan_and_edit_turns(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/hosts.md's smista.toml, smista_plugins.py and both proxy configs, as written.

    Only what a test must change is changed: the proxy's dotted paths become the
    plugin objects they name, and each deployment answers from ``mock_response``.
    """
    import re

    import yaml  # type: ignore[import-untyped]  # PyYAML (a litellm dependency) ships no stubs

    from tests.conftest import ROOT

    doc = (ROOT / "docs" / "hosts.md").read_text(encoding="utf-8")
    section = doc.split("## LiteLLM", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(\w+)\n(.*?)```", doc, re.DOTALL)
    (toml,) = [t for lang, t in blocks if lang == "toml" and t.startswith("# smista.toml")]
    (plugins,) = [t for lang, t in blocks if lang == "python" and "smista_plugins" in t]
    tiered, narrowed = (
        yaml.safe_load(t) for t in re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    )
    (tmp_path / "smista.toml").write_text(toml, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    namespace: dict[str, Any] = {}
    exec(compile(plugins, "smista_plugins.py", "exec"), namespace)
    for entry in [*tiered["model_list"], *narrowed["model_list"]]:
        params = entry["litellm_params"]
        if "complexity_router_config" in params:
            path = params["complexity_router_config"]["classifier_plugin"]
            assert path == "smista_plugins.classifier"
            params["complexity_router_config"]["classifier_plugin"] = namespace["classifier"]
        else:
            params["mock_response"] = f"from {params['model']}"
    assert narrowed["router_settings"]["plugins"] == ["smista_plugins.routing"]
    routers = [
        (litellm.Router(model_list=tiered["model_list"]), "smart"),
        (
            litellm.Router(model_list=narrowed["model_list"], plugins=[namespace["routing"]]),
            "coder",
        ),
    ]
    for router, group in routers:
        assert answer(router, group, PLAN) == "from anthropic/claude-opus-4-1"
        assert answer(router, group, EDIT) == "from anthropic/claude-sonnet-4-5"
