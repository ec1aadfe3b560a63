"""The turn model: the three message formats, harness noise, housekeeping, follow-ups.

Fixtures under tests/data/turns/ are request bodies in the providers' documented
shapes (a Claude Code session with system-reminders, its title-generation and
compaction calls, an OpenAI chat body with tool calls, a Codex Responses body).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

import smista
from smista.config.defaults import default_classifier
from smista.config.load import parse_config
from smista.core.classifier import Classifier
from smista.core.errors import ConfigError
from smista.core.turnclassify import is_continuation
from smista.core.turnrules import TurnSettings
from smista.core.turns import PAYLOAD_SCHEMA, TurnError, detect_format, parse_turn

DATA = Path(__file__).resolve().parent / "data" / "turns"


def load(name: str) -> Any:
    return json.loads((DATA / name).read_text("utf-8"))


# -- the three formats ---------------------------------------------------------------


def test_claude_code_session_reads_the_human_text_without_harness_noise() -> None:
    turn = parse_turn(load("claude_code_session.json"))
    assert turn.format == "anthropic"
    assert turn.text == "ok do it"
    assert turn.history == ("the login test fails since yesterday, fix it",)
    assert turn.system.startswith("You are Claude Code")
    assert turn.tools == ("Bash", "Read")
    assert turn.tool_results[0].startswith("F\nFAILED tests/test_login.py")
    assert "def check(token)" in turn.tool_results[1]
    assert [s.name for s in turn.stripped] == [
        "system-reminder",
        "system-reminder",
        "ide-context",
        "system-reminder",
    ]
    # The injected CLAUDE.md text is a stripped span, never user text.
    assert any("CLAUDE.md" in s.text for s in turn.stripped)
    assert all("plan" not in h for h in turn.history)
    assert turn.housekeeping is None
    assert turn.user_turns == 2
    assert turn.token_estimate > 100


def test_claude_code_session_follow_up_takes_the_fix_intent() -> None:
    result = smista.classify_turn(load("claude_code_session.json"))
    previous = smista.classify("the login test fails since yesterday, fix it")
    assert result.follow_up
    assert result.classification.intent == previous.intent == smista.TaskIntent.EDIT
    assert result.classification.reason == (
        f"follow-up: 'ok do it' continues the previous turn ({previous.reason})"
    )
    assert result.classification.matched_rule == previous.matched_rule
    # Without the turn model, the CLAUDE.md text ("plan", "review") would decide.
    wire = result.to_wire()
    assert wire["turn"] == {
        "format": "anthropic",
        "follow_up": True,
        "housekeeping": None,
        "user_turns": 2,
        "token_estimate": result.turn.token_estimate,
        "has_images": False,
        "has_attachments": False,
        "tools": ["Bash", "Read"],
        "stripped": 4,
    }


@pytest.mark.parametrize(
    ("fixture", "kind", "name"),
    [
        ("claude_code_title.json", "title", "claude-code-topic"),
        ("claude_code_compact.json", "summary", "claude-code-compact"),
        ("codex_compact.json", "summary", "codex-compact"),
    ],
)
def test_housekeeping_calls_are_reported_and_not_classified(
    fixture: str, kind: str, name: str
) -> None:
    result = smista.classify_turn(load(fixture))
    assert result.housekeeping is not None
    assert (result.housekeeping.kind, result.housekeeping.name) == (kind, name)
    c = result.classification
    assert c.intent == smista.default_config().default_intent
    assert c.reason == f"housekeeping: {kind} request ({name}); not classified"
    assert c.matched_rule is None
    assert result.info().housekeeping == kind


def test_openai_chat_body_with_tool_calls_and_an_image() -> None:
    body = load("openai_chat.json")
    turn = parse_turn(body)
    assert turn.format == "openai-chat"
    assert (turn.text, turn.history) == (
        "continue",
        ("plan the migration from SQLite to Postgres",),
    )
    assert turn.system == "You are a coding assistant working in the shop repository."
    assert turn.tools == ("list_tables",)
    assert turn.tool_results == ("orders, customers, items",)
    assert turn.has_images
    assert not turn.has_attachments
    result = smista.classify_turn(body)
    assert result.classification.intent == smista.TaskIntent.PLAN
    assert result.classification.reason.startswith("follow-up: 'continue' continues the previous")
    # The bare messages list reads the same as the body.
    assert parse_turn(body["messages"]).text == "continue"


def test_openai_responses_body_from_codex() -> None:
    body = load("openai_responses.json")
    turn = parse_turn(body)
    assert turn.format == "openai-responses"
    assert turn.text == "lanjutkan"
    assert turn.history == ("summarize what changed in the last three commits",)
    assert turn.system.startswith("You are Codex")
    assert turn.tools == ("shell",)
    assert turn.tool_results == ("commit 1a2b3c\n    fix login\n",)
    assert turn.has_images
    assert [s.name for s in turn.stripped] == [
        "environment-context",
        "agents-md",
        "agents-md-heading",
    ]
    result = smista.classify_turn(body)
    assert result.classification.intent == smista.TaskIntent.SUMMARIZE
    assert result.follow_up


def test_responses_string_input_and_instructions() -> None:
    turn = parse_turn({"input": "review my diff", "instructions": "Be terse."})
    assert (turn.format, turn.text, turn.system) == (
        "openai-responses",
        "review my diff",
        "Be terse.",
    )


def test_anthropic_document_and_image_blocks_set_the_flags() -> None:
    turn = parse_turn(
        {
            "system": "be brief",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"},
                        },
                        {
                            "type": "document",
                            "source": {"type": "text", "media_type": "text/plain", "data": "spec"},
                        },
                        {"type": "text", "text": "what does this say?"},
                    ],
                }
            ],
        }
    )
    assert turn.has_images
    assert turn.has_attachments
    assert turn.text == "what does this say?"


@pytest.mark.parametrize(
    ("payload", "fmt"),
    [
        ("hi", "text"),
        ([{"role": "user", "content": "hi"}], "openai-chat"),
        ({"messages": [{"role": "user", "content": "hi"}], "system": "s"}, "anthropic"),
        ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}], "anthropic"),
        ([{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}], "openai-responses"),
        ([{"type": "function_call_output", "call_id": "c", "output": "x"}], "openai-responses"),
        ({"input": "hi"}, "openai-responses"),
    ],
)
def test_format_detection(payload: object, fmt: str) -> None:
    assert detect_format(payload) == fmt


@pytest.mark.parametrize(
    ("payload", "loc", "detail"),
    [
        (42, "", "expected a string, an array of messages or a request object, got a number"),
        ({"model": "x"}, "", "expected a string, an array of messages, or an object with"),
        ({"messages": "hi"}, "messages", "expected an array of messages, got a string"),
        ([{"role": "wizard", "content": "x"}], "[0].role", "unknown role 'wizard'"),
        ([{"content": "x"}], "[0].role", "missing role"),
        ([{"role": "user", "content": [{"text": "x"}]}], "[0].content[0].type", "missing content"),
        ([{"role": "user", "content": [{"type": "text", "text": 3}]}], "[0].content[0].text", ""),
        ([{"role": "user", "content": 7}], "[0].content", "expected a string, null or an array"),
        ({"input": [{"type": "function_call"}]}, "input[0].name", "expected a string, got null"),
        (["hi"], "[0]", "expected an object, got a string"),
    ],
)
def test_malformed_shapes_name_the_field(payload: object, loc: str, detail: str) -> None:
    with pytest.raises(TurnError) as err:
        parse_turn(payload)
    assert err.value.loc == loc
    assert err.value.detail.startswith(detail)
    assert isinstance(err.value, smista.SmistaError)
    assert isinstance(err.value, ValueError)


def test_errors_never_quote_the_payload_text() -> None:
    secret = "sk-very-secret-0123456789"
    with pytest.raises(TurnError) as err:
        parse_turn([{"role": secret, "content": secret}])
    # The role value is quoted (it is a bad role name); the content never is.
    with pytest.raises(TurnError) as err2:
        parse_turn([{"role": "user", "content": [{"type": "text", "text": 1, "x": secret}]}])
    assert secret not in str(err2.value)
    assert "role" in str(err.value)


# -- follow-ups and continuation phrases ---------------------------------------------

CLASSIFIER = default_classifier()


def convo(*users: str) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for text in users:
        out += [{"role": "user", "content": text}, {"role": "assistant", "content": "ok."}]
    return out[:-1]


@pytest.mark.parametrize(
    "phrase", ["ok do it", "Continue.", "go ahead!", "lanjutkan", "kör", "続けて", "계속"]
)
def test_continuation_phrases_take_the_previous_intent(phrase: str) -> None:
    result = CLASSIFIER.classify_turn(convo("review this diff please", phrase))
    previous = CLASSIFIER.classify("review this diff please")
    assert result.classification.intent == previous.intent
    assert result.follow is not None
    assert result.follow.why == "continuation"


def test_a_turn_with_its_own_signal_keeps_it() -> None:
    result = CLASSIFIER.classify_turn(convo("fix the parser", "now write the plan for phase two"))
    assert not result.follow_up
    assert result.classification == CLASSIFIER.classify("now write the plan for phase two")


def test_a_turn_with_no_signal_follows_and_says_so() -> None:
    own = CLASSIFIER.classify("wait")
    assert own.matched_rule is None  # no rule matched: no signal
    result = CLASSIFIER.classify_turn(convo("fix the retry loop", "wait"))
    previous = CLASSIFIER.classify("fix the retry loop")
    assert (
        result.classification.reason
        == f"follow-up: continues the previous turn ({previous.reason})"
    )
    assert result.own == own


def test_the_text_models_guess_is_a_signal_of_the_turns_own() -> None:
    # A likeliest rule's answer is low, and still the text's own reading: it stands.
    own = CLASSIFIER.classify("the second one from the list above")
    assert own.confidence is smista.Confidence.LOW
    assert own.matched_rule is not None
    assert CLASSIFIER.rules.reads_model(own.matched_rule)
    result = CLASSIFIER.classify_turn(
        convo("fix the retry loop", "the second one from the list above")
    )
    assert not result.follow_up
    assert result.classification == own
    # ... and an earlier turn's guess is a signal to follow.
    result = CLASSIFIER.classify_turn(convo("the second one from the list above", "wait"))
    assert result.follow is not None
    assert result.follow.previous == own


def test_follow_up_looks_back_past_signal_less_turns() -> None:
    assert CLASSIFIER.classify("wait").confidence == smista.Confidence.LOW  # (no signal)
    result = CLASSIFIER.classify_turn(convo("fix the retry loop", "wait", "yes"))
    assert result.classification.intent == smista.TaskIntent.EDIT
    assert result.follow is not None
    assert result.follow.turns_back == 2
    assert "the turn 2 back" in result.classification.reason


def test_no_earlier_signal_keeps_the_own_classification() -> None:
    assert CLASSIFIER.classify("wait").confidence == smista.Confidence.LOW  # (no signal)
    result = CLASSIFIER.classify_turn(convo("wait", "yes"))
    assert not result.follow_up
    assert result.classification == CLASSIFIER.classify("yes")


def test_a_catch_all_rule_is_no_signal_either_way() -> None:
    rules = smista.Classifier(
        smista.parse_config(
            "[classification]\n"
            '[[classification.rules]]\nintent="review"\npriority=1\nkeywords=["review"]\n'
            '[[classification.rules]]\nintent="edit"\npriority=999\n'
        )
    )
    assert rules.classify("and the tests too").matched_rule == 1
    result = rules.classify_turn(convo("review the parser", "and the tests too"))
    assert result.follow_up
    assert result.classification.intent == smista.TaskIntent.REVIEW
    # an earlier turn that only the catch-all matched is looked past, not followed
    result = rules.classify_turn(convo("review the parser", "hmm", "and the tests too"))
    assert result.follow is not None
    assert result.follow.turns_back == 2


def test_an_explicit_command_wins_over_the_follow_up() -> None:
    result = CLASSIFIER.classify_turn(convo("fix the retry loop", "ok do it"), command="plan")
    assert result.classification.intent == smista.TaskIntent.PLAN
    assert result.classification.source == smista.IntentSource.EXPLICIT


def test_is_continuation_is_whole_message_only() -> None:
    assert is_continuation("  OK, do it!! ")
    assert not is_continuation("ok do it and also fix the tests")


# -- [classification.turns] ------------------------------------------------------------

TOML = """
[classification]
default_intent = "chat"

[[classification.rules]]
intent = "edit"
keywords = ["fix"]

[classification.turns]
follow_up = {follow_up}
continuations = ["aye"]
builtin_continuations = false

[[classification.turns.noise]]
name = "banner"
pattern = "<banner>[\\\\s\\\\S]*?</banner>"

[[classification.turns.housekeeping]]
name = "my-titler"
kind = "title"
pattern = "Name this chat"
scope = "user"
"""


def test_turns_table_configures_noise_housekeeping_and_phrases() -> None:
    classifier = Classifier(parse_config(TOML.format(follow_up="true")))
    payload = convo("fix it", "<banner>plan review</banner> aye")
    result = classifier.classify_turn(payload)
    assert result.turn.text == "aye"
    assert [s.name for s in result.turn.stripped] == ["banner"]
    assert result.classification.intent == smista.TaskIntent.EDIT
    # The built-in phrases are off: "continue" has no signal, so it still follows...
    assert classifier.classify_turn(convo("fix it", "continue")).follow is not None
    assert classifier.classify_turn(convo("fix it", "continue")).follow.why == "no_signal"  # type: ignore[union-attr]
    house = classifier.classify_turn([{"role": "user", "content": "Name this chat please"}])
    assert house.housekeeping is not None
    assert house.housekeeping.name == "my-titler"
    off = Classifier(parse_config(TOML.format(follow_up="false")))
    assert not off.classify_turn(payload).follow_up


def test_read_user_turns_classifies_every_user_turn_joined() -> None:
    config = parse_config(
        '[classification]\n[[classification.rules]]\nintent = "review"\nkeywords = ["review"]\n'
        '[[classification.rules]]\nintent = "edit"\nkeywords = ["fix"]\n'
        '[classification.turns]\nread = "user_turns"\n'
    )
    classifier = Classifier(config)
    result = classifier.classify_turn(convo("review the diff", "then fix it"))
    assert result.classification == classifier.classify("review the diff\nthen fix it")
    assert not result.follow_up


def test_turns_table_never_changes_bare_prompt_classification() -> None:
    with_table = Classifier(parse_config(TOML.format(follow_up="true")))
    without = Classifier(parse_config(TOML.split("[classification.turns]")[0]))
    for text in ["fix it", "aye", "<banner>x</banner>", ""]:
        assert with_table.classify(text) == without.classify(text)


@pytest.mark.parametrize(
    ("table", "where", "message"),
    [
        ("folow_up = true", "classification.turns.folow_up", "unknown key"),
        ("history_depth = 0", "classification.turns.history_depth", "expected a number >= 1"),
        (
            '[[classification.turns.noise]]\nname = "x"\npattern = "(["',
            "classification.turns.noise[0].pattern",
            "invalid regular expression",
        ),
        (
            '[[classification.turns.noise]]\nname = "x"\npattern = "a*"',
            "classification.turns.noise[0].pattern",
            "pattern matches the empty string",
        ),
        (
            '[[classification.turns.noise]]\nname = "x"\ntag = "' + "a" * 2001 + '"',
            "classification.turns.noise[0].tag",
            "pattern is longer than 2000 characters",
        ),
        (
            'continuations = ["!!"]',
            "classification.turns.continuations",
            "continuation '!!' has no letters",
        ),
        (
            '[[classification.turns.housekeeping]]\nname = "x"\nkind = "t"\npattern = "p"\nscope = "all"',
            "classification.turns.housekeeping[0].scope",
            "expected 'system', 'user' or 'any'",
        ),
    ],
)
def test_turns_table_errors_name_the_key(table: str, where: str, message: str) -> None:
    text = "[classification]\n[classification.turns]\n" + table + "\n"
    with pytest.raises(ConfigError) as err:
        parse_config(text, "rules.toml")
    (loc, msg), *_ = err.value.errors
    assert loc == where
    assert msg.startswith(message)


# -- properties ---------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
KEYS = st.sampled_from(
    ["role", "content", "type", "text", "name", "messages", "input", "system", "output",
     "tool_calls", "function", "instructions", "custom"]
)  # fmt: skip
VALUES = st.sampled_from(
    ["user", "assistant", "system", "tool", "text", "input_text", "tool_use", "tool_result",
     "function_call", "function_call_output", "message", "image", "x_call_output", "fix it"]
)  # fmt: skip
SHAPED = st.recursive(
    st.none() | VALUES | st.integers(0, 2),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=30,
)
VALIDATOR = jsonschema.Draft202012Validator(PAYLOAD_SCHEMA)


@given(st.one_of(JSON, SHAPED))
def test_parsing_raises_only_turn_error_and_agrees_with_the_schema(payload: object) -> None:
    """Any JSON: a Turn or a TurnError; arrays/objects are accepted iff the schema says so."""
    try:
        parse_turn(payload)
        accepted = True
    except TurnError:
        accepted = False
    if isinstance(payload, (list, dict)):
        assert accepted == VALIDATOR.is_valid(payload), payload


PROMPT = st.text(st.characters(codec="utf-8"), max_size=60) | st.sampled_from(
    ["fix the bug", "review this", "plan it", "summarize", ""]
)


@given(PROMPT)
def test_a_text_only_turn_is_the_bare_prompt(text: str) -> None:
    bare = CLASSIFIER.classify(text)
    for payload in (text, [{"role": "user", "content": text}], {"input": text}):
        result = CLASSIFIER.classify_turn(payload)
        if result.turn.stripped or result.housekeeping is not None:
            continue  # the text held harness noise or a housekeeping marker
        if text.strip():
            assert result.classification == bare, payload


def test_turn_settings_are_hashable_so_classifiers_stay_hashable() -> None:
    config = parse_config(TOML.format(follow_up="true"))
    assert hash(Classifier(config)) == hash(Classifier(config))
    assert isinstance(config.turns, TurnSettings)


FRAGMENTS = st.sampled_from(
    ["<ide_a>", "</ide_a>", "<ide_b>", "</ide_b>", "<system-reminder>", "</system-reminder>",
     "x", " ", "\n", "<", ">", "</", "ide_", "fix"]
)  # fmt: skip


@given(st.lists(FRAGMENTS, max_size=30).map("".join))
def test_tag_stripping_equals_the_lazy_regex(text: str) -> None:
    """The linear tag scan removes exactly what ``<(T)>[\\s\\S]*?</\\1>`` would."""
    import re

    from smista.core.turns import Stripped, _strip_tags

    for tag in ("ide_[a-z_]+", "system-reminder"):
        spans: list[Stripped] = []
        got, count = _strip_tags(
            text, 0, "t", re.compile(f"<({tag})>"), re.compile(f"</({tag})>"), spans
        )
        found = [m[0] for m in re.finditer(f"<({tag})>[\\s\\S]*?</\\1>", text)]
        want = re.sub(f"<({tag})>[\\s\\S]*?</\\1>", " ", text)
        assert (got, [s.text for s in spans], count) == (want, found, len(found))


def test_noise_pattern_takes_exactly_one_of_pattern_and_tag() -> None:
    text = '[classification]\n[[classification.turns.noise]]\nname = "x"\n'
    for body, message in (
        ("", "give exactly one of 'pattern' and 'tag'"),
        ('pattern = "a"\ntag = "b"\n', "give exactly one of 'pattern' and 'tag'"),
        ('tag = "<b>"\n', "a tag is the name between < and >, without them"),
    ):
        with pytest.raises(ConfigError) as err:
            parse_config(text + body)
        assert err.value.errors[0][1].startswith(message)
    config = parse_config(text + 'tag = "banner"\n')
    turn = Classifier(config).classify_turn("<banner>plan</banner>fix it").turn
    assert (turn.text, turn.stripped[-1].name) == ("fix it", "x")


def test_detect_format_first_decisive_sign_wins() -> None:
    """An OpenAI tool message decides before a later Anthropic block; a sourced image is Anthropic."""
    tool_first = [
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]},
    ]
    assert detect_format(tool_first) == "openai-chat"
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}}
    assert detect_format([{"role": "user", "content": [7, image]}]) == "anthropic"
    assert detect_format([{"role": "user", "content": [{"type": 1}, image]}]) == "anthropic"


def test_a_payload_of_no_json_type_is_named_in_the_error() -> None:
    """A Python caller's odd payload gets a TurnError naming its type, never a traceback."""
    with pytest.raises(TurnError, match="got set"):
        detect_format({"a"})


def test_too_many_content_parts_are_refused() -> None:
    """A message holds at most MAX_ITEMS parts: the error gives the path and the count."""
    from smista.core.turns import MAX_ITEMS

    parts = [{"type": "text", "text": "a"}] * (MAX_ITEMS + 1)
    with pytest.raises(TurnError) as info:
        parse_turn([{"role": "user", "content": parts}])
    assert info.value.loc == "[0].content"
    assert f"has {MAX_ITEMS + 1} entries" in info.value.detail


def test_tool_results_report_their_images_and_files() -> None:
    """Images and files inside an Anthropic tool_result set the turn's flags."""
    result = {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": [
            {"type": "text", "text": "shot"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}},
            {"type": "document", "source": {"type": "base64", "data": ""}},
        ],
    }
    turn = parse_turn({"system": "s", "messages": [{"role": "user", "content": [result]}]})
    assert turn.tool_results == ("shot",)
    assert turn.has_images
    assert turn.has_attachments


def test_refusals_count_towards_the_token_estimate() -> None:
    """An assistant refusal part is text of the turn (token_estimate), not user text."""
    turn = parse_turn(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "refusal", "refusal": "x" * 38}]},
        ]
    )
    assert turn.text == "go"
    assert turn.token_estimate == 10


def test_legacy_function_messages_name_their_tools() -> None:
    """OpenAI's legacy function_call and role=function messages record the tool's name."""
    turn = parse_turn(
        [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": None, "function_call": {"name": "get_weather"}},
            {"role": "function", "name": "get_weather", "content": "sunny"},
        ]
    )
    assert turn.tools == ("get_weather",)
    assert turn.tool_results == ("sunny",)


def test_other_responses_calls_are_tools_named_by_kind() -> None:
    """A built-in Responses call without a name (web_search_call) is recorded by its kind."""
    turn = parse_turn(
        {
            "input": [
                {"role": "user", "content": "look it up"},
                {"type": "web_search_call", "id": "w", "status": "completed"},
                {"type": "mcp_call", "name": "fetch_docs"},
            ]
        }
    )
    assert turn.tools == ("web_search", "fetch_docs")


def test_a_long_stripped_span_is_cut_for_explain() -> None:
    """A removed span keeps its first 4000 characters, then '...'."""
    noise = "<system-reminder>" + "n" * 5000 + "</system-reminder>"
    turn = parse_turn([{"role": "user", "content": noise + " fix the bug"}])
    (span,) = turn.stripped
    assert len(span.text) == 4003
    assert span.text.endswith("...")
    assert turn.text.strip() == "fix the bug"


def test_follow_up_skips_earlier_continuations() -> None:
    """Looking back, an earlier 'ok do it' is itself a continuation and is passed over."""
    result = CLASSIFIER.classify_turn(convo("fix the retry loop", "ok do it", "continue"))
    assert result.follow is not None
    assert (result.follow.why, result.follow.turns_back) == ("continuation", 2)
    assert result.classification.intent == smista.TaskIntent.EDIT


@pytest.mark.parametrize("command", [None, "plan"])
def test_compiled_rules_classifier_answers_as_the_classifier(command: str | None) -> None:
    """batch's classifier over bare compiled rules gives Classifier's answer, commands included."""
    from smista.core.turnclassify import CompiledRulesClassifier

    bare = CompiledRulesClassifier(CLASSIFIER.rules)
    for text in ["fix the retry loop", "review this diff please", "hello"]:
        assert bare.classify(text, command=command, contexts=["git_diff"]) == CLASSIFIER.classify(
            text, command=command, contexts=["git_diff"]
        )


@pytest.mark.parametrize(
    "turns",
    [
        ("fix the retry loop", "the second one from the list above"),
        ("the second one from the list above", "wait"),
    ],
)
def test_every_turn_path_reads_a_model_guess_alike(turns: tuple[str, ...]) -> None:
    """batch's classifier, Classifier and explain_turn agree where the guess decides."""
    from smista.core.turnclassify import CompiledRulesClassifier, explain_turn

    expected = CLASSIFIER.classify_turn(convo(*turns))
    assert CompiledRulesClassifier(CLASSIFIER.rules).classify_turn(convo(*turns)) == expected
    explained = explain_turn(CLASSIFIER, convo(*turns))
    assert explained.result == expected.classification
    assert explained.turn.follow_up is expected.follow_up
