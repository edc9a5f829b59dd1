"""Exact discrete samplers: the numpy loops against the compiled loops (cgdcore/privacy/kernels.py).

Usage: python bench/samplers.py [--seconds 0.5]
Both make the same generator calls, so they draw the same integers; this prints CPU milliseconds per request and the
ratio, for the requests the algorithms make (a block of Laplace noise for the sparse-vector tests, one gradient's
Gaussian noise for a score run). Target: the compiled loops ≥ 5× faster on every row. Prints numbers only.
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from cgdcore.privacy import discrete, kernels  # noqa: E402

REQUESTS = [
    ("discrete Laplace, block of 256 (NoiseStream)", "discrete_laplace", (3, 2**20, 256)),
    ("discrete Laplace, one draw", "discrete_laplace", (3, 2**20, 1)),
    ("discrete Gaussian, 25 (a 5-node gradient)", "discrete_gaussian", (10**4, 25)),
    ("discrete Gaussian, 400 (a 20-node gradient)", "discrete_gaussian", (10**6, 400)),
    ("discrete Gaussian, 256 at σ² = 10^9", "discrete_gaussian", (10**9, 256)),
]


def per_request(fn, args, seconds: float) -> float:
    rng = np.random.default_rng(0)
    fn(rng, *args)
    n, t = 0, time.process_time()
    while time.process_time() - t < seconds:
        fn(rng, *args)
        n += 1
    return (time.process_time() - t) / n * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=0.5)
    args = ap.parse_args()
    print(f"{'request':<46} {'numpy ms':>9} {'compiled ms':>12} {'ratio':>6}")
    for label, name, req in REQUESTS:
        fn = getattr(discrete, name)
        times = []
        for loops in (None, kernels):
            discrete._compiled = (lambda loops=loops: loops)
            times.append(per_request(fn, req, args.seconds))
        print(f"{label:<46} {times[0]:9.3f} {times[1]:12.3f} {times[0] / times[1]:6.1f}")


if __name__ == "__main__":
    main()
