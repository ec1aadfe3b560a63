"""Classification rule models: the wire and TOML shape of ``[classification]``.

Pure data (pydantic v2, frozen). A rule's condition keys come from the
registered condition kinds (:data:`smista.core.conditions.registry.KINDS`): each
kind's module declares its key, type, default and description, and the rule
model is assembled from them, so the shape of a rule is stated once.

Structure is validated strictly: unknown keys, wrong types, unknown intents
and priorities outside ``0..=4294967295`` are errors (unknown keys are a
deliberate difference from the original, which ignores them). Semantics stay
lenient, as in the original: empty keywords, duplicate rules and equal
priorities load and behave as the original does; ``smista check`` reports
them. Keys beyond the original's (``phrases``, ``question``, ``typo``,
``[classification.options]``, ``[classification.markers]`` ...) are smista
extensions: opt-in, and absent they change nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    StrictBool,
    StrictInt,
    StrictStr,
    create_model,
    field_validator,
    model_serializer,
)

from smista.core.conditions.markers import MARKER_KEYS
from smista.core.conditions.registry import KINDS
from smista.core.intent import TaskIntent
from smista.core.textmodel import TextModel
from smista.core.turnrules import TurnSettings

__all__ = [
    "DEFAULT_PRIORITY",
    "MAX_PRIORITY",
    "ClassificationConfig",
    "ClassificationOptions",
    "ClassificationRule",
    "MarkersTable",
    "ModelTable",
]

DEFAULT_PRIORITY = 1000
MAX_PRIORITY = 2**32 - 1

Priority = Annotated[StrictInt, Field(ge=0, le=MAX_PRIORITY)]

TypoSwitch = Annotated[
    StrictBool,
    Field(
        description=(
            "smista extension: false switches typo tolerance off for this rule's "
            "keywords, phrases and leading words."
        )
    ),
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _drop_unset_extensions(data: Any, defaults: dict[str, Any]) -> Any:
    """A dump without the smista extension keys left at their defaults."""
    if isinstance(data, dict):
        for key, default in defaults.items():
            if key in data and data[key] in (
                default,
                list(default) if type(default) is tuple else default,
            ):
                del data[key]
    return data


_RULE_EXTENSION_DEFAULTS: dict[str, Any] = {
    **{kind.key: kind.default for kind in KINDS if not kind.original},
    "typo": True,
}


class _RuleBase(_Frozen):
    """One rule: all present conditions must hold; a rule with none matches every request.

    ``keywords`` matches when any keyword is in the prompt (typo-tolerant);
    ``requires_any_context`` when any named context kind is available; the
    other condition keys are smista extensions (see :mod:`smista.core.conditions`),
    left out of dumps while unset so an original-shaped rule dumps as the
    original's.
    """

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _drop_unset_extensions(handler(self), _RULE_EXTENSION_DEFAULTS)

    if TYPE_CHECKING:  # a typing mirror of the registered kinds (tests/test_conditions.py)
        intent: TaskIntent
        priority: int = DEFAULT_PRIORITY
        keywords: tuple[str, ...] = ()
        commands: tuple[str, ...] = ()
        mentions: tuple[str, ...] = ()
        leading: tuple[str, ...] = ()
        lead_endings: tuple[str, ...] = ()
        phrases: tuple[str, ...] = ()
        stems: tuple[str, ...] = ()
        substrings: tuple[str, ...] = ()
        question: bool | None = None
        exclude: tuple[str, ...] = ()
        exclude_substrings: tuple[str, ...] = ()
        predicted: tuple[str, ...] = ()
        likeliest: tuple[str, ...] = ()
        requires_any_context: tuple[str, ...] = ()
        typo: bool = True


def _rule_fields() -> dict[str, Any]:
    fields: dict[str, Any] = {"intent": (TaskIntent, ...), "priority": (Priority, DEFAULT_PRIORITY)}
    for kind in KINDS:
        fields[kind.key] = (kind.annotation(), kind.default)
    fields["typo"] = (TypoSwitch, True)
    return fields


if TYPE_CHECKING:
    ClassificationRule = _RuleBase
else:
    ClassificationRule = create_model(
        "ClassificationRule", __base__=_RuleBase, __module__=__name__, **_rule_fields()
    )
    ClassificationRule.__doc__ = _RuleBase.__doc__


class ClassificationOptions(_Frozen):
    """``[classification.options]`` (smista extension): file-level matching options."""

    ignore_code: StrictBool = Field(
        default=False,
        description=(
            "Token conditions do not see fenced code, inline code, URLs, file paths or "
            "identifiers (snake_case, camelCase, dotted names)."
        ),
    )
    hangul_han_typos: StrictBool = Field(
        default=True,
        description=(
            "Whether keywords written in Hangul or Han may match by typo (the original "
            "does; new kinds never do)."
        ),
    )


class ModelTable(_Frozen):
    """``[classification.model]`` (smista extension): the text model ``predicted`` reads.

    ``file`` names a model file (JSON, see :mod:`smista.core.textmodel`), relative to the
    rules file; the config layer reads it and hands the loaded model over with
    :meth:`with_weights`. The core never opens it.
    """

    file: StrictStr = Field(
        description="Path of the text model file (JSON), relative to this rules file."
    )
    min_probability: float = Field(
        default=0.6,
        strict=True,
        gt=0,
        le=1,
        description="The probability a predicted label needs for a 'predicted' condition.",
    )
    min_probability_by_label: dict[StrictStr, Annotated[float, Field(strict=True, gt=0, le=1)]] = (
        Field(
            default_factory=dict,
            description=(
                "Per-label overrides of min_probability (smista extension): a label listed "
                "here needs this probability instead."
            ),
        )
    )
    _weights: TextModel | None = PrivateAttr(default=None)
    _digest: str = PrivateAttr(default="")
    _path: str = PrivateAttr(default="")

    @property
    def weights(self) -> TextModel | None:
        """The loaded model (``None`` until the config layer has read ``file``)."""
        return self._weights

    @property
    def digest(self) -> str:
        """The digest of the model file's bytes it was loaded from ("" before)."""
        return self._digest

    @property
    def path(self) -> str:
        """The model file it was loaded from, as written in ``file`` ("" before)."""
        return self._path

    @field_validator("min_probability_by_label")
    @classmethod
    def _one_bar_a_label(cls, bars: dict[str, float]) -> dict[str, float]:
        seen: dict[str, str] = {}
        for label in bars:
            name = label.strip().lower()
            if name in seen:
                raise ValueError(
                    f"label {name!r} is given two bars (as {seen[name]!r} and {label!r})"
                )
            seen[name] = label
        return bars

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _drop_unset_extensions(handler(self), {"min_probability_by_label": {}})

    def thresholds(self) -> tuple[tuple[str, float], ...]:
        """``min_probability_by_label`` as sorted (label, probability) pairs, labels
        lowercased as ``predicted`` reads them."""
        return tuple(
            sorted((k.strip().lower(), v) for k, v in self.min_probability_by_label.items())
        )

    def __eq__(self, other: object) -> bool:
        # The table as written (the wire shape carries no weights): two tables naming
        # the same file and thresholds are the same table.
        if not isinstance(other, ModelTable):
            return NotImplemented
        return (self.file, self.min_probability, self.thresholds()) == (
            other.file,
            other.min_probability,
            other.thresholds(),
        )

    def __hash__(self) -> int:
        return hash((self.file, self.min_probability, self.thresholds()))

    def with_weights(self, weights: TextModel, path: str, digest: str) -> ModelTable:
        """A copy carrying the loaded model, the file it came from and its digest."""
        table = self.model_copy()
        table._weights = weights
        table._path = path
        table._digest = digest
        return table


class _MarkersBase(_Frozen):
    """``[classification.markers]`` (smista extension): data for ``question`` and ``leading``.

    Each key (:data:`smista.core.conditions.markers.MARKER_KEYS`) is a list of
    strings that replaces that built-in list; multi-word entries are written
    with spaces (``"can you"``).
    """


if TYPE_CHECKING:
    MarkersTable = _MarkersBase
else:
    MarkersTable = create_model(
        "MarkersTable",
        __base__=_MarkersBase,
        __module__=__name__,
        **dict.fromkeys(MARKER_KEYS, (tuple[StrictStr, ...] | None, None)),
    )
    MarkersTable.__doc__ = _MarkersBase.__doc__


class ClassificationConfig(_Frozen):
    """Ordered classification rules and the intent used when none matches.

    ``options``, ``markers`` and ``model`` are smista extensions, left out of dumps while
    unset.
    """

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _drop_unset_extensions(
            handler(self), {"options": None, "markers": None, "model": None}
        )

    default_intent: TaskIntent = TaskIntent.CHAT
    rules: tuple[ClassificationRule, ...] = ()
    options: ClassificationOptions | None = None
    markers: MarkersTable | None = None
    model: ModelTable | None = None
    turns: TurnSettings | None = Field(default=None, exclude=True)
    """``[classification.turns]`` (smista extension, see docs/turns.md): how whole turns
    are read; ``None`` means the built-ins. Never changes bare-prompt classification.
    Left out of ``model_dump`` so the rule set's wire shape stays the original's."""
