"""Speed of the BIF parser and the vectorised ancestral sampler.

Usage: python bench/sample.py
Prints the parse time of every shipped network, then sampling times (best of 3) for Alarm at
1,000,000 rows (target on a 2-core machine: <= 3 s) and for Child and Insurance at 100,000 rows.
"""
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from cgdcore.data.bif import read_bif, sample  # noqa: E402


def best_of(f, repeats=3):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    nets = {}
    print(f"{'network':<11} {'nodes':>5} {'arcs':>5} {'parse ms':>9}")
    for path in sorted((ROOT / "assets" / "networks").glob("*.bif.gz")):
        name = path.name.split(".")[0]
        secs = best_of(lambda: nets.__setitem__(name, read_bif(path)))
        bn = nets[name]
        print(f"{name:<11} {bn.d:>5} {bn.n_arcs:>5} {secs * 1e3:>9.1f}")
    print()
    print(f"{'network':<11} {'rows':>10} {'best of 3 s':>12} {'rows/s':>12}")
    for name, n in [("alarm", 1_000_000), ("child", 100_000), ("insurance", 100_000)]:
        bn = nets[name]
        secs = best_of(lambda: sample(bn, n, np.random.default_rng(0)))
        print(f"{name:<11} {n:>10,} {secs:>12.3f} {n / secs:>12,.0f}")


if __name__ == "__main__":
    main()
