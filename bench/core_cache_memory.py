"""Memory held by the core's caches (shared statistics: stratum codes, tables, CI results) over many varied runs.

Usage: python bench/core_cache_memory.py [--runs 36] [--core-cache-mb 128] [--cache-mb 64] [--root CHECKOUT]
Runs ``cgdcore.discover.discover`` in this process on a rotation of networks, sizes, seeds and algorithms (every
dataset distinct, as different users make them) and prints after every few runs the process's RSS and the bytes the
shared statistics hold (their data copies, stratum codes and tables as their caches count them, plus 512 bytes per
cached CI result or memoised value), against CGD_CORE_CACHE_MB. The sampled data's own cache is held to
CGD_CACHE_MB. ``--root`` runs another checkout's cgdcore (e.g. main, to compare versions).
"""
import argparse
import gc
import os
import sys
import time
from pathlib import Path

import psutil

NETWORKS = ("alarm", "insurance", "child", "sachs", "win95pts", "hepar2")
ALGOS = ("pc", "priv-pc", "svt-pc", "curate")


def held_by_shared_statistics() -> int:
    """Bytes of every shared SuffStats, read from the caches' own counters (the same on both versions)."""
    from cgdcore.citests import contingency

    total = 0
    for st, _ in list(contingency._SHARED._d.values()):
        arrays = {id(a): a.nbytes for a in (st._cols, st._values, getattr(st, "_rows", None), st._corr)
                  if a is not None}
        results = sum(len(t._cache) + len(t._memo) for t in list(st.shared_tests.values()))
        total += sum(arrays.values()) + st._strata.nbytes + st._tables.nbytes + 512 * results
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=36)
    ap.add_argument("--core-cache-mb", type=float, default=128)
    ap.add_argument("--cache-mb", type=float, default=64)
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="checkout whose cgdcore to use")
    args = ap.parse_args()
    os.environ["CGD_CORE_CACHE_MB"] = f"{args.core_cache_mb:g}"
    os.environ["CGD_CACHE_MB"] = f"{args.cache_mb:g}"
    sys.path.insert(0, args.root)
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover

    me, mb = psutil.Process(), 2**20
    base = me.memory_info().rss
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"{args.runs} varied runs through {args.root}/cgdcore; CGD_CORE_CACHE_MB = {args.core_cache_mb:g}, "
          f"CGD_CACHE_MB = {args.cache_mb:g}")
    print(f"{'runs':>5} {'RSS MB':>7} {'above start MB':>15} {'shared statistics MB':>21}")
    peak_held = 0
    for k in range(args.runs):
        net = NETWORKS[k % len(NETWORKS)]
        n = (20_000, 50_000, 100_000)[(k // len(NETWORKS)) % 3]
        algo = ALGOS[k % len(ALGOS)]
        ds = load_dataset(net, n=n, seed=k)
        eps = {} if algo == "pc" else {"epsilon": 2.0, "seed": k}
        discover(ds, algo=algo, max_order=3, **eps)
        del ds
        peak_held = max(peak_held, held_by_shared_statistics())
        if (k + 1) % 6 == 0 or k + 1 == args.runs:
            gc.collect()
            rss = me.memory_info().rss
            print(f"{k + 1:>5} {rss / mb:7.0f} {(rss - base) / mb:15.0f} {held_by_shared_statistics() / mb:21.1f}",
                  flush=True)
    print(f"shared statistics after a run, at most: {peak_held / mb:.1f} MB (budget {args.core_cache_mb:g} MB as "
          f"each run starts); CPU {time.process_time() - c0:.1f} s, wall {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
