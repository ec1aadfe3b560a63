"""The config edge: reading rule packs and settings from files, and the rule cache.

``load`` parses rule files (``load_config``, ``parse_config``), ``settings``
and ``sections`` the full ``smista.toml``, ``schema`` its JSON Schema,
``defaults`` the shipped default pack, ``rulecache`` the compiled-rules cache
(``python -m smista.config.rulecache --write-default-pack`` regenerates
``_default_pack``), ``_files`` bounded file reads, ``_shipped`` where the
shipped packs live. Imports the core; the core never imports this package.

Nothing is re-exported here on purpose: ``rulecache`` and ``_files`` are the
pydantic-free cold path of the CLI, and importing this package must not load
the pydantic rule model. Top-level ``smista.load_config`` is the public name.
"""

from __future__ import annotations
