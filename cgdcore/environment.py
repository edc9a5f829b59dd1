"""Numbers the server operator sets through the environment (CGD_MAX_WORK, CGD_CACHE_MB, ...)."""
from __future__ import annotations

import os

__all__ = ["env_number"]


def env_number(name: str, default: float) -> float:
    """The environment variable ``name`` as a number, or ``default`` when it is unset, empty or not a number."""
    raw = os.environ.get(name, "").strip()
    try:
        return float(raw) if raw else float(default)
    except ValueError:
        return float(default)
