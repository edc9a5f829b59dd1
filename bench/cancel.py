"""Cancelling long runs (cgdcore.cancel): what the checkpoints cost, and how soon a run ends once asked to.

Usage: python bench/cancel.py [--before PATH] [--reps 3] [--skip-stop]

1. checkpoint() per call: no check installed (the CLI, the library) and a throttled check installed (the app).
2. Whole-process CPU of `python -m cgdcore discover` runs in this checkout and, with --before, in an older checkout
   (e.g. `git archive` of the commit before the checkpoints), interleaved; ratio = this / before.
3. In-process CPU of the same runs with and without an installed check (every checkpoint then reads the clock),
   interleaved, at least 5 each; ratio = with / without (the statistics cache is warm after the first run).
4. Stop latency: each kind of long run is wanted stopped a few seconds in; wall and CPU seconds (process and
   children) from that moment to the run's return, against the app's 5 s target.
Prints numbers only.
"""
import argparse
import os
import resource
import subprocess
import sys
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RUNS = {  # label: discover arguments (command line)
    "pc alarm n=100k": ["--dataset", "alarm", "--n", "100000", "--algo", "pc", "--seed", "0"],
    "priv-pc alarm n=100k": ["--dataset", "alarm", "--n", "100000", "--algo", "priv-pc", "--round-epsilon", "1",
                             "--seed", "0"],
    "notears synthetic d=30": ["--dataset", "synthetic:d=30", "--n", "5000", "--algo", "notears", "--seed", "0"],
}


def per_call_ns() -> tuple[float, float]:
    from cgdcore.cancel import cancellable, checkpoint

    n = 2_000_000  # CPU time, not wall time: the machine may be shared
    bare = min(timeit.repeat(checkpoint, number=n, repeat=3, timer=time.process_time)) / n * 1e9
    with cancellable(lambda: None, interval=0.2):
        armed = min(timeit.repeat(checkpoint, number=n, repeat=3, timer=time.process_time)) / n * 1e9
    return bare, armed


def cli_cpu(cwd: Path, args: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "cgdcore", "discover", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(cwd)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def in_process_cpu(args: list[str], armed: bool) -> float:
    import contextlib
    import io

    from cgdcore.cancel import cancellable
    from cgdcore.cli import main

    t = time.process_time()
    with contextlib.ExitStack() as stack:
        if armed:
            stack.enter_context(cancellable(lambda: None, interval=0.2))
        stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
        main(["discover", *args])
    return time.process_time() - t


def _tree_cpu() -> float:
    """CPU seconds of this process, its live children and its reaped children (a sweep's workers)."""
    import psutil
    from process_cpu import live_cpu_seconds

    me = psutil.Process()
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime
            + live_cpu_seconds(me.children(recursive=True)))


def stop_latency(label: str, run, after: float = 4.0) -> None:
    """Want ``run()`` to stop ``after`` seconds in (a timer marks the moment and reads the CPU then, as a user leaving
    would); print wall and CPU seconds from that moment to the run's return."""
    import threading

    from cgdcore.cancel import Cancelled, cancellable

    wanted = threading.Event()
    at = {}

    def mark():
        at["t"], at["cpu"] = time.monotonic(), _tree_cpu()
        wanted.set()

    def check():
        if wanted.is_set():
            raise Cancelled("stop")

    t0 = time.monotonic()
    timer = threading.Timer(after, mark)
    timer.start()
    try:
        with cancellable(check, interval=0.2):
            run()
        timer.cancel()
        print(f"{label:<34} finished before the request ({time.monotonic() - t0:.1f} s): choose a larger run")
        return
    except Cancelled:
        pass
    wall = time.monotonic() - at["t"]
    time.sleep(0.5)  # let worker processes exit before reading their CPU
    cpu = _tree_cpu() - at["cpu"]
    print(f"{label:<34} {wall:>8.2f} {cpu:>8.2f}   (stop wanted {after:.0f} s into the run)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="an older checkout to compare whole-process CPU with")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--skip-stop", action="store_true", help="skip the stop-latency runs")
    args = ap.parse_args()

    bare, armed = per_call_ns()
    print(f"checkpoint(): {bare:.0f} ns per call without a check, {armed:.0f} ns with a throttled check installed")

    if args.before:
        print(f"\n{'run (CLI, whole process)':<26} {'this CPU s':>10} {'before CPU s':>12} {'ratio':>7}")
        for label, a in RUNS.items():
            ours, theirs = [], []
            for _ in range(args.reps):  # interleaved
                ours.append(cli_cpu(ROOT, a))
                theirs.append(cli_cpu(Path(args.before), a))
            print(f"{label:<26} {min(ours):>10.2f} {min(theirs):>12.2f} {min(ours) / min(theirs):>6.3f}×")

    print(f"\n{'run (in process)':<26} {'no check s':>10} {'check s':>10} {'ratio':>7}")
    for label, a in RUNS.items():
        in_process_cpu(a, False)  # warm caches and imports
        off, on = [], []
        for _ in range(max(args.reps, 5)):
            off.append(in_process_cpu(a, False))
            on.append(in_process_cpu(a, True))
        print(f"{label:<26} {min(off):>10.2f} {min(on):>10.2f} {min(on) / min(off):>6.3f}×")

    if args.skip_stop:
        return
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover
    from cgdcore.experiments import SweepSpec, run_sweep

    print(f"\n{'stop latency (target ≤ 5 s)':<34} {'wall s':>8} {'CPU s':>8}")
    win = load_dataset("win95pts", n=1_000_000, seed=0)
    stop_latency("pc win95pts n=1M", lambda: discover(win, algo="pc"))
    syn = load_dataset("synthetic:d=60", n=20_000, seed=0)
    stop_latency("notears synthetic d=60", lambda: discover(syn, algo="notears"))
    sachs = load_dataset("sachs", n=20_000, seed=0)
    stop_latency("fhe-pc sachs, during key setup", lambda: discover(sachs, algo="fhe-pc"), after=1.0)
    stop_latency("fhe-pc sachs, during batches", lambda: discover(sachs, algo="fhe-pc"), after=15.0)
    spec = SweepSpec(datasets=("alarm",), algorithms=("priv-pc", "svt-pc"), epsilons=(0.1, 1.0, 10.0),
                     n=(300_000,), reps=3, seed=0)
    stop_latency("sweep alarm, 2 worker processes", lambda: run_sweep(spec, jobs=2), after=10.0)


if __name__ == "__main__":
    main()
