"""One builder per wire shape (:mod:`smista.core.wire`): library, CLI and batch give the same JSON."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from smista.config.defaults import default_classifier
from smista.config.rulecache import load_rules
from smista.core import wire
from smista.core.intent import Confidence, IntentSource, TaskIntent
from smista.core.result import Classification
from smista.scale.batch import classify_block

PROMPTS = [
    "please review my diff",
    "fix the login bug",
    "plan the migration to postgres",
    "hi",
    "summarise this thread for me",
    "",
]


@given(
    intent=st.sampled_from(TaskIntent),
    source=st.sampled_from(IntentSource),
    reason=st.text(max_size=40),
    rule=st.none() | st.integers(min_value=0, max_value=10**6),
    confidence=st.none() | st.sampled_from(Confidence),
)
def test_to_wire_is_pydantics_json_dump(intent, source, reason, rule, confidence) -> None:
    """The builder reproduces ``model_dump(mode="json", exclude_none=True)``, key order included."""
    result = Classification(
        intent=intent, source=source, reason=reason, matched_rule=rule, confidence=confidence
    )
    built = result.to_wire()
    dumped = result.model_dump(mode="json", exclude_none=True)
    assert list(built.items()) == list(dumped.items())


def test_library_cli_and_batch_give_the_same_objects(run_cli) -> None:
    classifier = default_classifier()
    records = [{"text": p} for p in PROMPTS] + [
        {"text": "anything", "command": i.value} for i in TaskIntent
    ]
    expected = [classifier.classify(r["text"], command=r.get("command")).to_wire() for r in records]
    block = "\n".join(json.dumps(r) for r in records).encode()
    batch = [json.loads(line) for line in classify_block(load_rules(None), block, 1).splitlines()]
    assert batch == expected
    for record, want in zip(records, expected, strict=True):
        args = ["classify", "--json", record["text"] or "-"]
        if "command" in record:
            args[2:2] = ["--command", record["command"]]
        out = run_cli(args, stdin=b"")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == want


def test_explicit_commands_have_one_shape() -> None:
    for intent in TaskIntent:
        assert wire.explicit(intent.value) == {
            "intent": intent.value,
            "source": "explicit",
            "reason": f"explicit command '{intent.value}'",
        }
        assert default_classifier().classify("x", command=intent).to_wire() == wire.explicit(
            intent.value
        )
