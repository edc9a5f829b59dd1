"""Entry point of ``python -m cgdcore``."""
from .cli import run

run()
