"""Turn settings: the ``[classification.turns]`` table, its built-in defaults, compiled.

Pure (pydantic models, regular expressions). Owns what a turn's harness noise,
housekeeping calls and continuation phrases look like: the built-in patterns
(``NOISE``, ``HOUSEKEEPING``, ``CONTINUATIONS``), the optional smista extension
table that adds to or turns them off, and their compiled form. Never performs
I/O and never reads a message (:mod:`smista.core.turns` does that).

The table is opt-in: without it, every built-in applies and follow-ups are on.
A rules file that uses only the original's keys never reaches this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

__all__ = [
    "CONTINUATIONS",
    "HOUSEKEEPING",
    "NOISE",
    "CompiledTurnSettings",
    "HousekeepingPattern",
    "NoisePattern",
    "TurnSettings",
    "compiled",
    "normalize_phrase",
]

MAX_PATTERN_CHARS = 2000
"""A configured regular expression is at most this long."""

Name = Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]


def _check_regex(value: str) -> str:
    if len(value) > MAX_PATTERN_CHARS:
        raise ValueError(f"pattern is longer than {MAX_PATTERN_CHARS} characters")
    try:
        compiled_ = re.compile(value)
    except re.error as exc:
        raise ValueError(f"invalid regular expression: {exc}") from None
    if compiled_.search("") is not None:
        raise ValueError("pattern matches the empty string; it must match some text")
    return value


class NoisePattern(BaseModel):
    r"""Harness text a user never typed, removed from user text.

    Either ``tag``, a regular expression for tag names: every ``<NAME>...</NAME>``
    pair (the first closer of the same name after the opener) is removed, in
    time linear in the text; or ``pattern``, a regular expression whose every
    match is removed (it runs over each user message: a pattern such as
    ``<x>[\s\S]*?</x>`` is quadratic on text with many unclosed ``<x>``, which
    ``tag`` is not).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Name
    pattern: StrictStr | None = None
    tag: StrictStr | None = None

    @field_validator("pattern")
    @classmethod
    def check_pattern(cls, value: str | None) -> str | None:
        """The pattern compiles, is bounded and cannot match empty text."""
        return None if value is None else _check_regex(value)

    @field_validator("tag")
    @classmethod
    def check_tag(cls, value: str | None) -> str | None:
        """The tag-name expression compiles, is bounded and names something."""
        if value is None:
            return None
        _check_regex(value)
        if "<" in value or ">" in value:
            raise ValueError("a tag is the name between < and >, without them")
        return value

    @model_validator(mode="after")
    def check_one_form(self) -> NoisePattern:
        """Exactly one of ``pattern`` and ``tag``."""
        if (self.pattern is None) == (self.tag is None):
            raise ValueError("give exactly one of 'pattern' and 'tag'")
        return self


class HousekeepingPattern(BaseModel):
    """A host's own bookkeeping call (a title, a summary, a probe), told by its text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Name
    kind: Name
    pattern: StrictStr
    scope: Literal["system", "user", "any"] = "any"

    @field_validator("pattern")
    @classmethod
    def check_pattern(cls, value: str) -> str:
        """The pattern compiles, is bounded and cannot match empty text."""
        return _check_regex(value)


class TurnSettings(BaseModel):
    """``[classification.turns]``: how whole turns are read (a smista extension).

    ``noise``/``housekeeping``/``continuations`` add to the built-ins; the
    ``builtin_*`` switches turn the built-ins off. ``follow_up`` turns the
    follow-up rule off; ``history_depth`` is how many earlier user turns it
    looks back through. ``read`` is what is classified: the current user text
    (default), or every user turn joined (``user_turns``; no follow-up rule then).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    read: Literal["current", "user_turns"] = "current"
    follow_up: StrictBool = True
    history_depth: StrictInt = Field(default=8, ge=1, le=64)
    builtin_noise: StrictBool = True
    noise: tuple[NoisePattern, ...] = Field(default=(), max_length=256)
    builtin_housekeeping: StrictBool = True
    housekeeping: tuple[HousekeepingPattern, ...] = Field(default=(), max_length=256)
    builtin_continuations: StrictBool = True
    continuations: tuple[Annotated[StrictStr, Field(min_length=1, max_length=200)], ...] = Field(
        default=(), max_length=4096
    )

    @field_validator("continuations")
    @classmethod
    def check_phrases(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for phrase in value:
            if not normalize_phrase(phrase):
                raise ValueError(f"continuation {phrase!r} has no letters or digits")
        return value


# ---------------------------------------------------------------------------
# Built-ins. Each names the harness it comes from in docs/turns.md.

NOISE: tuple[NoisePattern, ...] = tuple(
    NoisePattern(name=name, tag=tag, pattern=pattern)
    for name, tag, pattern in (
        # Claude Code: reminders (they also carry the injected CLAUDE.md content).
        ("system-reminder", "system-reminder", None),
        # Claude Code: output of UserPromptSubmit hooks shown to the model.
        ("user-prompt-submit-hook", "user-prompt-submit-hook", None),
        # Claude Code IDE integrations: <ide_selection>, <ide_opened_file>, ...
        ("ide-context", "ide_[a-z_]+", None),
        # Cline / Roo Code: the environment envelope appended to each message.
        ("environment-details", "environment_details", None),
        # Codex: environment context and injected AGENTS.md / user instructions.
        ("environment-context", "environment_context", None),
        ("agents-md", "INSTRUCTIONS", None),
        ("agents-md-heading", None, r"# AGENTS\.md instructions for [^\n]*"),
        ("user-instructions", "user_instructions", None),
        # Claude Code slash commands and their local output (the arguments stay).
        (
            "command-envelope",
            "command-name|command-message|local-command-stdout|local-command-stderr"
            "|local-command-caveat",
            None,
        ),
        ("command-args-tags", None, r"</?command-args>"),
        (
            "local-command-caveat",
            None,
            r"Caveat: The messages below were generated by the user while running local "
            r"commands\.[^\n]*",
        ),
        ("task-notification", "task-notification", None),
        ("request-interrupted", None, r"\[Request interrupted by user[^\]\n]{0,200}\]"),
        # Claude Code after a compaction: the summary handed to the new context.
        (
            "session-continued",
            None,
            r"This session is being continued from a previous conversation that ran out of "
            r"context\.[\s\S]*",
        ),
        # Cline: wrapper tags around the user's own words (the words stay).
        ("cline-wrapper-tags", None, r"</?(?:task|feedback|user_message|answer)>"),
    )
)
"""Harness noise stripped from user text by default, in this order."""

HOUSEKEEPING: tuple[HousekeepingPattern, ...] = tuple(
    HousekeepingPattern(name=name, kind=kind, pattern=pattern, scope=scope)
    for name, kind, scope, pattern in (
        (
            "claude-code-topic",
            "title",
            "system",
            r"Analyze if this message indicates a new conversation topic",
        ),
        (
            "claude-code-title",
            "title",
            "any",
            r"Please write a \d+-\d+ word title for the following conversation",
        ),
        (
            "claude-code-session-title",
            "title",
            "any",
            r"You are coming up with a succinct title",
        ),
        (
            "claude-code-short-title",
            "title",
            "any",
            r"Summarize this coding conversation in under \d+ characters",
        ),
        (
            "claude-code-compact",
            "summary",
            "any",
            r"Your task is to create a detailed summary of the conversation so far",
        ),
        (
            "codex-compact",
            "summary",
            "any",
            r"You are performing a CONTEXT CHECKPOINT COMPACTION",
        ),
        ("claude-code-quota", "probe", "user", r"\A\s*quota\s*\Z"),
    )
)
"""Housekeeping calls recognised by default (first match wins)."""

CONTINUATIONS: tuple[str, ...] = (
    # English
    "continue", "go ahead", "go on", "go", "ok do it", "ok go ahead", "do it", "do that",
    "yes", "yes please", "yes do it", "yes go ahead", "yes continue", "ok continue", "ok go",
    "yep", "yeah", "y", "sure", "ok", "okay", "k",
    "proceed", "please proceed", "please continue", "keep going", "carry on", "next",
    "sounds good", "lgtm", "looks good", "ship it", "make it so", "try again", "retry",
    "again", "agreed", "approved", "confirm", "confirmed",
    # Indonesian / Malay
    "lanjutkan", "lanjut", "ya", "oke", "gas", "teruskan", "silakan",
    # Swedish / Norwegian / Danish
    "kör", "kör på", "fortsätt", "ja", "kjør", "fortsett", "fortsæt",
    # German / Dutch
    "weiter", "mach weiter", "mach das", "los", "ga door", "doorgaan",
    # French / Spanish / Portuguese / Italian
    "continue", "vas y", "oui", "continuer", "sigue", "continúa", "continua", "adelante",
    "sí", "si", "dale", "pode continuar", "sim", "segue", "vai", "procedi", "sì",
    # Japanese / Korean / Chinese
    "続けて", "続けてください", "はい", "お願いします", "進めて", "どうぞ",
    "계속", "계속해", "계속해줘", "계속해 주세요", "네", "응", "진행해", "진행해줘",
    "继续", "繼續", "好的", "好", "可以", "是的",
    # Russian / Ukrainian / Polish / Turkish
    "продолжай", "продолжить", "да", "давай", "продовжуй", "так", "kontynuuj", "dalej",
    "tak", "devam", "devam et", "evet",
    # Vietnamese / Thai / Hindi
    "tiếp tục", "tiếp", "ต่อ", "ต่อเลย", "haan", "जारी रखें",
)  # fmt: skip
"""Continuation phrases: a whole message equal to one of these is a follow-up."""


def normalize_phrase(text: str) -> str:
    """Case-folded words of ``text``: punctuation and spacing do not matter."""
    folded = text.casefold()
    return " ".join("".join(c if c.isalnum() else " " for c in folded).split())


@dataclass(frozen=True, slots=True)
class CompiledTurnSettings:
    """Settings with their patterns compiled and their phrases normalised."""

    read: str
    follow_up: bool
    history_depth: int
    noise: tuple[tuple[str, re.Pattern[str], re.Pattern[str] | None], ...]
    """``(name, regex, None)`` for a pattern, ``(name, opener, closer)`` for a tag."""
    housekeeping: tuple[tuple[str, str, str, re.Pattern[str]], ...]
    continuations: frozenset[str]
    longest_continuation: int


def _noise(n: NoisePattern) -> tuple[str, re.Pattern[str], re.Pattern[str] | None]:
    if n.tag is not None:
        return n.name, re.compile(f"<({n.tag})>"), re.compile(f"</({n.tag})>")
    assert n.pattern is not None
    return n.name, re.compile(n.pattern), None


_DEFAULT = TurnSettings()


@lru_cache(maxsize=64)
def compiled(settings: TurnSettings | None = None) -> CompiledTurnSettings:
    """The compiled form of ``settings`` (``None``: the defaults); cached."""
    s = settings if settings is not None else _DEFAULT
    noise = (NOISE if s.builtin_noise else ()) + s.noise
    house = (HOUSEKEEPING if s.builtin_housekeeping else ()) + s.housekeeping
    phrases = frozenset(
        normalize_phrase(p)
        for p in ((CONTINUATIONS if s.builtin_continuations else ()) + s.continuations)
    )
    return CompiledTurnSettings(
        read=s.read,
        follow_up=s.follow_up,
        history_depth=s.history_depth,
        noise=tuple(_noise(n) for n in noise),
        housekeeping=tuple((h.name, h.kind, h.scope, re.compile(h.pattern)) for h in house),
        continuations=phrases,
        longest_continuation=max((len(p) for p in phrases), default=0),
    )
