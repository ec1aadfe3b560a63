"""The ``predicted`` kind (smista extension): the rule set's text model gives one of these labels.

Pure. ``predicted = ["edit"]`` holds when the text model named by the rules file
(``[classification.model]``, a :class:`~smista.core.textmodel.TextModel` of fixed
integer weights) gives ``edit`` as its most probable label for the prompt's visible
tokens, with a probability of at least ``min_probability`` (file-level, default 0.6;
``min_probability_by_label`` sets another bar for a label).
The model is read, never trained or asked anything outside the process: the same
prompt always gives the same answer. It counts as one confidence signal; the reason
part names the label and its probability (``text model 'edit' at 0.83``), and
``explain`` adds the features that weighed most. A rule set without a model cannot
use this key (a config error). Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from smista.core.conditions._lists import list_lints, string_list
from smista.core.conditions.base import Condition, ConditionKind, Evidence, Lint
from smista.core.conditions.view import PromptView

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["PREDICTED", "PredictedKind"]


def _label(value: str) -> str:
    return value.strip().lower()


class PredictedKind(ConditionKind):
    """``predicted = ["edit"]``."""

    key = "predicted"
    default = ()
    label = "text model"
    summary = "the rule set's text model gives one of these labels, confidently enough"
    reads_model = True

    def annotation(self) -> Any:
        return string_list(
            "smista extension: holds when the text model of [classification.model] gives one "
            "of these labels as its most probable one, with at least its min_probability."
        )

    place = 95
    monotone = False

    def witnesses_in(self, value: Any, options: Any) -> tuple[str, ...]:
        model = getattr(options, "model", None)
        if model is None:
            return ("",)
        out: list[str] = []
        for label in (_label(v) for v in value):
            if label in model.labels:
                out.extend(self.label_witnesses(model, label, options))
        return tuple(out) or ("",)

    def label_witnesses(self, model: Any, label: str, options: Any) -> list[str]:
        """Prompts the rule set's ``model`` reads as ``label`` (one of its labels) for this
        kind's condition to hold: here the three words it weighs most for the label (and
        for it, not against it), as one prompt."""
        del options
        lane = model.labels.index(label)
        words = [f for f in model.weights if not f.startswith("#") and model.weights[f][lane] > 0]
        words.sort(key=lambda f: (-model.weights[f][lane], f))
        return [" ".join(words[:3])] if words else []

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        return Condition(self.key, tuple(_label(v) for v in value))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        label = view.confident
        if label is None or label not in condition.values:
            return None
        prediction = view.prediction
        assert prediction is not None  # (a confident label is the model's)
        # (Evidence(...) without its Python-level __new__: the same tuple)
        return _new(Evidence, (self.key, f"{label} {prediction.probability:.2f}", False))

    def native(self, condition: Condition) -> tuple[Any, ...]:
        # the confident label, one of the values: "label 0.87"
        return ("model", frozenset(condition.values), True, self.key)

    def describe(self, evidence: Evidence) -> str | None:
        label, probability = str(evidence.shown).rsplit(" ", 1)
        return f"{self.label} '{label}' at {probability}"

    def trace(self, condition: Condition, view: PromptView) -> str:
        prediction = view.prediction
        if prediction is None:
            return "does not hold: the rule set has no text model"
        model = view.options.model
        assert model is not None  # a prediction needs a model
        support = ", ".join(
            repr(f) for f in model.support(view.tokens, prediction.label, view.corrected)
        )
        read = f"the model reads {prediction.label!r} at {prediction.probability:.2f}"
        if support:
            read += f" (most for it: {support})"
        found = self.match(condition, view)
        if found is None:
            options = view.options
            wanted = ", or ".join(
                f"{v} at {options.min_for(v):.2f} or more" for v in condition.values
            )
            return f"does not hold: {read}; wanted {wanted}"
        return f"holds: {read}"

    def gate(self, condition: Condition) -> frozenset[str] | None:
        return frozenset(condition.values)

    def gate_plan(self, keys: frozenset[str]) -> dict[str, frozenset[str]]:
        # Each label's one-key answer, made once per rule set, not on every prompt (in
        # sorted order: the generated pack is the same whatever the hash seed).
        return {key: frozenset((key,)) for key in sorted(keys)}

    def present(self, view: PromptView, plan: dict[str, frozenset[str]]) -> frozenset[str]:
        # The one label the model gives confidently enough, if it is a gate key: only
        # the rules listing it are looked at.
        label = view.confident
        return _NONE if label is None else plan.get(label, _NONE)

    def native_gate(self, plan: dict[str, frozenset[str]]) -> tuple[Any, ...]:
        return ("model", plan, True)  # (the confident label's keys)

    def exclusive(self, one: Any, other: Any) -> bool:
        # One prompt has one most probable label: disjoint label lists never both hold.
        if not self.is_set(one) or not self.is_set(other):
            return False
        return not {_label(v) for v in one} & {_label(v) for v in other}

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(self.key, "label", rules, _label)

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        from smista.core.intent import TaskIntent

        del words  # (the words go into the model: smista.authoring.testing.configs)
        labels = st.sampled_from([i.value for i in TaskIntent])
        return st.lists(labels, min_size=1, max_size=2, unique=True).map(tuple)


PREDICTED = PredictedKind()
_new = tuple.__new__
_NONE: frozenset[str] = frozenset()
