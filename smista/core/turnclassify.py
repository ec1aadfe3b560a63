"""Classifying a whole turn: the current user text, housekeeping, and the follow-up rule.

Pure; never performs I/O. Owns what a turn's classification is; it calls
:meth:`smista.core.classifier.Classifier.classify` (and ``explain``) and never
matches rules itself, so every rule kind the classifier knows works here too.

* **Housekeeping** calls (a host asking for a title or a summary) are not
  classified: the answer is the rule set's default intent, confidence low,
  with a reason naming the housekeeping kind and pattern.
* The **current user text** is classified as a bare prompt would be.
* **Follow-up rule**: when that text has no signal of its own (no rule matched,
  or the rule that did holds no confidence signal and does not read the text
  model: a catch-all, confidence low) or is a configured continuation phrase
  ("ok do it", "continue", "lanjutkan", "続けて" ...), the turn takes the intent of the
  latest earlier user turn that has a signal (looking back ``history_depth``
  turns), with the reason ``follow-up: continues the previous turn (<its
  reason>)``. An explicit command always wins; with no earlier signal the
  turn's own classification stands.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from smista.core.classifier import context_names
from smista.core.explain import Explanation
from smista.core.intent import Confidence, IntentSource, TaskIntent
from smista.core.result import Classification
from smista.core.turnrules import TurnSettings, compiled, normalize_phrase
from smista.core.turns import FORMATS, Housekeeping, Stripped, Turn, parse_turn
from smista.core.workspace import Workspace

if TYPE_CHECKING:
    from smista.core.classifier import Classifier
    from smista.core.engine import CompiledRules

__all__ = [
    "CompiledRulesClassifier",
    "FollowUp",
    "StrippedSpan",
    "TurnClassifier",
    "TurnExplanation",
    "TurnInfo",
    "TurnResult",
    "classify_turn",
    "explain_turn",
    "is_continuation",
]


class _Config(Protocol):
    @property
    def default_intent(self) -> TaskIntent: ...

    @property
    def turns(self) -> TurnSettings | None: ...


class TurnClassifier(Protocol):
    """What turn classification needs of a classifier (:class:`~smista.core.classifier.Classifier`
    has it; so does :class:`CompiledRulesClassifier`): its config (default intent, turn
    settings), its compiled ``rules`` (the follow-up rule asks
    :meth:`~smista.core.engine.CompiledRules.reads_model` of the rule that matched) and
    ``classify``."""

    @property
    def config(self) -> _Config: ...

    @property
    def rules(self) -> CompiledRules: ...

    def classify(
        self,
        text: str,
        *,
        command: TaskIntent | str | None = None,
        contexts: Iterable[str] = (),
        workspace: Workspace | None = None,
    ) -> Classification: ...


@dataclass(frozen=True, slots=True)
class _RulesConfig:
    default_intent: TaskIntent
    turns: TurnSettings | None


class CompiledRulesClassifier:
    """A :class:`TurnClassifier` over bare compiled rules (``smista batch``, no config model).

    Answers exactly what :class:`~smista.core.classifier.Classifier` answers for the same
    rules (``workspace`` is not read: pass its context kinds in ``contexts``).
    """

    def __init__(self, rules: CompiledRules, turns: TurnSettings | None = None) -> None:
        self.rules = rules
        self.config = _RulesConfig(TaskIntent(rules.default_label), turns)

    def classify(
        self,
        text: str,
        *,
        command: TaskIntent | str | None = None,
        contexts: Iterable[str] = (),
        workspace: Workspace | None = None,  # noqa: ARG002 - kinds come in contexts
    ) -> Classification:
        """The classification of ``text``, as ``Classifier.classify`` gives it."""
        from smista.core.classifier import explicit, inferred

        if command is not None:
            return explicit(command)
        kinds: Collection[str] = frozenset(contexts)
        return inferred(self.rules.match_text(text, kinds))

    def classify_turn(
        self,
        payload: object,
        *,
        command: TaskIntent | str | None = None,
        contexts: Iterable[str] = (),
    ) -> TurnResult:
        """:func:`classify_turn` with these rules."""
        return classify_turn(self, payload, command=command, contexts=contexts)


class TurnInfo(BaseModel):
    """The ``turn`` object added to a classification answer when a turn was given."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: StrictStr = Field(description="One of: " + ", ".join(FORMATS) + ".")
    follow_up: StrictBool = Field(
        description="The intent was taken from an earlier user turn (the follow-up rule)."
    )
    housekeeping: StrictStr | None = Field(
        description="The housekeeping kind (title, summary, probe...) or null; "
        "housekeeping calls are not classified by the rules."
    )
    user_turns: StrictInt = Field(ge=0, description="User turns in the messages.")
    token_estimate: StrictInt = Field(ge=0, description="Characters / 4 over all text.")
    has_images: StrictBool
    has_attachments: StrictBool
    tools: tuple[StrictStr, ...] = Field(description="Tools called in the turn.")
    stripped: StrictInt = Field(ge=0, description="Harness-noise spans removed.")


@dataclass(frozen=True, slots=True)
class FollowUp:
    """Why and from where a turn took an earlier turn's intent."""

    why: str
    """``no_signal`` or ``continuation``."""
    turns_back: int
    """1 for the previous user turn, 2 for the one before, ..."""
    previous: Classification
    """The earlier turn's own classification."""
    previous_text: str


@dataclass(frozen=True, slots=True)
class TurnResult:
    """A turn's classification, with what led to it."""

    classification: Classification
    """The answer (route on this)."""
    turn: Turn
    own: Classification
    """The current user text's own classification."""
    follow: FollowUp | None = None

    @property
    def follow_up(self) -> bool:
        """The intent came from an earlier user turn."""
        return self.follow is not None

    @property
    def housekeeping(self) -> Housekeeping | None:
        """The housekeeping call this turn is, if any."""
        return self.turn.housekeeping

    def info(self) -> TurnInfo:
        """The additive ``turn`` object of the wire answer."""
        t = self.turn
        return TurnInfo(
            format=t.format,
            follow_up=self.follow_up,
            housekeeping=t.housekeeping.kind if t.housekeeping is not None else None,
            user_turns=t.user_turns,
            token_estimate=t.token_estimate,
            has_images=t.has_images,
            has_attachments=t.has_attachments,
            tools=t.tools,
            stripped=len(t.stripped),
        )

    def to_wire(self) -> dict[str, object]:
        """The classification's wire JSON plus a ``turn`` object."""
        return {**self.classification.to_wire(), "turn": self.info().model_dump(mode="json")}


def is_continuation(text: str, settings: TurnSettings | None = None) -> bool:
    """``text`` is, as a whole, one of the configured continuation phrases."""
    config = compiled(settings)
    if len(text) > 4 * config.longest_continuation + 16:
        return False
    return normalize_phrase(text) in config.continuations


def _housekeeping_result(classifier: TurnClassifier, found: Housekeeping) -> Classification:
    return Classification(
        intent=classifier.config.default_intent,
        source=IntentSource.INFERRED,
        reason=f"housekeeping: {found.kind} request ({found.name}); not classified",
        confidence=Confidence.LOW,
    )


def _follow(
    classifier: TurnClassifier,
    turn: Turn,
    own: Classification,
    settings: TurnSettings | None,
    contexts: frozenset[str],
    workspace: Workspace | None,
) -> FollowUp | None:
    config = compiled(settings)
    if not config.follow_up or not turn.history:
        return None
    if is_continuation(turn.text, settings):
        why = "continuation"
    elif not _has_signal(classifier, own):
        why = "no_signal"
    else:
        return None
    earlier = turn.history[-config.history_depth :]
    for back, text in enumerate(reversed(earlier), start=1):
        if is_continuation(text, settings):
            continue
        previous = classifier.classify(text, contexts=contexts, workspace=workspace)
        if _has_signal(classifier, previous):
            return FollowUp(why=why, turns_back=back, previous=previous, previous_text=text)
    return None


def _has_signal(classifier: TurnClassifier, result: Classification) -> bool:
    """Whether a rule matched on a signal of the text's own: a confidence signal, or the
    text model's reading (a ``likeliest`` guess is low, and still the text's reading). A
    catch-all that reads neither (``leading = ["*"]`` alone) holds none."""
    rule = result.matched_rule
    if rule is None:
        return False
    return result.confidence is not Confidence.LOW or classifier.rules.reads_model(rule)


def _follow_reason(follow: FollowUp, text: str) -> str:
    where = "the previous turn" if follow.turns_back == 1 else f"the turn {follow.turns_back} back"
    lead = "follow-up"
    if follow.why == "continuation":
        lead = f"follow-up: '{normalize_phrase(text)}'"
        return f"{lead} continues {where} ({follow.previous.reason})"
    return f"{lead}: continues {where} ({follow.previous.reason})"


def classify_turn(
    classifier: TurnClassifier,
    payload: object,
    *,
    command: TaskIntent | str | None = None,
    contexts: Iterable[str] = (),
    workspace: Workspace | None = None,
    settings: TurnSettings | None = None,
) -> TurnResult:
    """Classify a turn (any payload :func:`smista.core.turns.parse_turn` reads).

    ``settings`` defaults to the classifier's ``[classification.turns]`` table.
    Raises :class:`smista.core.turns.TurnError` for a malformed payload.
    """
    if settings is None:
        settings = classifier.config.turns
    turn = parse_turn(payload, settings)
    kinds = context_names(contexts)
    if command is not None:
        own = classifier.classify(turn.text, command=command)
        return TurnResult(classification=own, turn=turn, own=own)
    if turn.housekeeping is not None:
        result = _housekeeping_result(classifier, turn.housekeeping)
        return TurnResult(classification=result, turn=turn, own=result)
    if compiled(settings).read == "user_turns":
        joined = "\n".join((*turn.history, turn.text))
        own = classifier.classify(joined, contexts=kinds, workspace=workspace)
        return TurnResult(classification=own, turn=turn, own=own)
    own = classifier.classify(turn.text, contexts=kinds, workspace=workspace)
    follow = _follow(classifier, turn, own, settings, kinds, workspace)
    if follow is None:
        return TurnResult(classification=own, turn=turn, own=own)
    taken = follow.previous
    result = Classification(
        intent=taken.intent,
        source=IntentSource.INFERRED,
        reason=_follow_reason(follow, turn.text),
        matched_rule=taken.matched_rule,
        confidence=taken.confidence,
    )
    return TurnResult(classification=result, turn=turn, own=own, follow=follow)


# ---------------------------------------------------------------------------
# explain


class StrippedSpan(BaseModel):
    """A harness-noise span removed before classification."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: StrictStr
    message: StrictInt
    text: StrictStr


class TurnExplanation(BaseModel):
    """``explain`` for a turn: what was read, what was stripped, and the rule trace."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: TurnInfo
    text: StrictStr = Field(description="The current user text that was classified.")
    stripped: tuple[StrippedSpan, ...]
    housekeeping: StrictStr | None = Field(description="The housekeeping pattern name, if any.")
    follow_up: StrictStr | None = Field(
        description="no_signal or continuation when the follow-up rule applied."
    )
    previous_text: StrictStr | None = None
    explanation: Explanation = Field(description="The rule trace of the current user text.")
    previous: Explanation | None = Field(
        default=None, description="The rule trace of the earlier turn the intent came from."
    )
    result: Classification


def _span(s: Stripped) -> StrippedSpan:
    return StrippedSpan(name=s.name, message=s.message, text=s.text)


def explain_turn(
    classifier: Classifier,
    payload: object,
    *,
    command: TaskIntent | str | None = None,
    contexts: Iterable[str] = (),
    workspace: Workspace | None = None,
    settings: TurnSettings | None = None,
) -> TurnExplanation:
    """The decision trace behind :func:`classify_turn` for the same inputs."""
    found = classify_turn(
        classifier,
        payload,
        command=command,
        contexts=contexts,
        workspace=workspace,
        settings=settings,
    )
    kinds = context_names(contexts)
    own = classifier.explain(found.turn.text, command=command, contexts=kinds, workspace=workspace)
    previous = None
    if found.follow is not None:
        previous = classifier.explain(
            found.follow.previous_text, contexts=kinds, workspace=workspace
        )
    house = found.turn.housekeeping
    return TurnExplanation(
        turn=found.info(),
        text=found.turn.text,
        stripped=tuple(_span(s) for s in found.turn.stripped),
        housekeeping=house.name if house is not None else None,
        follow_up=found.follow.why if found.follow is not None else None,
        previous_text=found.follow.previous_text if found.follow is not None else None,
        explanation=own,
        previous=previous,
        result=found.classification,
    )
