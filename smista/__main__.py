"""``python -m smista``: the command-line interface."""

from __future__ import annotations

from smista.cli import run

if __name__ == "__main__":
    run()
