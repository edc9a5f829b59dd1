"""Entry point of ``python -m cgdcore``."""
import sys

from .cli import main

sys.exit(main())
