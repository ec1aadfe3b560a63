"""The authoring edge: tools for people who write rule packs.

``check`` (``smista check``) and ``lints``, ``golden`` cases, ``evaluate`` and
``report`` (accuracy and its HTML report), ``testing`` (hypothesis strategies)
and ``pytest_plugin``. Reads files and imports the core and the config edge;
the core never imports this package. ``smista.testing``, ``smista.golden`` and
``smista.pytest_plugin`` are the public paths of these modules.
"""

from __future__ import annotations
