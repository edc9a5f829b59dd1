"""Start-up cost of the command line: `python -m cgdcore datasets`, the imports `discover` needs, and those imports
plus reading Alarm's 100,000 sampled rows from a CSV of state labels (what `discover --data alarm.csv` does before
its first CI test); CPU and wall, best of five (the test suite only checks that importing the core loads no app
library)."""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import resource

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
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
    from cgdcore.data import load_dataset

    with tempfile.TemporaryDirectory(prefix="cgdcore-bench-") as tmp:
        csv = Path(tmp) / "alarm.csv"
        load_dataset("alarm", n=100_000, seed=0).to_frame().to_csv(csv, index=False)
        CASES["imports + CSV (alarm 100k, labels)"] = [
            sys.executable, "-c", "import sys; from cgdcore.cli import main; from cgdcore.discover import discover; "
            "from cgdcore.data.tabular import load_csv; load_csv(sys.argv[1])", str(csv)]
        print(f"{'command':<42} {'wall s':>8} {'CPU s':>8}  (best of 5)")
        for name, cmd in CASES.items():
            runs = [_run(cmd) for _ in range(5)]
            print(f"{name:<42} {min(r[0] for r in runs):>8.3f} {min(r[1] for r in runs):>8.3f}")


if __name__ == "__main__":
    main()
