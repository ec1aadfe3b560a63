"""The ``likeliest`` kind (smista extension): the text model's most probable label, however sure.

Pure. ``likeliest = ["chat"]`` holds when the text model named by the rules file
(``[classification.model]``) gives ``chat`` as its most probable label for the
prompt's visible tokens, at any probability: no ``min_probability`` bar applies.
It is the model's guess where nothing surer decided, for the last rules of a pack
(pack v24's seven rules at priority 999 replaced a catch-all edit with it). Unlike
``predicted`` it is not a confidence signal: a guess the model may hold at 0.3
stays ``low``. It is still the text's own reading, so the follow-up rule of whole
turns leaves it standing (:mod:`smista.core.turnclassify`). The reason part names the label and its
probability (``text model's likeliest label 'chat' at 0.41``). It shares its
value, lints, gate and strategy with ``predicted``
(:class:`~smista.core.conditions.predicted.PredictedKind`), and like it needs a
model (a config error without one). Must never perform I/O.
"""

from __future__ import annotations

from typing import Any

from smista.core.conditions._lists import string_list
from smista.core.conditions.base import Condition, Evidence
from smista.core.conditions.predicted import PredictedKind
from smista.core.conditions.view import PromptView

__all__ = ["LIKELIEST", "LikeliestKind"]


class LikeliestKind(PredictedKind):
    """``likeliest = ["chat"]``."""

    key = "likeliest"
    default = ()
    label = "text model's likeliest label"
    summary = "the rule set's text model's most probable label is one of these, however unsure"
    signal = False

    def annotation(self) -> Any:
        return string_list(
            "smista extension: holds when the text model of [classification.model] gives one "
            "of these labels as its most probable one, whatever its probability (no bar)."
        )

    place = 96

    def label_witnesses(self, model: Any, label: str, options: Any) -> list[str]:
        # Words the model reads alone as the label, but under that label's bar for
        # ``predicted`` (a guess, not a sure reading: rules reading the model surely do not
        # claim them), most probable first, up to WITNESSES.
        bar = options.min_for(label)
        guessed = []
        for word in model.weights:
            if word.startswith("#"):
                continue
            prediction = model.predict((word,))
            if prediction.label == label and prediction.probability < bar:
                guessed.append((-prediction.probability, word))
        return [word for _, word in sorted(guessed)[:WITNESSES]]

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        prediction = view.prediction
        if prediction is None or prediction.label not in condition.values:
            return None
        shown = f"{prediction.label} {prediction.probability:.2f}"
        return _new(Evidence, (self.key, shown, False))

    def native(self, condition: Condition) -> tuple[Any, ...]:
        # the most probable label, at any probability, one of the values
        return ("model", frozenset(condition.values), False, self.key)

    def trace(self, condition: Condition, view: PromptView) -> str:
        prediction = view.prediction
        if prediction is None:
            return "does not hold: the rule set has no text model"
        read = (
            f"the model's likeliest label is {prediction.label!r} at {prediction.probability:.2f}"
        )
        if prediction.label in condition.values:
            return f"holds: {read}"
        return f"does not hold: {read}; wanted {', or '.join(condition.values)}"

    def present(self, view: PromptView, plan: dict[str, frozenset[str]]) -> frozenset[str]:
        # The model's most probable label, if it is a gate key (the plan is predicted's):
        # only the rules listing it are looked at.
        prediction = view.prediction
        return _NONE if prediction is None else plan.get(prediction.label, _NONE)

    def native_gate(self, plan: dict[str, frozenset[str]]) -> tuple[Any, ...]:
        return ("model", plan, False)  # (the most probable label's keys)


WITNESSES = 8
"""Witness words :meth:`LikeliestKind.label_witnesses` gives for a label, at most."""

LIKELIEST = LikeliestKind()
_new = tuple.__new__
_NONE: frozenset[str] = frozenset()
