"""Running a sweep: one run → one row, in-process, on local cores (joblib) or on a Dask cluster.

Each worker process keeps the datasets it has loaded and, through ``suffstats_for`` and
``shared_ci_test``, every deterministic statistic (contingency tables, CI-test results,
EM-PC's flip distances): the first run on a dataset computes them, every later run in that
process only draws its own noise. Rows stream back as they finish, are appended to the
partial CSV at once (so an interrupted sweep resumes where it stopped) and are returned in
the canonical run order, so the table does not depend on scheduling.
"""
from __future__ import annotations

import math
import time
from collections import OrderedDict
from contextlib import closing
from pathlib import Path
from typing import Any, Callable, Iterable

from cgdcore import UserError
from cgdcore.cancel import StopFile, cancellable, checkpoint, installed
from cgdcore.experiments.results import (PartialWriter, code_version, partial_path, read_partial, row_key, to_frame,
                                         write_table)
from cgdcore.experiments.spec import RunConfig, SweepSpec, parse_algo

__all__ = ["run_one", "run_sweep", "discover_kwargs", "command_for", "config_of", "BACKENDS", "Progress"]

BACKENDS = ("loky", "dask")
_DATASETS: OrderedDict = OrderedDict()
_MAX_DATASETS = 4

#: progress(done, total, eta_seconds or None, row or None)
Progress = Callable[[int, int, "float | None", "dict | None"], None]


def _dataset(name: str, n: int, seed: int):
    """The dataset of a run, loaded once per process (a small LRU)."""
    from cgdcore.data import load_dataset

    key = (name, n, seed)
    ds = _DATASETS.get(key)
    if ds is None:
        ds = load_dataset(name, n=n, seed=seed)
        _DATASETS[key] = ds
        while len(_DATASETS) > _MAX_DATASETS:
            _DATASETS.popitem(last=False)
    else:
        _DATASETS.move_to_end(key)
    return ds


def discover_kwargs(cfg: RunConfig) -> dict[str, Any]:
    """The ``discover`` arguments of one run (what the CLI's ``discover`` would be given)."""
    spec = parse_algo(cfg.algorithm)
    opts = dict(spec.options)
    kw: dict[str, Any] = {"algo": spec.algo, "seed": cfg.seed, "variant": cfg.variant, "alpha": cfg.alpha,
                          "max_order": cfg.max_order, "ci_test": opts.pop("ci_test", None)}
    if spec.mechanism is not None:
        ldp = {"mechanism": spec.mechanism, "epsilon": cfg.epsilon}
        for k in ("debias", "calibration", "n_boot", "bins"):
            if k in opts:
                ldp[k] = opts.pop(k)
        kw["ldp"] = ldp
    elif cfg.epsilon_kind == "round":
        kw["round_epsilon"] = cfg.epsilon
    elif cfg.epsilon_kind == "total":
        kw["epsilon"] = cfg.epsilon
        from cgdcore.algorithms import REGISTRY

        if REGISTRY[spec.algo].budget == "round" and cfg.round_share is not None:
            kw["round_epsilon"] = cfg.epsilon * cfg.round_share
        if spec.algo == "fhe-pc":
            opts.setdefault("dp", "once")
    if cfg.epsilon_kind in ("round", "total"):  # a central private run: its δ (None: the algorithm's default)
        kw["delta"] = cfg.delta
    if spec.algo == "fhe-pc":
        opts.setdefault("mode", "aggregate")  # the encrypted statistic modes are too slow for sweeps
    kw["options"] = opts or None
    return kw


def config_of(row: dict[str, Any], spec: SweepSpec) -> RunConfig:
    """The RunConfig of a results row of ``spec`` (to re-run that row alone)."""
    return RunConfig(str(row["dataset"]), int(row["n"]), spec.data_seed, str(row["algorithm"]), float(row["epsilon"]),
                     str(row["epsilon_kind"]), int(row["rep"]), int(row["seed"]), spec.variant, spec.alpha,
                     spec.max_order, spec.round_share, spec.delta)


def command_for(cfg: RunConfig) -> str | None:
    """The ``cgdcore discover`` command that reproduces one row alone (None when an option of the row has no
    command-line flag)."""
    from cgdcore.cli import command_line

    kw = discover_kwargs(cfg)
    kw.setdefault("variant", cfg.variant)
    return command_line(cfg.dataset, cfg.n, kw, data_seed=cfg.data_seed)


def _nan() -> float:
    return float("nan")


def run_one(cfg: RunConfig, sweep_key: str = "") -> dict[str, Any]:
    """Run one configuration and return its row (a rejected configuration gives a row with ``error``)."""
    from cgdcore.discover import discover

    row: dict[str, Any] = {"dataset": cfg.dataset, "n": cfg.n, "algorithm": cfg.algorithm, "epsilon": cfg.epsilon,
                           "epsilon_kind": cfg.epsilon_kind, "rep": cfg.rep, "seed": cfg.seed, "sweep": sweep_key,
                           "version": code_version(),
                           "stopped_early": False}
    t0 = time.perf_counter()
    try:
        ds = _dataset(cfg.dataset, cfg.n, cfg.data_seed)
        disc = discover(ds, **discover_kwargs(cfg))
    except UserError as exc:
        row.update({"error": str(exc), "seconds": time.perf_counter() - t0})
        return row
    m = disc.metrics or {}
    priv = disc.privacy
    acc = priv.accounting if priv else {}
    row.update({
        "epsilon_total": priv.epsilon if priv and priv.epsilon is not None else _nan(),
        "delta_total": priv.delta if priv and priv.delta is not None else _nan(),
        "skeleton_f1": m.get("skeleton_f1", _nan()), "arc_f1": m.get("arc_f1", _nan()),
        "shd": m.get("shd", _nan()), "n_ci_tests": disc.result.n_ci_tests, "seconds": disc.seconds,
        "rule": priv.rule if priv else None, "guarantee": priv.guarantee if priv else _nan(),
        "eps_used": priv.used_epsilon if priv and priv.accounted else _nan(),
        "skeleton_precision": m.get("skeleton_precision", _nan()),
        "skeleton_recall": m.get("skeleton_recall", _nan()), "stopped_early": bool(disc.result.stopped_early),
        "error": None,
    })
    for rule in ("basic", "advanced", "pld", "gaussian", "parallel"):
        row[f"eps_{rule}"] = acc[rule]["epsilon"] if rule in acc else _nan()
    paper = [v for k, v in acc.items() if k.startswith("as in paper")]
    row["eps_paper"] = paper[0]["epsilon"] if paper else _nan()
    return row


def _keep_worker_caches() -> None:
    """loky restarts a worker whose memory grew by 300 MB since its first task, taking it for a
    leak; here that growth is the (bounded) statistics cache the sweep exists to reuse, so a
    sweep's workers raise that limit to 8 GB. Other executors are unaffected."""
    import sys

    pe = sys.modules.get("joblib.externals.loky.process_executor")
    if pe is not None and getattr(pe, "_MAX_MEMORY_LEAK_SIZE", 0) < 8 * 2**30:
        pe._MAX_MEMORY_LEAK_SIZE = 8 * 2**30


def _run_chunk(cfgs: list[RunConfig], sweep_key: str, stop_path: str | None = None) -> list[dict[str, Any]]:
    _keep_worker_caches()
    if stop_path is None:
        return [run_one(c, sweep_key) for c in cfgs]
    with cancellable(StopFile(stop_path).check):
        return [run_one(c, sweep_key) for c in cfgs]


def _chunks(todo: list[RunConfig], jobs: int) -> list[list[RunConfig]]:
    """Small same-dataset chunks: few enough to keep task overhead low, enough to balance load
    and report progress often."""
    size = max(1, min(8, math.ceil(len(todo) / max(1, 8 * jobs))))
    out: list[list[RunConfig]] = []
    for c in todo:
        if out and len(out[-1]) < size and (out[-1][0].dataset, out[-1][0].n) == (c.dataset, c.n):
            out[-1].append(c)
        else:
            out.append([c])
    return out


#: workers a Dask run may ask for (the cluster's scheduler spreads them)
MAX_DASK_JOBS = 1024


def max_jobs(backend: str = "loky") -> int:
    """The most worker processes a sweep may start: 2 × this machine's cores locally (more only queue for the
    same cores and each holds its own copy of the data), :data:`MAX_DASK_JOBS` on a Dask cluster."""
    import os

    return MAX_DASK_JOBS if backend == "dask" else 2 * (os.cpu_count() or 1)


def run_sweep(spec: SweepSpec, *, jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
              out: str | Path | None = None, resume: bool = True, progress: Progress | None = None,
              done_rows: Iterable[dict[str, Any]] = (), on_row: Callable[[dict], None] | None = None):
    """Run every configuration of ``spec`` not already done and return the table (DataFrame).

    ``jobs``: worker processes (1 = in this process, sharing its caches; -1 = all cores).
    ``backend``: ``loky`` (local processes) or ``dask`` (joblib's Dask backend on the cluster at
    ``scheduler``, e.g. ``tcp://10.0.0.5:8786``). ``out``: CSV or Parquet file; rows are appended
    to the CSV (or NAME.partial.csv) as they finish, and with ``resume`` an existing partial file
    of the same sweep is continued. ``done_rows``: rows already computed (the app's own store).
    ``progress(done, total, eta, row)`` after every row; ``on_row(row)`` for each new row.
    """
    if backend not in BACKENDS:
        raise UserError(f"backend must be one of {', '.join(BACKENDS)}; got {backend!r}.")
    if backend == "dask" and not scheduler:
        raise UserError("the dask backend needs the scheduler's address: --scheduler tcp://HOST:8786.")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0 or jobs < -1:
        raise UserError(f"jobs must be a positive whole number or -1 (all cores); got {jobs!r}.")
    top = max_jobs(backend)
    if jobs > top:
        raise UserError(f"{jobs} jobs is more than this {'cluster run' if backend == 'dask' else 'machine'} can use: "
                        f"at most {top} ({'' if backend == 'dask' else '2 × its cores; '}-1 uses every core).")
    configs = spec.runs()
    key = spec.key
    order = [c.key for c in configs]
    wanted = set(order)
    rows: dict[tuple, dict] = {}
    for r in done_rows:
        k = row_key(r)
        if k in wanted:
            rows[k] = dict(r)
    writer = None
    if out is not None:
        ppath = partial_path(out)
        if not ppath.parent.exists():
            raise UserError(f"cannot write {out}: the folder {ppath.parent} does not exist.")
        if resume:
            for r in read_partial(ppath, key):
                if row_key(r) in wanted:
                    rows.setdefault(row_key(r), r)
        writer = PartialWriter(ppath, fresh=not resume)
    todo = [c for c in configs if c.key not in rows]
    total, start_done = len(configs), len(rows)
    t0 = time.perf_counter()
    if progress:
        progress(start_done, total, None if todo else 0.0, None)

    def record(row: dict[str, Any]) -> None:
        rows[row_key(row)] = row
        if writer is not None:
            writer.write(row)
        if on_row is not None:
            on_row(row)
        if progress:
            done = len(rows)
            new = done - start_done
            eta = (time.perf_counter() - t0) / new * (total - done) if new else None
            progress(done, total, eta, row)

    try:
        if todo:
            if jobs == 1 and backend == "loky":
                for c in todo:
                    checkpoint()
                    record(run_one(c, key))
            elif installed() and backend == "loky":
                with closing(_parallel_cancellable(todo, key, jobs)) as chunks:
                    for chunk_rows in chunks:
                        for row in chunk_rows:
                            record(row)
            else:
                for chunk_rows in _parallel(todo, key, jobs, backend, scheduler):
                    for row in chunk_rows:
                        record(row)
    finally:
        if writer is not None:
            writer.close()
    df = to_frame(rows.values(), order)
    if out is not None:
        write_table(df, out)
        ppath = partial_path(out)
        if ppath != Path(out) and ppath.exists():
            ppath.unlink()
    return df


def _parallel_cancellable(todo: list[RunConfig], key: str, jobs: int):
    """:func:`_parallel` on local processes for a caller with a cancel check installed (cgdcore.cancel): the pool is
    driven from a second thread while this one waits for rows, calling ``checkpoint()`` every 0.1 s. When the check
    raises, a :class:`~cgdcore.cancel.StopFile` asks the workers to stop at their own next checkpoint; joblib then
    ends the pool, and the check's exception is re-raised here."""
    import queue
    import threading

    stop = StopFile()
    box: queue.Queue = queue.Queue()

    def drive():
        try:
            for rows in _parallel(todo, key, jobs, "loky", None, stop_path=stop.path):
                box.put(("rows", rows))
        except BaseException as exc:  # handed to the waiting thread
            box.put(("error", exc))
        else:
            box.put(("end", None))

    worker = threading.Thread(target=drive, name="sweep-pool", daemon=True)
    worker.start()
    try:
        while True:
            try:
                kind, item = box.get(timeout=0.1)
            except queue.Empty:
                checkpoint()
                continue
            if kind == "rows":
                yield item
            elif kind == "error":
                raise item
            else:
                return
    except BaseException:
        stop.request()
        raise
    finally:
        worker.join(timeout=30)
        stop.close()


def _parallel(todo: list[RunConfig], key: str, jobs: int, backend: str, scheduler: str | None,
              stop_path: str | None = None):
    """Yield lists of rows as chunks finish (any order)."""
    from joblib import Parallel, delayed, parallel_config

    if backend == "dask":
        try:
            from distributed import Client
        except ImportError:  # pragma: no cover - distributed is in requirements.txt
            raise UserError("the dask backend needs the 'distributed' package (pip install distributed).") from None
        try:
            client = Client(scheduler, timeout=10, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise UserError(f"cannot reach the Dask scheduler at {scheduler} ({exc}); start one with "
                            "`dask scheduler` and workers with `dask worker ADDRESS`.") from None
        try:
            n_workers = max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))
            with parallel_config(backend="dask", client=client, n_jobs=-1 if jobs == 1 else jobs):
                yield from Parallel(return_as="generator_unordered")(
                    delayed(_run_chunk)(c, key) for c in _chunks(todo, n_workers))
        finally:
            client.close()
        return
    import os

    n = (os.cpu_count() or 1) if jobs == -1 else jobs
    with parallel_config(backend="loky", n_jobs=n):
        yield from Parallel(return_as="generator_unordered")(delayed(_run_chunk)(c, key, stop_path)
                                                              for c in _chunks(todo, n))
