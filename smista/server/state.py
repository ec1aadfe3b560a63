"""The rule set the service answers with: an immutable snapshot behind one reference.

I/O edge (reads the rules and config files). :func:`load_state` reads the
files once, hashes exactly the bytes it parses, validates everything (the
``[classification]`` rules and every pluggable endpoint's section) and returns
a frozen :class:`ServiceState`. :class:`StateHolder` keeps the current one;
a reload builds a complete new state first and then swaps the single
reference, so a request that took the old state finishes on it and a failed
reload leaves the old state serving. Never mutates a state after building it.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from smista.config._files import CONFIG_LIMIT, read_bounded
from smista.config.defaults import default_config, shipped_rules_path
from smista.config.load import parse_config, parse_document, read_source, validate_section
from smista.core.classifier import Classifier
from smista.core.errors import ConfigError
from smista.core.rules import ClassificationConfig
from smista.server.models import RulesInfo
from smista.server.plugins import Endpoint

__all__ = [
    "ServiceState",
    "SourceFile",
    "StateHolder",
    "file_sha256",
    "load_state",
    "reload_and_log",
]

log = logging.getLogger("smista.server")


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file a state was built from, and the SHA-256 of the bytes that were parsed."""

    path: str
    sha256: str


@dataclass(frozen=True, slots=True)
class ServiceState:
    """Everything one rule-set generation answers with; never changes once built."""

    classifier: Classifier
    rules: SourceFile
    config: SourceFile | None
    loaded_at: datetime
    generation: int
    runtimes: Mapping[str, object]

    def info(self) -> RulesInfo:
        """The ``GET /v1/rules`` answer."""
        config = self.classifier.config
        return RulesInfo(
            source=self.rules.path,
            sha256=self.rules.sha256,
            loaded_at=self.loaded_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            rule_count=len(config.rules),
            default_intent=config.default_intent,
            generation=self.generation,
            classification=config,
            config=self.config.path if self.config else None,
            config_sha256=self.config.sha256 if self.config else None,
        )

    @property
    def files(self) -> tuple[SourceFile, ...]:
        """The files this state was read from (the ones ``--watch`` polls)."""
        if self.config is None or self.config.path == self.rules.path:
            return (self.rules,)
        return (self.config, self.rules)


STABLE_SETTLE = 0.05
"""Default seconds between the two reads of a file that a reload must see agree
(``smista serve --watch-settle``)."""

STABLE_TRIES = 5
"""Read pairs a reload attempts before giving up on a file still being written."""


def _read(path: str, settle: float | None = None) -> tuple[str, SourceFile]:
    """A file's text and identity; with ``settle``, only content two reads agree on.

    Reloads are stable: each file is read, read again ``settle`` seconds
    later (:data:`STABLE_SETTLE` unless the service was told otherwise), and
    used only when both reads give the same bytes. A file replaced atomically
    (written elsewhere, renamed into place) is stable at once; one written in
    place is used once its writer has paused for ``settle`` seconds. A file
    still changing after :data:`STABLE_TRIES` pairs fails the reload (the
    rules in service keep serving; the next change is tried again).
    """
    text, raw = read_source(path)
    if settle is not None:
        for _ in range(STABLE_TRIES):
            time.sleep(settle)
            again, raw_again = read_source(path)
            if raw_again == raw:
                break
            text, raw = again, raw_again
        else:
            raise ConfigError([("", "is still being written; not reloaded")], path)
    return text, SourceFile(path, hashlib.sha256(raw).hexdigest())


def file_sha256(path: str) -> str | None:
    """SHA-256 of a file's current bytes, or ``None`` when it cannot be read."""
    try:
        return hashlib.sha256(read_bounded(path, CONFIG_LIMIT)).hexdigest()
    except OSError:
        return None


def load_state(
    *,
    config_path: str | None,
    rules_path: str | None,
    endpoints: Sequence[Endpoint] = (),
    previous: ServiceState | None = None,
    settle: float = STABLE_SETTLE,
) -> ServiceState:
    """Read, validate and compile a complete state; raises :class:`ConfigError`.

    The rules come from ``rules_path``, else from the ``[classification]`` of
    ``config_path``, else from the shipped default pack. Pluggable endpoints
    build their runtimes from the config document (empty without one), given
    their runtime in ``previous`` (the state being replaced, if any) so that
    they may carry over what survives a reload (a cache, say). A reload
    (``previous`` given) reads only content two reads ``settle`` seconds
    apart agree on (see :func:`_read`).
    """
    stable = settle if previous is not None else None  # a reload: see _read
    document: dict[str, Any] = {}
    config_file: SourceFile | None = None
    classification: ClassificationConfig | None = None
    rules_file: SourceFile | None = None
    if config_path is not None:
        text, config_file = _read(config_path, stable)
        document = parse_document(text, config_path)
        if rules_path is None and "classification" in document:
            classification = validate_section(
                ClassificationConfig,
                document["classification"],
                "classification",
                config_path,
            )
            rules_file = config_file
    if rules_path is not None:
        text, rules_file = _read(rules_path, stable)
        classification = parse_config(text, rules_path)
    if classification is None or rules_file is None:
        shipped = str(shipped_rules_path())
        _, rules_file = _read(shipped)
        classification = default_config()
    classifier = Classifier(classification)
    source = config_path if config_file is not None else None
    before = previous.runtimes if previous is not None else {}
    runtimes = {
        ep.name: ep.build(document, source, classifier, before.get(ep.name)) for ep in endpoints
    }
    return ServiceState(
        classifier=classifier,
        rules=rules_file,
        config=config_file,
        loaded_at=datetime.now(UTC),
        generation=previous.generation + 1 if previous is not None else 1,
        runtimes=MappingProxyType(runtimes),
    )


class StateHolder:
    """The current :class:`ServiceState`; reloads build a new one and swap it in."""

    def __init__(
        self,
        loader: Callable[[ServiceState | None], ServiceState],
        on_swap: Callable[[ServiceState], None] | None = None,
    ) -> None:
        self._loader = loader
        self._on_swap = on_swap
        self._lock = threading.Lock()
        self.current: ServiceState = loader(None)
        if on_swap is not None:
            on_swap(self.current)

    def reload(self) -> ServiceState:
        """Load and validate anew, then swap; on error raise and keep the old state.

        ``on_swap`` (the endpoints' commit step) runs right after the swap.
        """
        with self._lock:
            new = self._loader(self.current)
            self.current = new
            if self._on_swap is not None:
                self._on_swap(new)
            return new


def reload_and_log(holder: StateHolder, trigger: str) -> bool:
    """Reload ``holder`` and log the outcome; ``True`` when the new rules serve."""
    old = holder.current
    try:
        new = holder.reload()
    except ConfigError as exc:
        log.error(
            "reload failed; keeping the rules in service",
            extra={
                "event": "reload_failed",
                "trigger": trigger,
                "file": exc.path,
                "errors": [{"loc": loc, "message": msg} for loc, msg in exc.errors],
                "generation": old.generation,
            },
        )
        return False
    except Exception as exc:  # a bug while building: still keep serving the old rules
        log.error(
            "reload failed; keeping the rules in service",
            extra={
                "event": "reload_failed",
                "trigger": trigger,
                "error": type(exc).__name__,
                "generation": old.generation,
            },
        )
        return False
    log.info(
        "rules reloaded",
        extra={
            "event": "reloaded",
            "trigger": trigger,
            "source": new.rules.path,
            "sha256": new.rules.sha256,
            "rule_count": len(new.classifier.config.rules),
            "generation": new.generation,
            "previous_sha256": old.rules.sha256,
        },
    )
    return True
