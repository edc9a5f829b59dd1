"""Privacy-utility sweeps: datasets × algorithms × ε × repetitions, run in parallel or on Dask.

Usage::

    from cgdcore.experiments import SweepSpec, run_sweep, summarise
    spec = SweepSpec(datasets=("sachs",), algorithms=("priv-pc", "svt-pc", "em-pc"),
                     epsilons=tuple(np.logspace(-2, 1.5, 21)), n=(100_000,), reps=5)
    table = run_sweep(spec, jobs=2, out="results.csv")   # tidy DataFrame, one row per run
    curves = summarise(table, x="epsilon_total")         # mean ± sd per algorithm and ε

Presets reproducing the papers' figures and tables are in :mod:`cgdcore.experiments.presets`.
"""
from cgdcore.experiments.results import (COLUMNS, CONTRACT_COLUMNS, X_AXES, X_AXIS_NAMES, read_table, summarise,
                                        write_table)
from cgdcore.experiments.runner import BACKENDS, command_for, config_of, discover_kwargs, run_one, run_sweep
from cgdcore.experiments.spec import AlgoSpec, RunConfig, SweepSpec, parse_algo, parse_epsilon_grid, split_labels

__all__ = ["SweepSpec", "RunConfig", "AlgoSpec", "parse_algo", "parse_epsilon_grid", "split_labels", "run_sweep", "run_one",
           "discover_kwargs", "command_for", "config_of", "BACKENDS", "COLUMNS", "CONTRACT_COLUMNS", "X_AXES", "X_AXIS_NAMES",
           "read_table", "write_table", "summarise"]
