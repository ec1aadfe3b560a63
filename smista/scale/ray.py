"""Ray Data integration: classify a ``ray.data.Dataset`` with rules loaded once per worker.

I/O edge (imports ray lazily; needs the ``ray`` extra). :class:`SmistaClassify`
is a callable class for ``Dataset.map_batches``: Ray builds one instance per
actor, so the rules are read and compiled once per worker, then every batch
(pandas, pyarrow or numpy format) gets the five output columns of
:mod:`smista.scale.frames` (and its two turn columns when the batch has a ``messages``
column of whole turns). Pass the rules as a path (readable on every worker), as a
:class:`~smista.ClassificationConfig` / :class:`~smista.Classifier` (pickled
to the workers, so no shared filesystem is needed), or not at all (the
shipped rules)::

    ds.map_batches(
        SmistaClassify,
        fn_constructor_kwargs={"rules": "rules.toml"},
        batch_format="pandas",
        **actor_pool(4),  # compute= on Ray >= 2.51, concurrency= before
    )

:func:`actor_pool` picks the argument the installed Ray wants: Ray 2.51
deprecated ``concurrency=`` for ``compute=ActorPoolStrategy(...)``, while
older Ray (back to the 2.30 the extra allows) warns about ``compute=``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from smista.core.classifier import Classifier
from smista.core.rules import ClassificationConfig
from smista.scale.frames import classify_columns, classify_frame, classify_table

if TYPE_CHECKING:
    import ray.data

__all__ = ["SmistaClassify", "actor_pool", "classify_dataset"]

_COMPUTE_SINCE = (2, 51)  # Ray deprecated map_batches(concurrency=) for compute= here


def _ray_version() -> tuple[int, int]:
    """(major, minor) of the installed Ray (``"2.51.0rc1"`` -> ``(2, 51)``)."""
    import ray

    major, minor = [*ray.__version__.split("."), "0"][:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


def actor_pool(actors: int | tuple[int, int]) -> dict[str, Any]:
    """``map_batches`` keyword arguments for a pool of ``actors`` (or ``(min, max)``).

    ``{"compute": ActorPoolStrategy(...)}`` on Ray >= 2.51 and
    ``{"concurrency": actors}`` before, so neither version warns. Each actor
    holds one CPU unless you pass ``num_cpus``; leave at least one CPU free for
    the tasks that read the data, or they wait forever.
    """
    if isinstance(actors, int):
        if actors < 1:
            raise ValueError(f"actors must be at least 1, got {actors}")
    elif not 1 <= actors[0] <= actors[1]:
        raise ValueError(f"actors must be (min, max) with 1 <= min <= max, got {actors}")
    if _ray_version() < _COMPUTE_SINCE:
        return {"concurrency": actors}
    from ray.data import ActorPoolStrategy

    if isinstance(actors, int):
        return {"compute": ActorPoolStrategy(size=actors)}
    return {"compute": ActorPoolStrategy(min_size=actors[0], max_size=actors[1])}


class SmistaClassify:
    """Adds ``intent, source, reason, matched_rule, confidence`` to each batch."""

    def __init__(
        self,
        rules: str | Path | ClassificationConfig | Classifier | None = None,
        *,
        text: str = "text",
        command: str | None = "command",
        contexts: str | None = "contexts",
        messages: str | None = "messages",
    ) -> None:
        from smista.scale.frames import resolve_classifier

        if isinstance(rules, (str, Path)):
            from smista.config.load import load_config

            rules = load_config(rules)
        self.classifier = resolve_classifier(rules)
        self.text = text
        self.command = command
        self.contexts = contexts
        self.messages = messages

    def __call__(self, batch: Any) -> Any:
        """Classify one batch; returns the same format it was given."""
        if isinstance(batch, dict):  # batch_format="numpy": column name -> array
            import numpy as np

            def column(name: str | None) -> list[Any] | None:
                return list(batch[name]) if name is not None and name in batch else None

            result = classify_columns(
                column(self.text),
                column(self.command),
                column(self.contexts),
                self.classifier,
                column(self.messages),
            )
            out = dict(batch)
            for name, values in result.items():
                out[name] = np.array(values, dtype=object)
            return out
        classify = (
            classify_table if type(batch).__module__.startswith("pyarrow") else classify_frame
        )
        return classify(
            batch,
            self.classifier,
            text=self.text,
            command=self.command,
            contexts=self.contexts,
            messages=self.messages,
        )


def classify_dataset(
    dataset: ray.data.Dataset,
    rules: str | Path | ClassificationConfig | Classifier | None = None,
    *,
    concurrency: int | tuple[int, int] = 1,
    batch_size: int | None = 4096,
    text: str = "text",
    command: str | None = "command",
    contexts: str | None = "contexts",
    messages: str | None = "messages",
) -> ray.data.Dataset:
    """``dataset`` with the output columns, computed by ``concurrency`` actors.

    ``concurrency`` is the actor count (or ``(min, max)``), passed to Ray as
    :func:`actor_pool` says, so no Ray version warns about it.
    """
    return dataset.map_batches(
        SmistaClassify,
        fn_constructor_kwargs={
            "rules": rules,
            "text": text,
            "command": command,
            "contexts": contexts,
            "messages": messages,
        },
        batch_format="pandas",
        batch_size=batch_size,
        **actor_pool(concurrency),
    )
