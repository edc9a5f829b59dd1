"""Start-up cost of the command line: `python -m cgdcore datasets` and the imports `discover` needs, CPU and wall,
best of five (the test suite only checks that importing the core loads no app library)."""
import subprocess
import sys
import time
from pathlib import Path

import resource

ROOT = Path(__file__).resolve().parents[1]
CASES = {
    "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
    "python -m cgdcore datasets": [sys.executable, "-m", "cgdcore", "datasets"],
    "import cgdcore.discover + pandas path": [sys.executable, "-c", "import cgdcore.discover, cgdcore.data.tabular"],
}


def _run(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    print(f"{'command':<42} {'wall s':>8} {'CPU s':>8}  (best of 5)")
    for name, cmd in CASES.items():
        runs = [_run(cmd) for _ in range(5)]
        print(f"{name:<42} {min(r[0] for r in runs):>8.3f} {min(r[1] for r in runs):>8.3f}")


if __name__ == "__main__":
    main()
