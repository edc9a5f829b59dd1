"""What an algorithm is, declared once: :class:`Param` (one option) and :class:`AlgorithmSpec` (one algorithm).

The declarations in :mod:`cgdcore.algorithms.registry` are read by everything that needs to know an algorithm:
``discover`` validates its options here, the CLI generates its flags from them, sweep labels parse their
``algo[key=value]`` options with them and re-run commands name their flags; the Discover page reads defaults and
ranges. Validation follows scikit-learn's declared parameter constraints: a type, a set of choices or an interval,
checked at the boundary with a message that says how to fix the value.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from cgdcore import UserError

__all__ = ["Param", "AlgorithmSpec"]

_KINDS = {"float": float, "int": int, "choice": str, "bool": bool}


@dataclass(frozen=True)
class Param:
    """One algorithm option: ``discover(..., options={key: value})``, ``--flag`` on the CLI, ``key=value`` in a sweep
    label. ``low``/``high`` bound a number (``low_open``/``high_open``: that end excluded); ``default`` None means the
    algorithm computes it (and says how in a note)."""

    key: str
    kind: str                       # float | int | choice | bool
    default: Any
    help: str
    flag: str | None = None         # CLI flag (None: Python and sweep labels only)
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    cite: str = ""

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"Param {self.key}: unknown kind {self.kind!r}")

    @property
    def type(self) -> Callable[[Any], Any]:
        return _KINDS[self.kind]

    def bounds_text(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        lo = None if self.low is None else f"{'>' if self.low_open else '≥'} {self.low:g}"
        if self.low is not None and self.high is not None and not self.low_open and not self.high_open:
            return f"between {self.low:g} and {self.high:g}"
        hi = None if self.high is None else f"{'<' if self.high_open else '≤'} {self.high:g}"
        parts = [p for p in (lo, hi) if p]
        return " and ".join(parts) if parts else f"a {'whole number' if self.kind == 'int' else 'number'}"

    def parse(self, value: Any, name: str | None = None) -> Any:
        """``value`` converted to this option's type and checked against its choices or interval."""
        name = name or self.key
        if self.kind == "choice":
            v = str(value)
            if v not in self.choices:
                raise UserError(f"{name} must be {self.bounds_text()}; got {value!r}.")
            return v
        if self.kind == "bool":
            if isinstance(value, str):
                if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise UserError(f"{name} must be true or false; got {value!r}.")
                return value.lower() in ("true", "1", "yes")
            return bool(value)
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise UserError(f"{name} must be {self.bounds_text()}; got {value!r}.") from None
        if self.kind == "int":
            if not math.isfinite(v) or v != int(v):
                raise UserError(f"{name} must be a whole number; got {value!r}.")
            v = int(v)
        elif not math.isfinite(v):
            raise UserError(f"{name} must be a finite number; got {value!r}.")
        low_bad = self.low is not None and (v <= self.low if self.low_open else v < self.low)
        high_bad = self.high is not None and (v >= self.high if self.high_open else v > self.high)
        if low_bad or high_bad:
            raise UserError(f"{name} must be {self.bounds_text()}; got {value!r}.")
        return v


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm: its family and budget kind, its paper defaults, the CI tests it may use and its options.

    ``budget``: "none" (not private), "total" (a total ε it plans itself), "round" (the sparse-vector family's
    per-round ε, optionally capped by a total) or "zcdp" (a total ε, composed as zCDP). ``ci_tests``: allowed tests
    (the first is the default; empty = the data's default). ``params``: keys of :data:`PARAMS` it accepts."""

    name: str
    title: str
    family: str                      # pc | private-pc | score | fhe
    budget: str                      # none | total | round | zcdp
    summary: str
    cite: str
    alpha: float
    delta: float | None
    ci_tests: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    notes: dict[str, str] = field(default_factory=dict)
    #: private PC family: "module:function" building the policy from the shared set-up
    #: (:class:`cgdcore.central.build.Setup`) — how an algorithm outside the built-in ones plugs in
    build: str | None = None

    @property
    def private(self) -> bool:
        return self.budget != "none"
