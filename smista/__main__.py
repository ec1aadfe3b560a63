"""``python -m smista``: the command-line interface."""

from __future__ import annotations

import sys

from smista.cli import main

sys.exit(main())
