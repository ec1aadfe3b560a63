"""What a rule condition kind is: the one interface every kind implements.

Pure; standard library only. A *kind* (``keywords``, ``phrases``, ``question``
...) owns one TOML key of a ``[[classification.rules]]`` entry and everything
that key means: its pydantic field (type, default, description, hence its
JSON Schema fragment), how a value compiles into plain matcher data, how it
matches a prompt and the evidence it leaves, its reason wording and whether
it counts as a confidence signal, its lints and its hypothesis strategy.
Consumers (the rule model, the engine, ``explain``, ``check``, the schema,
:mod:`smista.authoring.testing`) iterate over :data:`smista.core.conditions.registry.KINDS`
and never special-case a kind.

Must never perform I/O or import the edge (config, cli, server ...).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, TypeVar

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from smista.core.conditions.view import PromptView

__all__ = [
    "Condition",
    "ConditionKind",
    "Evidence",
    "Lint",
    "PerObject",
    "Severity",
    "per_condition",
    "rule_key",
]

_K = TypeVar("_K")
_V = TypeVar("_V")

PER_CONDITION_LIMIT = 1 << 16
"""Conditions a :func:`per_condition` memo holds before it starts again empty."""


class PerObject(Generic[_K, _V]):
    """``build(obj)``, remembered per object: keyed by identity, with the object held
    beside its value (so its id cannot be reused while held), and forgotten all at
    once past ``limit`` objects. The one memo of the tables derived from compiled,
    immutable data (a condition's entry plans, a markers object's C table):
    ``functools.lru_cache`` would hash the object, hence all its values, on each call.
    Hot paths call :attr:`get`, a plain function (calling the object itself goes
    through the type's ``__call__`` slot, about twice the cost)."""

    __slots__ = ("_held", "get")

    def __init__(self, build: Callable[[_K], _V], limit: int) -> None:
        held: dict[int, tuple[_K, _V]] = {}
        self._held = held

        def get(of: _K) -> _V:
            found = held.get(id(of))
            if found is not None and found[0] is of:
                return found[1]
            if len(held) > limit:
                held.clear()
            value = build(of)
            held[id(of)] = (of, value)
            return value

        self.get: Callable[[_K], _V] = get

    def __call__(self, of: _K) -> _V:
        return self.get(of)

    def __len__(self) -> int:
        return len(self._held)


class Severity(StrEnum):
    """``error`` always fails a check; ``warning`` fails it under ``--strict``."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Lint(NamedTuple):
    """One finding about one place in the ``[classification]`` section."""

    rule: int | None
    key: str
    severity: Severity
    code: str
    message: str


def rule_key(rule: int, field: str | None = None, item: int | None = None) -> str:
    """``classification.rules[3].phrases[1]`` style key paths."""
    key = f"classification.rules[{rule}]"
    if field is not None:
        key += f".{field}"
    return key if item is None else key + f"[{item}]"


class Condition(NamedTuple):
    """A compiled extension condition: plain, hashable, picklable data.

    ``values`` are the normalized (lowercased) entries, ``flag`` a boolean
    parameter (the ``question`` polarity, or whether typo tolerance is on).
    """

    kind: str
    values: tuple[str, ...] = ()
    flag: bool = True


def per_condition(derive: Callable[[Condition], _V]) -> PerObject[Condition, _V]:
    """``derive(condition)`` as a :class:`PerObject`: a kind's match-time tables (its
    entries split into words, indexed by first word ...) depend on the condition
    alone, so they are derived once per compiled condition, not on every prompt."""
    return PerObject(derive, PER_CONDITION_LIMIT)


class Evidence(NamedTuple):
    """What made a condition hold: shown in reasons (``shown``) and ``explain``.

    ``shown`` is ``None`` for conditions that leave no reason part (vetoes).
    """

    kind: str
    shown: str | None
    fuzzy: bool = False


class ConditionKind:
    """Base class of a condition kind; subclasses are stateless singletons.

    Class attributes describe the TOML key; methods give its semantics. The
    two kinds of the original (``keywords``, ``requires_any_context``) are
    ``indexed``: the engine matches them through its compiled token index
    (an optimisation checked against :meth:`match`); every other kind is
    compiled to a :class:`Condition` that the engine verifies with
    :meth:`match` on a :class:`~smista.core.conditions.view.PromptView`.
    """

    key: ClassVar[str]
    """The TOML key inside a rule."""
    default: ClassVar[Any]
    """The value meaning "no such condition"."""
    label: ClassVar[str] = ""
    """The word naming the evidence in reasons: ``phrase 'commit message'``."""
    signal: ClassVar[bool] = True
    """Whether holding counts as a confidence signal (vetoes do not)."""
    original: ClassVar[bool] = False
    """Whether the Rust original has this key (parity is then untouchable)."""
    indexed: ClassVar[bool] = False
    """Whether the engine matches it through its token index, not a Condition."""
    typo_aware: ClassVar[bool] = False
    """Whether the rule's ``typo`` switch applies to it."""
    reads_model: ClassVar[bool] = False
    """Whether it reads the rule set's text model (``[classification.model]``): its values
    are the model's labels, which loading checks against the model file, and a rule set
    without a model cannot use it."""
    summary: ClassVar[str] = ""
    """One line for docs and ``smista schema``."""

    # -- the value in a rule ---------------------------------------------------

    def annotation(self) -> Any:
        """The pydantic field type, with its ``Field`` description (imports pydantic)."""
        raise NotImplementedError

    def is_set(self, value: Any) -> bool:
        """Whether ``value`` (as validated) states a condition at all."""
        return bool(value != self.default)

    def compile(self, value: Any, *, typo: bool) -> Condition:
        """The plain matcher data for a set ``value`` (never asked of ``indexed`` kinds)."""
        raise NotImplementedError

    # -- semantics -----------------------------------------------------------

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        """The evidence if ``condition`` holds for the prompt in ``view``, else ``None``.

        This is the kind's plain reference semantics.
        """
        raise NotImplementedError

    def describe(self, evidence: Evidence) -> str | None:
        """The reason part for ``evidence`` (``None``: it leaves none)."""
        if evidence.shown is None:
            return None
        return f"{self.label} '{evidence.shown}'"

    def words(self, condition: Condition) -> tuple[str, ...]:
        """Lowercased words the engine should index for this condition's lookups."""
        del condition
        return ()

    def prefixes(self, condition: Condition) -> tuple[str, ...]:
        """Lowercased token prefixes the engine should index for this condition."""
        del condition
        return ()

    def gate(self, condition: Condition) -> frozenset[str] | None:
        """Gate keys of which one must be present for ``condition`` to hold, if any.

        Lets the engine skip a keyword-less rule with one set test; the keys
        mean what :meth:`present` says they mean (for phrases and leading
        words, words of :meth:`words`, which the engine indexes).
        """
        del condition
        return None

    def gate_plan(self, keys: frozenset[str]) -> Any:
        """Every gate key of this kind in a rule set, arranged for :meth:`present`.

        Plain data (tuples, dicts, frozensets, strings): the engine derives it
        once per rule set, and the shipped pack stores it, so the first prompt
        does not build it. By default the keys themselves.
        """
        return keys

    def present(self, view: PromptView, plan: Any) -> frozenset[str]:
        """Which gate keys of :meth:`gate_plan`'s ``plan`` the prompt in ``view`` has."""
        del view, plan
        raise NotImplementedError

    # -- the compiled walk (an optimisation; match and present stay the statement) --

    def native(self, condition: Condition) -> tuple[Any, ...] | None:
        """:meth:`match` as an op of the C walker (``smista.core.walk``): the op's name
        (a key of ``_speedups.WALK_OPS``) and its plain arguments, whose meaning the
        walker's comment per op states. ``None`` (the default): the walker calls
        :meth:`match` on a view. A kind that gives one keeps it beside its ``match``; the
        walker takes it only from the class that defines ``match`` too (a subclass that
        overrides ``match`` alone is called), and the differential tests hold the two
        equal."""
        del condition
        return None

    def native_gate(self, plan: Any) -> tuple[Any, ...] | None:
        """:meth:`present` for :meth:`gate_plan`'s ``plan`` as a gate op of the C walker
        (a key of ``_speedups.GATE_OPS`` and its arguments), as :meth:`native` is for
        :meth:`match`; ``None`` (the default): the walker calls :meth:`present`."""
        del plan
        return None

    def witnesses(self, value: Any) -> tuple[str, ...]:
        """Prompt fragments that make this condition hold on their own (for checks).

        :func:`smista.authoring.testing.check_no_unreachable_rules` composes one per
        kind, in :attr:`place` order, into prompts a rule should win.
        """
        del value
        return ("",)

    def witnesses_in(self, value: Any, options: Any) -> tuple[str, ...]:
        """:meth:`witnesses` in a rule set whose file-level ``options`` (a
        :class:`~smista.core.conditions.view.PlanOptions`) a kind may need to read."""
        del options
        return self.witnesses(value)

    place: ClassVar[int] = 50
    """Where a witness goes in a composed prompt (lower first)."""

    monotone: ClassVar[bool] = True
    """Whether a prompt that satisfies this condition still does with more words added
    (every kind but ``predicted``: more words can make a text model less sure).
    :func:`smista.authoring.testing.check_no_unreachable_rules` relies on it."""

    def counts(self, evidence: Evidence) -> bool:
        """Whether ``evidence`` is a confidence signal (see ``engine.confidence_of``)."""
        return self.signal and evidence.shown is not None

    def trace(self, condition: Condition, view: PromptView) -> str:
        """A one-line account of how ``condition`` fared, for ``explain``."""
        found = self.match(condition, view)
        if found is None:
            return "does not hold"
        part = self.describe(found)
        return f"holds: {part}" if part else "holds"

    def exclusive(self, one: Any, other: Any) -> bool:
        """Whether a prompt can never satisfy both values' conditions (conservative: no)."""
        del one, other
        return False

    def covers(self, earlier: Any, later: Any) -> bool:
        """Whether ``earlier``'s condition holds whenever ``later``'s does (conservative)."""
        return not self.is_set(earlier) or earlier == later

    # -- authoring -----------------------------------------------------------

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        """Findings about this kind's values across ``rules`` (validated rules)."""
        del rules, known_contexts
        return iter(())

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        """Values of this key for generated rules, built from single-token ``words``."""
        raise NotImplementedError

    def read(self, rule: Any) -> Any:
        """This kind's value in a validated rule."""
        return getattr(rule, self.key)
