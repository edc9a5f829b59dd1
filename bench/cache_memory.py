"""Memory held by the app's caches: load many distinct large samples through the pages' own loader and print the
process's RSS against the cache budget.

Usage: python bench/cache_memory.py [--loads 20] [--n 500000] [--dataset alarm] [--cache-mb 256]
Each load is a distinct (dataset, n, seed) sample, as different users asking for different seeds would make, through
``ui.common.load_dataset`` (outside a Streamlit server: the cache is the same object). Prints RSS after every few
loads and the bytes the samples themselves hold. Run it on another checkout (``--root``) to compare versions: the
loader's signature is the same on main.
"""
import argparse
import gc
import os
import sys
import time
from pathlib import Path

import psutil


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loads", type=int, default=20)
    ap.add_argument("--n", type=int, default=500_000)
    ap.add_argument("--dataset", default="alarm")
    ap.add_argument("--cache-mb", type=float, default=256)
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="checkout whose ui/ to use")
    args = ap.parse_args()
    os.environ["CGD_CACHE_MB"] = f"{args.cache_mb:g}"
    sys.path.insert(0, args.root)
    import logging

    logging.getLogger("streamlit").setLevel(logging.ERROR)
    from ui import common

    me, mb = psutil.Process(), 2**20
    gc.collect()
    base = me.memory_info().rss
    one = None
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"{args.loads} distinct samples of {args.dataset}, n = {args.n:,}, through {args.root}/ui/common.py; "
          f"CGD_CACHE_MB = {args.cache_mb:g}")
    print(f"{'loads':>5} {'RSS MB':>7} {'above start MB':>15}")
    for k in range(args.loads):
        ds = common.load_dataset(args.dataset, args.n, k)
        one = ds.data.nbytes
        del ds
        if (k + 1) % 4 == 0 or k + 1 == args.loads:
            gc.collect()
            rss = me.memory_info().rss
            print(f"{k + 1:>5} {rss / mb:7.0f} {(rss - base) / mb:15.0f}")
    rss = me.memory_info().rss
    print(f"one sample holds {one / mb:.1f} MB; all {args.loads} would hold {args.loads * one / mb:.0f} MB")
    print(f"RSS above start at the end: {(rss - base) / mb:.0f} MB (budget {args.cache_mb:g} MB); "
          f"CPU {time.process_time() - c0:.1f} s, wall {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
