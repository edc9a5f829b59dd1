"""Sweep speed: the Priv-PC Figure 1 preset, and the speed-up over running each configuration alone.

Usage: python bench/sweep.py [--networks sachs] [--jobs 2] [--independent 6]
Targets (2-core machine): Sachs (3 algorithms × 21 ε × 5 reps, n = 100,000) ≤ 60 s; all 7 networks
≤ 15 min. "Independently" means what a script calling the CLI once per configuration pays: a fresh
process that imports, samples the data and computes every statistic itself. It is measured on a
few configurations spread over the grid and extrapolated to the whole sweep.
"""
import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cgdcore.experiments import command_for, summarise  # noqa: E402
from cgdcore.experiments.presets import get_preset  # noqa: E402
from cgdcore.experiments.runner import run_sweep  # noqa: E402

TARGET = {1: 60.0, 7: 15 * 60.0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--networks", default="sachs", help="comma-separated, or 'all' for the 7 of the paper")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--independent", type=int, default=6, help="configurations timed alone (0 to skip)")
    args = ap.parse_args()
    preset = get_preset("privpc-fig1")
    nets = preset.spec.datasets if args.networks == "all" else tuple(args.networks.split(","))
    preset = get_preset("privpc-fig1", datasets=nets)
    configs = preset.spec.runs()
    print(f"Priv-PC Figure 1 preset on {', '.join(nets)}: {len(configs)} runs "
          f"(3 algorithms × 21 per-round ε × 5 reps, n = 100,000), {args.jobs} worker(s)")
    t0 = time.perf_counter()
    df = run_sweep(preset.spec, jobs=args.jobs)
    wall = time.perf_counter() - t0
    target = TARGET.get(len(nets))
    verdict = "" if target is None else f"  target ≤ {target:.0f} s: {'ok' if wall <= target else 'MISSED'}"
    print(f"sweep wall time {wall:.1f} s ({wall / len(df) * 1000:.0f} ms per run; CPU in runs "
          f"{df['seconds'].sum():.1f} s){verdict}")
    s = summarise(df, x=preset.x)
    for (ds, algo), g in s.groupby(["dataset", "algorithm"], sort=False):
        inside = g[(g.x >= 1) & (g.x <= 100)]
        last = g.iloc[-1]
        print(f"  {ds:<10} {algo:<7} points with total ε in [1, 100]: {len(inside):>2}; arc F1 at the largest ε "
              f"{last['arc_f1_mean']:.3f} ± {last['arc_f1_std']:.3f}; tests {last['n_ci_tests_mean']:.0f}")
    if args.independent <= 0:
        return
    step = max(1, len(configs) // args.independent)
    sample = configs[::step][:args.independent]
    times = []
    for cfg in sample:
        cmd = [sys.executable, "-m", "cgdcore", *shlex.split(command_for(cfg))[3:], "--json"]
        t = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    per = sum(times) / len(times)
    alone = per * len(configs)
    print(f"independent runs (fresh process each, {len(times)} timed): {per:.2f} s per run → about "
          f"{alone:.0f} s for the sweep on one core, {alone / max(1, args.jobs):.0f} s on {args.jobs}; "
          f"speed-up of the sweep: {alone / wall:.1f}× (vs one core), {alone / max(1, args.jobs) / wall:.1f}× "
          f"(vs {args.jobs} cores)")


if __name__ == "__main__":
    main()
