"""What a sweep is: datasets × algorithms × ε grid × repetitions (× n), and the seed of every run.

Algorithm labels name a ``discover`` algorithm, optionally with options in brackets
(``priv-pc[subsample_ratio=1]``, keys separated by ``;``), or PC after a local mechanism
(``pc+krr-comb``). How a run reads its ε depends on the algorithm and the sweep's ``budget``:

- ``native`` (the papers' figures): the sparse-vector family (svt-pc, priv-pc, em-pc) takes ε
  as its per-round ε and is uncapped (``epsilon_kind = round``); every other private algorithm
  takes ε as its total budget (``total``); local mechanisms take it as the per-record ε (``local``).
- ``total`` (fixed-budget comparisons, e.g. CURATE's ε_Total ∈ {0.1, 5, 10}): ε is a hard cap for
  every algorithm; the sparse-vector family runs rounds of ``round_share``·ε until the cap, or, by
  default (``round_share`` None), rounds of the largest ε its filter admits C(d, 2) times within the cap.

Seeds: ``SeedSequence(seed).spawn(R)`` over the runs in canonical order (dataset, n, algorithm,
ε, rep); each run's integer seed is drawn from its child, recorded in the table, and passing it to
``discover`` alone reproduces that row. Non-private algorithms run once per (dataset, n).
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from cgdcore import UserError
from cgdcore.privacy.ledger import MAX_EPSILON

__all__ = ["AlgoSpec", "RunConfig", "SweepSpec", "parse_algo", "split_labels", "parse_epsilon_grid", "BUDGET_MODES"]

BUDGET_MODES = ("native", "total")
#: option values accepted in ``algo[key=value]`` labels: every declared algorithm option (cgdcore.algorithms) plus
#: the run's CI test and the local-privacy options of ``pc+MECH``
_EXTRA_TYPES = {"ci_test": str, "debias": str, "calibration": str, "n_boot": int, "bins": int}
_LDP_OPTIONS = ("debias", "calibration", "n_boot", "bins")


@dataclass(frozen=True)
class AlgoSpec:
    """One algorithm of a sweep, parsed from its label."""

    label: str
    algo: str
    options: tuple[tuple[str, Any], ...] = ()
    mechanism: str | None = None

    @property
    def private(self) -> bool:
        from cgdcore.algorithms import REGISTRY

        return self.mechanism is not None or REGISTRY[self.algo].private

    def kind(self, budget: str) -> str:
        """How this algorithm reads the sweep's ε: round, total, local or none."""
        from cgdcore.algorithms import REGISTRY

        if not self.private:
            return "none"
        if self.mechanism is not None:
            return "local"
        if REGISTRY[self.algo].budget == "round" and budget == "native":
            return "round"
        return "total"


def split_labels(text: str) -> list[str]:
    """Split a comma-separated list of labels, keeping commas inside brackets."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return [s for s in out if s]


def parse_epsilon_grid(text: str) -> tuple[float, ...]:
    """``0.1,1,10`` or ``logspace:START:STOP:COUNT`` (log10 exponents, as numpy.logspace)."""
    text = str(text).strip()
    if text.startswith("logspace:"):
        parts = text.split(":")[1:]
        try:
            a, b, k = float(parts[0]), float(parts[1]), int(parts[2])
        except (ValueError, IndexError):
            raise UserError(f"ε grid {text!r}: write logspace:START:STOP:COUNT, e.g. logspace:-2:1.5:21.") from None
        if not 1 <= k <= 1000 or not (math.isfinite(a) and math.isfinite(b)):
            raise UserError("ε grid logspace: finite exponents and a count from 1 to 1000, e.g. logspace:-2:1.5:21.")
        return tuple(float(e) for e in np.logspace(a, b, k))
    try:
        return tuple(float(e) for e in text.split(",") if e.strip())
    except ValueError:
        raise UserError(f"ε grid {text!r}: give numbers separated by commas (0.1,1,10) or "
                        "logspace:-2:1.5:21.") from None


def parse_algo(label: str) -> AlgoSpec:
    """``priv-pc``, ``priv-pc[subsample_ratio=1]``, ``pc+krr-comb`` or ``pc+geo-comb[debias=invert]``."""
    from cgdcore.algorithms import PARAMS
    from cgdcore.algorithms import REGISTRY as ALGORITHMS
    from cgdcore.local.privatize import MECHANISMS

    text = str(label).strip()
    opts: dict[str, Any] = {}
    base = text
    if "[" in text:
        if not text.endswith("]") or text.count("[") != 1:
            raise UserError(f"algorithm {text!r}: write options as ALGO[key=value;key=value].")
        base, inner = text[:-1].split("[", 1)
        for part in filter(None, (p.strip() for p in inner.replace(",", ";").split(";"))):
            if "=" not in part:
                raise UserError(f"algorithm {text!r}: option {part!r} must look like key=value.")
            k, v = (s.strip() for s in part.split("=", 1))
            if k in PARAMS:
                try:
                    opts[k] = PARAMS[k].parse(v)
                except UserError as e:
                    raise UserError(f"algorithm {text!r}: {e}") from None
                continue
            kind = _EXTRA_TYPES.get(k)
            if kind is None:
                raise UserError(f"algorithm {text!r}: unknown option {k!r}; known: "
                                f"{', '.join(sorted((*PARAMS, *_EXTRA_TYPES)))}.")
            try:
                opts[k] = kind(v)
            except ValueError:
                raise UserError(f"algorithm {text!r}: option {k} needs a {kind.__name__}, got {v!r}.") from None
    mechanism = None
    if "+" in base:
        algo, mechanism = (s.strip() for s in base.split("+", 1))
        if algo != "pc" or mechanism not in MECHANISMS:
            raise UserError(f"algorithm {text!r}: local privacy is written pc+MECH with MECH one of "
                            f"{', '.join(MECHANISMS)}.")
    else:
        algo = base.strip()
        if algo not in ALGORITHMS:
            raise UserError(f"unknown algorithm {algo!r} in the sweep; available: {', '.join(ALGORITHMS)} "
                            f"and pc+MECH for MECH in {', '.join(MECHANISMS)}.")
    if mechanism is None and any(k in opts for k in _LDP_OPTIONS if k != "bins"):
        raise UserError(f"algorithm {text!r}: debias/calibration/n_boot apply to pc+MECH only.")
    return AlgoSpec(text, algo, tuple(sorted(opts.items())), mechanism)


@dataclass(frozen=True)
class RunConfig:
    """One run of a sweep: everything ``run_one`` needs, and the row's identity."""

    dataset: str
    n: int
    data_seed: int
    algorithm: str
    epsilon: float          # requested ε (NaN for non-private algorithms)
    epsilon_kind: str       # round, total, local or none
    rep: int
    seed: int
    variant: str = "stable"
    alpha: float | None = None
    max_order: int | None = None
    round_share: float | None = None
    delta: float | None = None  # the private runs' δ (None: each algorithm's default)

    @property
    def key(self) -> tuple:
        """Identity of the row in a results table (resume matches on it)."""
        eps = "nan" if not math.isfinite(self.epsilon) else repr(float(self.epsilon))
        return (self.dataset, int(self.n), self.algorithm, eps, self.epsilon_kind, int(self.rep), int(self.seed))


@dataclass(frozen=True)
class SweepSpec:
    """A sweep's full parameters; equal specs give equal tables (``seconds`` aside)."""

    datasets: tuple[str, ...]
    algorithms: tuple[str, ...]
    epsilons: tuple[float, ...]
    n: tuple[int, ...] = (10_000,)
    reps: int = 5
    seed: int = 0
    data_seed: int = 0
    budget: str = "native"
    variant: str = "stable"
    alpha: float | None = None
    max_order: int | None = None
    round_share: float | None = None
    delta: float | None = None
    name: str = field(default="", compare=False)

    def __post_init__(self):
        object.__setattr__(self, "datasets", tuple(str(d).strip() for d in self.datasets))
        object.__setattr__(self, "algorithms", tuple(str(a).strip() for a in self.algorithms))
        object.__setattr__(self, "epsilons", tuple(float(e) for e in self.epsilons))
        object.__setattr__(self, "n", tuple(int(v) for v in (self.n if isinstance(self.n, (tuple, list)) else
                                                               (self.n,))))

    def validate(self) -> list[AlgoSpec]:
        """Check every parameter; returns the parsed algorithms. Raises UserError with the fix."""
        from cgdcore.data.registry import _ALL_NAMES, parse_spec

        if not self.datasets:
            raise UserError("a sweep needs at least one dataset (--dataset sachs or --dataset asia,child).")
        for ds in self.datasets:
            if parse_spec(ds)[0] not in _ALL_NAMES:
                raise UserError(f"unknown dataset {ds!r} in the sweep; choose from: {', '.join(_ALL_NAMES)}.")
        if not self.algorithms:
            raise UserError("a sweep needs at least one algorithm (--algos priv-pc,svt-pc).")
        algos = [parse_algo(a) for a in self.algorithms]
        if len({a.label for a in algos}) != len(algos):
            raise UserError("an algorithm appears twice in the sweep; list each once.")
        if any(a.private for a in algos) and not self.epsilons:
            raise UserError("private algorithms need an ε grid (--epsilons 0.1,1,10).")
        for e in self.epsilons:
            if not (math.isfinite(e) and 0 < e <= MAX_EPSILON):
                raise UserError(f"every ε must be a positive finite number ≤ 1e6; got {e!r}.")
        if len(set(self.epsilons)) != len(self.epsilons):
            raise UserError("the ε grid lists a value twice; list each once.")
        for v in self.n:
            if v < 5:
                raise UserError(f"n must be at least 5 rows; got {v}.")
        if isinstance(self.reps, bool) or int(self.reps) != self.reps or not 1 <= self.reps <= 1000:
            raise UserError(f"reps must be a whole number from 1 to 1000; got {self.reps!r}.")
        if self.budget not in BUDGET_MODES:
            raise UserError(f"budget must be one of {', '.join(BUDGET_MODES)}; got {self.budget!r}.")
        if self.round_share is not None and not (0 < self.round_share <= 1):
            raise UserError(f"round_share must be in (0, 1]; got {self.round_share!r}.")
        if self.variant not in ("stable", "original"):
            raise UserError(f"variant must be 'stable' or 'original'; got {self.variant!r}.")
        if self.alpha is not None and not (0 < float(self.alpha) < 1):
            raise UserError(f"alpha must be strictly between 0 and 1; got {self.alpha!r}.")
        if self.max_order is not None and int(self.max_order) < 0:
            raise UserError(f"max_order must be ≥ 0; got {self.max_order!r}.")
        if self.delta is not None and not (0 < float(self.delta) < 1):
            raise UserError(f"delta must be strictly between 0 and 1; got {self.delta!r} (1e-6 is usual).")
        return algos

    def runs(self) -> list[RunConfig]:
        """Every run in canonical order, each with its own seed from ``SeedSequence.spawn``."""
        algos = self.validate()
        plan: list[tuple] = []
        for ds in self.datasets:
            for n in self.n:
                for a in algos:
                    kind = a.kind(self.budget)
                    if kind == "none":
                        plan.append((ds, n, a.label, float("nan"), kind, 0))
                        continue
                    for eps in self.epsilons:
                        for rep in range(int(self.reps)):
                            plan.append((ds, n, a.label, eps, kind, rep))
        children = np.random.SeedSequence(int(self.seed)).spawn(len(plan))
        out = []
        for (ds, n, label, eps, kind, rep), child in zip(plan, children):
            seed = int(child.generate_state(1, np.uint64)[0] >> np.uint64(1))  # 63-bit, fits any int64 column
            out.append(RunConfig(ds, n, self.data_seed, label, eps, kind, rep, seed, self.variant, self.alpha,
                                 self.max_order, self.round_share, self.delta))
        return out

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("name")
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    @property
    def key(self) -> str:
        """A short content hash of the parameters (seeds included): the cache and resume key."""
        blob = json.dumps(self.to_dict(), sort_keys=True, default=repr).encode()
        return hashlib.blake2b(blob, digest_size=8).hexdigest()
