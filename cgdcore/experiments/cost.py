"""How much work a sweep asks for, known before it starts: the sum over its runs of each run's estimate
(:func:`cgdcore.workload.work_units`), counting what the runner's caches share.

A worker process keeps every deterministic statistic of a dataset it has loaded (``suffstats_for``,
``shared_ci_test``; see :mod:`cgdcore.experiments.runner`), so among the central PC-family runs of one algorithm
label on one (dataset, n) only the first in each worker pays the row-passes; the others draw their noise over cached
statistics and pay :data:`WARM_TEST_UNITS` per test slot (measured: Priv-PC on Sachs, n = 100,000, per-round
ε ∈ {0.1, 1, 10}: the first run 3.5 s, the next eight 0.04–0.37 s for about 500 tests each). Runs that see new data
every time (a local mechanism randomises the records with the run's seed) or fit a model per run (the score-based
family, encrypted runs) pay their full estimate each time.
"""
from __future__ import annotations

import math
from typing import Iterable

from cgdcore.experiments.runner import discover_kwargs
from cgdcore.experiments.spec import RunConfig, SweepSpec, parse_algo

__all__ = ["WARM_TEST_UNITS", "SHARING_ALGORITHMS", "dataset_shape", "run_units", "sweep_units"]

#: row-passes' worth of one test slot of a run whose statistics are cached (0.05 s / 500 tests ≈ 1e-4 s ≈ 1.5e4
#: row-passes at cgdcore.workload.UNITS_PER_SECOND; doubled for a busy machine)
WARM_TEST_UNITS = 3e4
#: algorithms whose deterministic statistics the runner's caches share between runs on the same data
SHARING_ALGORITHMS = frozenset({"pc", "gauss-pc", "laplace-pc", "svt-pc", "priv-pc", "em-pc", "curate"})


def dataset_shape(spec: str, n: int) -> tuple[int, int]:
    """(rows, variables) a sweep's run on dataset ``spec`` with ``n`` requested rows works on, from the registry's
    declarations (nothing is loaded or sampled)."""
    from cgdcore.data import list_datasets
    from cgdcore.data.registry import parse_spec

    base, opts = parse_spec(spec)
    info = {i.name: i for i in list_datasets()}[base]
    d = int(opts.get("d", info.n_vars)) if base == "synthetic" else int(info.n_vars)
    return (min(int(n), int(info.n_rows)) if info.n_rows else int(n)), d


def run_units(cfg: RunConfig, *, warm: bool = False) -> float:
    """Estimated row-passes of one run; ``warm``: its statistics are already cached in its worker."""
    from cgdcore.workload import work_units

    n, d = dataset_shape(cfg.dataset, cfg.n)
    kw = discover_kwargs(cfg)
    if warm:
        orders = 1 + min(3 if cfg.max_order is None else cfg.max_order, 3)
        return math.comb(max(d, 2), 2) * orders * WARM_TEST_UNITS * (4.0 if kw["algo"] == "em-pc" else 1.0)
    return work_units(kw["algo"], n, d, max_order=cfg.max_order, options=kw.get("options"), ldp=kw.get("ldp"))


def sweep_units(spec: SweepSpec, *, jobs: int = 1, done: Iterable[tuple] = ()) -> float:
    """Estimated row-passes of the runs of ``spec`` not in ``done`` (row keys, :attr:`RunConfig.key`) with ``jobs``
    worker processes: every worker may pay the first, cold run of each (label, dataset, n) of the sharing family."""
    import os

    workers = (os.cpu_count() or 1) if jobs == -1 else max(1, int(jobs))
    done = set(done)
    cold_left: dict[tuple, int] = {}
    memo: dict[tuple, float] = {}  # a run's estimate depends on its label, data and kind of ε, not on ε or seed
    total = 0.0
    for cfg in spec.runs():
        if cfg.key in done:
            continue
        group = (cfg.algorithm, cfg.dataset, cfg.n)
        a = parse_algo(cfg.algorithm)
        warm = False
        if a.mechanism is None and a.algo in SHARING_ALGORITHMS:
            left = cold_left.setdefault(group, workers)
            warm = left == 0
            cold_left[group] = max(0, left - 1)
        k = (*group, cfg.epsilon_kind, warm)
        if k not in memo:
            memo[k] = run_units(cfg, warm=warm)
        total += memo[k]
    return total
