"""The intent classifier: a compiled :class:`ClassificationConfig` answering requests.

Pure; never performs I/O or calls a model. Classifying imports neither pydantic
nor the rule model: a classifier made by :meth:`Classifier.from_rules` (the
shipped default pack, precompiled) builds its validated ``config`` only when
something asks for it (explain, turns, equality, pickling). ``Classifier.classify`` is the
original's ``TaskNormalizer::classify``: explicit command override, then the
first rule in ``(priority, index)`` order whose conditions all hold, else the
default intent. ``Classifier.explain`` gives the same answer with the full
decision trace.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING

from smista.core.conditions.compile import plan_options, rule_spec
from smista.core.conditions.view import visible_text
from smista.core.engine import OUTCOMES_LIMIT, CompiledRules, RuleMatch, reason_and_confidence
from smista.core.intent import Confidence, IntentSource, TaskIntent
from smista.core.result import Classification, trusted
from smista.core.tokenizer import tokenize
from smista.core.wire import explicit_reason

if TYPE_CHECKING:
    from smista.core.explain import Explanation
    from smista.core.rules import ClassificationConfig
    from smista.core.turnclassify import TurnExplanation, TurnResult
    from smista.core.workspace import Workspace

__all__ = ["Classifier", "compile_rules", "context_names"]


def compile_rules(config: ClassificationConfig) -> CompiledRules:
    """The matcher for ``config`` (labels are intent names)."""
    return CompiledRules(
        (rule_spec(r.intent.value, r) for r in config.rules),
        config.default_intent.value,
        options=plan_options(config),
    )


def _plain_text(text: object) -> str:
    """``text`` as a plain ``str`` (a ``str`` subclass gives its value), or a
    ``TypeError`` naming the argument: ``text must be a str, got int``."""
    if isinstance(text, str):
        return str.__str__(text)
    raise TypeError(f"text must be a str, got {type(text).__name__}")


def context_names(contexts: Iterable[str]) -> frozenset[str]:
    """The context kinds ``contexts`` names; a lone string is one kind, not a sequence
    of one-letter kinds. A ``TypeError`` names the argument unless it is strings."""
    if isinstance(contexts, str):
        return frozenset((contexts,))
    try:
        items = iter(contexts)
    except TypeError:
        raise TypeError(
            f"contexts must be an iterable of str, got {type(contexts).__name__}"
        ) from None
    names = tuple(items)
    _only_strings(names)
    return frozenset(names)


def _only_strings(names: Iterable[object]) -> None:
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"contexts must be strings, got {type(name).__name__}")


def _contexts(contexts: Iterable[str], workspace: Workspace | None) -> frozenset[str]:
    kinds = context_names(contexts)
    if workspace is None:
        return kinds
    from smista.core.workspace import context_kinds

    return kinds | context_kinds(workspace)


class Classifier:
    """A classifier built once from a config: immutable, picklable, thread-safe."""

    __slots__ = (
        "_by_code",
        "_config",
        "_load_config",
        "_match_code",
        "_match_text",
        "_results",
        "rules",
    )

    rules: CompiledRules
    _config: ClassificationConfig | None
    _load_config: Callable[[], ClassificationConfig] | None
    _match_text: Callable[[str, Collection[str]], RuleMatch]
    _match_code: Callable[[str], int] | None
    _results: dict[RuleMatch, Classification]
    _by_code: dict[int, Classification]

    def __init__(self, config: ClassificationConfig) -> None:
        self._init(compile_rules(config), config, None)

    @classmethod
    def from_rules(
        cls, rules: CompiledRules, config: Callable[[], ClassificationConfig]
    ) -> Classifier:
        """A classifier over ``rules`` already compiled from the config ``config()`` returns.

        ``config`` is called at most once, when :attr:`config` is first read; it
        must return the config ``rules`` were compiled from (the shipped pack:
        :func:`smista.config.defaults.default_config`).
        """
        self = cls.__new__(cls)
        self._init(rules, None, config)
        return self

    def _init(
        self,
        rules: CompiledRules,
        config: ClassificationConfig | None,
        load: Callable[[], ClassificationConfig] | None,
    ) -> None:
        # Attributes are set once here; __setattr__ refuses later changes.
        init = object.__setattr__
        init(self, "_config", config)
        init(self, "_load_config", load)
        init(self, "rules", rules)
        init(self, "_match_text", rules.text_matcher())
        # (None for rules with extension kinds: their outcome is a RuleMatch, which keys
        # the results itself, with no code to find for it first)
        init(self, "_match_code", None if rules.extended else rules.match_code)
        init(self, "_results", {})
        init(self, "_by_code", {})

    @property
    def config(self) -> ClassificationConfig:
        """The validated config the rules were compiled from (built on first use)."""
        config = self._config
        if config is None:
            assert self._load_config is not None
            config = self._load_config()
            object.__setattr__(self, "_config", config)
        return config

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Classifier is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Classifier is immutable: cannot delete {name!r}")

    def __repr__(self) -> str:
        return f"Classifier(<{len(self.rules.specs)} rules>)"

    def __getstate__(self) -> ClassificationConfig:
        return self.config

    def __setstate__(self, state: ClassificationConfig) -> None:
        Classifier.__init__(self, state)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Classifier):
            return NotImplemented
        return self.config == other.config

    def __hash__(self) -> int:
        return hash(self.config)

    def classify(
        self,
        text: str,
        *,
        command: TaskIntent | str | None = None,
        contexts: Iterable[str] = (),
        workspace: Workspace | None = None,
    ) -> Classification:
        """Classify one request.

        ``command`` is an explicit intent (a ``TaskIntent`` or a name, read
        case-insensitively); ``contexts`` names available context kinds
        directly; ``workspace`` adds the kinds it provides.
        """
        if command is None and workspace is None and not contexts:  # the hot path
            if type(text) is not str:
                text = _plain_text(text)
            match_code = self._match_code
            if match_code is None:  # (extension kinds: see _init)
                match = self._match_text(text, ())
                cached = self._results.get(match)
                return cached if cached is not None else self._remember(match)
            code = match_code(text)
            found = self._by_code.get(code)
            if found is None:
                found = self._by_code[code] = self.result(self.rules.match_of_code(code))
            return found
        if type(text) is not str:
            text = _plain_text(text)
        if command is not None:
            return explicit(command)
        kinds: Collection[str]
        if isinstance(contexts, (set, frozenset)) and workspace is None:
            _only_strings(contexts)
            kinds = contexts
        else:
            kinds = _contexts(contexts, workspace)
        match = self._match_text(text, kinds)
        cached = self._results.get(match)
        return cached if cached is not None else self._remember(match)

    def result(self, match: RuleMatch) -> Classification:
        """The (shared, immutable) :class:`Classification` for a matcher outcome. At most
        :data:`~smista.core.engine.OUTCOMES_LIMIT` are kept: then they are forgotten, and
        made again when met (an outcome can quote the prompt: a wildcard slash command)."""
        cached = self._results.get(match)
        return cached if cached is not None else self._remember(match)

    def _remember(self, match: RuleMatch) -> Classification:
        """:meth:`result` of an outcome not kept yet: made, and kept."""
        results = self._results
        if len(results) >= OUTCOMES_LIMIT:
            results.clear()
        made = results[match] = inferred(match)
        return made

    def explain(
        self,
        text: str,
        *,
        command: TaskIntent | str | None = None,
        contexts: Iterable[str] = (),
        workspace: Workspace | None = None,
    ) -> Explanation:
        """The decision trace behind :meth:`classify` for the same inputs."""
        from smista.core.explain import explain_rules

        text = _plain_text(text)
        kinds = _contexts(contexts, workspace)
        visible = visible_text(text) if self.rules.options.ignore_code else text
        tokens = tokenize(visible)
        result = self.classify(text, command=command, contexts=kinds)
        return explain_rules(
            self.rules, tokens, kinds, result, explicit=command is not None, text=text
        )

    def classify_turn(
        self,
        payload: object,
        *,
        command: TaskIntent | str | None = None,
        contexts: Iterable[str] = (),
        workspace: Workspace | None = None,
    ) -> TurnResult:
        """Classify a whole turn (messages or a request body): :mod:`smista.core.turnclassify`."""
        from smista.core.turnclassify import classify_turn

        return classify_turn(self, payload, command=command, contexts=contexts, workspace=workspace)

    def explain_turn(
        self,
        payload: object,
        *,
        command: TaskIntent | str | None = None,
        contexts: Iterable[str] = (),
        workspace: Workspace | None = None,
    ) -> TurnExplanation:
        """The trace behind :meth:`classify_turn`: stripped spans, follow-up, rule traces."""
        from smista.core.turnclassify import explain_turn

        return explain_turn(self, payload, command=command, contexts=contexts, workspace=workspace)


def inferred(match: RuleMatch) -> Classification:
    """The result of a matcher outcome: its intent, reason, rule and confidence."""
    reason, level = reason_and_confidence(match)
    return trusted(
        _INTENTS.get(match.label) or TaskIntent(match.label),
        IntentSource.INFERRED,
        reason,
        match.rule,
        _CONFIDENCES.get(level) or Confidence(level),
    )


# The members by value: ``TaskIntent(value)`` without the enum machinery's call (any
# other value still goes through it, and fails there as it always did).
_INTENTS: dict[str, TaskIntent] = {intent.value: intent for intent in TaskIntent}
_CONFIDENCES: dict[str, Confidence] = {level.value: level for level in Confidence}


def explicit(command: TaskIntent | str) -> Classification:
    """The result of an explicit command: no rule is evaluated."""
    if not isinstance(command, str):  # a TaskIntent is a str too
        raise TypeError(f"command must be a TaskIntent or a str, got {type(command).__name__}")
    intent = command if isinstance(command, TaskIntent) else TaskIntent.parse(command)
    return _EXPLICIT[intent]


_EXPLICIT: dict[TaskIntent, Classification] = {
    intent: Classification(
        intent=intent,
        source=IntentSource.EXPLICIT,
        reason=explicit_reason(intent.value),
    )
    for intent in TaskIntent
}
