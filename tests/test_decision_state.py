"""Bounded decision state: byte-exact budget, Go escaping, oldest-first dropping, oversize current."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista.decision.state import (
    DEFAULT_MAX_STATE_BYTES,
    Conversation,
    Message,
    StateTooLarge,
    bound_state,
    go_json,
    has_previous_user_task,
    messages_from_records,
)


def conv(
    *history: tuple[str, str], message: str = "latest", cwd: str = "", branch: str = ""
) -> Conversation:
    return Conversation(
        cwd=cwd,
        git_branch=branch,
        history=tuple(Message.model_validate({"role": r, "content": c}) for r, c in history),
        message=message,
    )


def size(text: str) -> int:
    return len(text.encode("utf-8"))


def test_default_budget_is_80_kib() -> None:
    """81,920 bytes."""
    assert DEFAULT_MAX_STATE_BYTES == 81920


def test_state_shape_and_field_order() -> None:
    """cwd, git_branch, messages; role before content; compact separators."""
    state = bound_state(
        conv(
            ("user", "hello"),
            ("assistant", "hi"),
            message="implement it",
            cwd="/work",
            branch="main",
        )
    )
    assert state.json_text == (
        '{"cwd":"/work","git_branch":"main","messages":['
        '{"role":"user","content":"hello"},'
        '{"role":"assistant","content":"hi"},'
        '{"role":"user","content":"implement it"}]}'
    )
    assert (state.messages, state.dropped, state.size) == (3, 0, size(state.json_text))


def test_go_escaping() -> None:
    """<, >, &, U+2028/9 escaped; other non-ASCII raw; controls as Go writes them."""
    assert go_json("<a href='x'>&</a>") == "\"\\u003ca href='x'\\u003e\\u0026\\u003c/a\\u003e\""
    assert go_json("\u2028\u2029") == '"\\u2028\\u2029"'
    assert go_json("é☃😀") == '"é☃😀"'
    assert go_json('"\\\n\r\t\b\f\x01\x7f') == '"\\"\\\\\\n\\r\\t\\b\\f\\u0001\x7f"'
    assert go_json("bad\udcffbyte") == '"bad\\ufffdbyte"'
    assert go_json({"b": 1, "a": [True, None]}) == '{"b":1,"a":[true,null]}'
    assert go_json({"b": 1, "a": 2}, sort_keys=True) == '{"a":2,"b":1}'


def test_escaping_counts_toward_the_budget() -> None:
    """'<' costs 6 bytes serialized, not 1."""
    plain = bound_state(conv(message="a" * 10))
    escaped = bound_state(conv(message="<" * 10))
    assert escaped.size - plain.size == 50


def test_multibyte_text_is_measured_in_utf8_bytes() -> None:
    """'é' is 2 bytes, '😀' 4."""
    base = bound_state(conv(message="")).size
    assert bound_state(conv(message="é")).size == base + 2
    assert bound_state(conv(message="😀")).size == base + 4


def _exact_budget(c: Conversation) -> int:
    return bound_state(c, 10**9).size


@pytest.mark.parametrize(
    "text", ["plain ascii", "ünïcödé ☃ 😀", '<tag> & "quotes" \\ \n', "\u2028"]
)
def test_budget_boundary_is_exact(text: str) -> None:
    """A state of exactly the budget fits; one byte less drops the oldest message."""
    c = conv(("user", text), ("assistant", text), message=text)
    exact = _exact_budget(c)
    fits = bound_state(c, exact)
    assert (fits.messages, fits.dropped, fits.size) == (3, 0, exact)
    tight = bound_state(c, exact - 1)
    assert (tight.messages, tight.dropped) == (2, 1)
    assert tight.size <= exact - 1


def test_oldest_messages_are_dropped_first_and_whole() -> None:
    """The kept messages are the newest suffix, untruncated; the suffix may start with assistant."""
    c = conv(
        ("user", "one " * 50), ("assistant", "two " * 50), ("user", "three"), ("assistant", "four")
    )
    full = _exact_budget(c)
    state = bound_state(c, full - 1)
    kept = json.loads(state.json_text)["messages"]
    assert [m["content"] for m in kept] == ["two " * 50, "three", "four", "latest"]
    state = bound_state(c, full - 300)
    kept = json.loads(state.json_text)["messages"]
    assert [m["content"] for m in kept] == ["three", "four", "latest"]
    assert state.dropped == 2


def test_current_message_is_never_dropped_or_truncated() -> None:
    """Even a tiny budget keeps the current message whole, or refuses."""
    c = conv(("user", "x" * 1000), message="short")
    alone = _exact_budget(conv(message="short"))
    state = bound_state(c, alone)
    assert json.loads(state.json_text)["messages"] == [{"role": "user", "content": "short"}]
    with pytest.raises(StateTooLarge) as info:
        bound_state(c, alone - 1)
    assert info.value.size == alone
    assert info.value.budget == alone - 1
    assert str(info.value) == (
        f"state too large: the current message alone serializes to {alone} bytes, "
        f"over the {alone - 1}-byte limit; classification skipped"
    )


def test_oversized_current_message_with_default_budget() -> None:
    """A current message over 80 KiB is skipped (reported, not truncated)."""
    with pytest.raises(StateTooLarge):
        bound_state(conv(message="a" * 81920))


def test_metadata_counts_toward_the_budget() -> None:
    """cwd and branch are part of the serialized size."""
    short = bound_state(conv(message="m"))
    long = bound_state(conv(message="m", cwd="/" + "d" * 100, branch="feature/x"))
    assert long.size - short.size == 101 + 9


def test_keen_drops_old_messages_to_fit_budget() -> None:
    """Spec A.11 TestClassifierDropsOldMessagesToFitBudget: only 'latest' survives."""
    c = conv(("user", "old" * 30000), ("assistant", "old" * 30000), message="latest")
    state = bound_state(c)
    assert json.loads(state.json_text)["messages"] == [{"role": "user", "content": "latest"}]


def test_keen_payload_keeps_a_small_conversation_whole() -> None:
    """Spec A.11 TestClassifierBuildsPayloadAndParsesResult: three messages, last 'implement it'."""
    state = bound_state(
        conv(
            ("user", "hello"),
            ("assistant", "hi"),
            message="implement it",
            cwd="/work",
            branch="main",
        )
    )
    messages = json.loads(state.json_text)["messages"]
    assert len(messages) == 3
    assert messages[2]["content"] == "implement it"


def test_previous_user_task() -> None:
    """Only an earlier user message counts as a previous task."""
    assert not has_previous_user_task(conv(message="x"))
    assert not has_previous_user_task(conv(("assistant", "hello!"), message="x"))
    assert has_previous_user_task(conv(("user", "fix it"), message="x"))


def test_history_records_keep_only_user_and_assistant_text() -> None:
    """Tool, system and empty assistant messages are left out; order is kept."""
    records: list[dict[str, object]] = [
        {"role": "system", "content": "be nice"},
        {"role": "user", "content": "a"},
        {"role": "tool", "content": "output"},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": "b", "name": "x"},
        {"role": "user", "content": None},
    ]
    assert messages_from_records(records) == (
        Message(role="user", content="a"),
        Message(role="assistant", content="b"),
    )


_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=60) | st.sampled_from(
    ["<>&", "\u2028", "é" * 20, '"\\', "\udcff"]
)
_HISTORY = st.lists(st.tuples(st.sampled_from(["user", "assistant"]), _TEXT), max_size=8)


@given(_HISTORY, _TEXT, st.integers(1, 2000))
def test_bounded_state_never_exceeds_the_budget(
    history: list[tuple[str, str]], message: str, budget: int
) -> None:
    """Fits, is a suffix ending with the current message, and is maximal; or it refuses."""
    c = conv(*history, message=message)
    try:
        state = bound_state(c, budget)
    except StateTooLarge:
        assert _exact_budget(conv(message=message)) > budget
        return
    assert state.size == size(state.json_text) <= budget
    decoded = json.loads(state.json_text)
    everything = [m.model_dump() for m in c.messages()]
    kept = decoded["messages"]
    assert kept == [json.loads(go_json(m)) for m in everything[len(everything) - len(kept) :]]
    assert state.dropped + state.messages == len(everything)
    if state.dropped:
        one_more = Conversation(
            cwd=c.cwd,
            git_branch=c.git_branch,
            history=c.history[state.dropped - 1 :],
            message=message,
        )
        assert _exact_budget(one_more) > budget
