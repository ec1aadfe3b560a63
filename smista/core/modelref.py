"""Model references: the ``provider/model`` strings routing and switching name.

Pure, standard library plus pydantic. A reference splits at its first ``/``:
``ollama/library/llama3`` is provider ``ollama``, model ``library/llama3``.
Both parts must be non-empty. Unlike the Rust original, the provider is not
checked against a fixed list: smista has no provider catalogue, so any name is
accepted and the host decides what it means.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, StrictStr

__all__ = ["ModelRef", "check_model_ref", "split_model_ref"]


def split_model_ref(ref: str) -> tuple[str, str]:
    """``"openai/gpt-5"`` -> ``("openai", "gpt-5")``; raises ``ValueError`` if malformed."""
    provider, sep, model = ref.partition("/")
    if not sep or not provider or not model:
        raise ValueError(f"invalid model reference {ref!r}: expected 'provider/model'")
    return provider, model


def check_model_ref(ref: str) -> str:
    """``ref`` unchanged if it is a valid ``provider/model`` reference."""
    split_model_ref(ref)
    return ref


ModelRef = Annotated[StrictStr, AfterValidator(check_model_ref)]
"""A pydantic field type for a ``provider/model`` string."""
