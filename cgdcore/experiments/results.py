"""The tidy results table of a sweep: columns, CSV/Parquet files, partial files and summaries.

One row per run. The first columns are DESIGN.md's contract (``epsilon_total`` is the run's
guarantee: its budget, or its data-independent bound when uncapped); the rest add how much of it the
filter used (``eps_used``), the releases' totals under other rules at the realised count and the
paper's own formula (``eps_<rule>``, NaN where a rule does not apply; none of these is a guarantee),
the filter's rule, whether the guarantee holds, the precision/recall behind the F1, whether the run
stopped at its budget, an error message for runs whose parameters were rejected, and the sweep's
key (``sweep``).
"""
from __future__ import annotations

import csv
import functools
import hashlib
import math
import os
from pathlib import Path
from typing import Any, Iterable

from cgdcore import UserError

__all__ = ["COLUMNS", "CONTRACT_COLUMNS", "RULE_COLUMNS", "X_AXES", "X_AXIS_NAMES", "to_frame", "write_table",
           "read_table", "partial_path", "PartialWriter", "read_partial", "summarise", "row_key"]

CONTRACT_COLUMNS = ("dataset", "n", "algorithm", "epsilon", "epsilon_kind", "rep", "seed", "epsilon_total",
                    "delta_total", "skeleton_f1", "arc_f1", "shd", "n_ci_tests", "seconds")
#: totals reported per run (cgdcore.privacy.ledger.Ledger.totals): what the filter used, the releases' totals
#: under other rules at the realised count, and "paper" = the paper's own formula; none is a guarantee
RULE_COLUMNS = ("eps_used", "eps_basic", "eps_advanced", "eps_pld", "eps_gaussian", "eps_parallel", "eps_paper")
EXTRA_COLUMNS = ("rule", "guarantee", *RULE_COLUMNS, "skeleton_precision", "skeleton_recall", "stopped_early",
                 "error", "sweep", "version")
COLUMNS = CONTRACT_COLUMNS + EXTRA_COLUMNS
_INT = ("n", "rep", "seed")
_STR = ("dataset", "algorithm", "epsilon_kind", "rule", "error", "sweep", "version")

#: what the x-axis of a privacy-utility curve can be: column -> label
X_AXES = {
    "epsilon": "requested ε",
    "epsilon_total": "guaranteed ε (the budget, or the bound at the most releases possible)",
    "eps_used": "ε the filter used (realised, not a guarantee)",
    "eps_basic": "Σε of the releases made (realised, not a guarantee)",
    "eps_advanced": "advanced composition of the releases made (realised, not a guarantee)",
    "eps_pld": "privacy-loss distribution of the releases made (realised, not a guarantee)",
    "eps_paper": "the paper's own formula (as in paper, not a guarantee)",
}
#: the same axes named short enough for a select box (the chart's axis title is the full X_AXES label)
X_AXIS_NAMES = {
    "epsilon": "requested ε",
    "epsilon_total": "guaranteed ε",
    "eps_used": "ε the filter used (realised)",
    "eps_basic": "Σε of the releases (realised)",
    "eps_advanced": "advanced composition (realised)",
    "eps_pld": "privacy-loss distribution (realised)",
    "eps_paper": "the paper's formula (as in paper)",
}


def row_key(row) -> tuple:
    """A row's identity (same as ``RunConfig.key``)."""
    eps = float(row["epsilon"])
    return (str(row["dataset"]), int(row["n"]), str(row["algorithm"]),
            "nan" if not math.isfinite(eps) else repr(eps), str(row["epsilon_kind"]), int(row["rep"]),
            int(row["seed"]))


def to_frame(rows: Iterable[dict[str, Any]], order: list[tuple] | None = None):
    """Rows → DataFrame with every column, in ``order`` (run keys) when given."""
    import pandas as pd

    rows = list(rows)
    if order is not None:
        pos = {k: i for i, k in enumerate(order)}
        rows.sort(key=lambda r: pos.get(row_key(r), len(pos)))
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    for c in _INT:
        df[c] = df[c].astype("int64")
    for c in COLUMNS:
        if c in _STR:
            df[c] = df[c].astype(object).where(df[c].notna(), None)
        elif c == "stopped_early":
            df[c] = df[c].astype(bool)
        elif c not in _INT:
            df[c] = pd.to_numeric(df[c], errors="coerce").astype("float64")
    return df.reset_index(drop=True)


def write_table(df, path: str | os.PathLike) -> Path:
    """Write the table as CSV, or Parquet when the name ends in .parquet/.pq."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        raise UserError(f"cannot write {path}: the folder {path.parent} does not exist.")
    tmp = path.with_name(path.name + ".tmp")
    if path.suffix.lower() in (".parquet", ".pq"):
        df.to_parquet(tmp, index=False)
    else:
        df.to_csv(tmp, index=False)
    os.replace(tmp, path)
    return path


def read_table(path: str | os.PathLike):
    """Read a results table written by :func:`write_table` (CSV or Parquet)."""
    import pandas as pd

    path = Path(path)
    if not path.exists():
        raise UserError(f"{path} does not exist.")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            df = pd.read_parquet(path)
        else:
            df = pd.read_csv(path, keep_default_na=True)
    except Exception as exc:  # pandas/pyarrow raise many types for a damaged file
        raise UserError(f"{path} is not a readable results table ({type(exc).__name__}: {exc}).") from None
    missing = [c for c in CONTRACT_COLUMNS if c not in df.columns]
    if missing:
        raise UserError(f"{path} is not a sweep results table: it lacks the column(s) {', '.join(missing)}.")
    for c in COLUMNS:
        if c not in df.columns:
            df[c] = None
    return to_frame(df.to_dict("records"))


def partial_path(out: str | os.PathLike) -> Path:
    """Where rows go while a sweep runs: the CSV itself, or NAME.partial.csv beside a Parquet file."""
    out = Path(out)
    return out if out.suffix.lower() not in (".parquet", ".pq") else out.with_name(out.name + ".partial.csv")


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


class PartialWriter:
    """Appends rows to the partial CSV as they finish, one flushed line each."""

    def __init__(self, path: Path, fresh: bool):
        self.path = path
        new = fresh or not path.exists() or path.stat().st_size == 0
        self._fh = open(path, "w" if new else "a", newline="", encoding="utf-8")
        self._w = csv.writer(self._fh)
        if new:
            self._w.writerow(COLUMNS)
            self._fh.flush()

    def write(self, row: dict[str, Any]) -> None:
        self._w.writerow([_cell(row.get(c)) for c in COLUMNS])
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A short hash of the cgdcore source that computed a row: a resumed sweep never mixes rows of two versions of
    the program (an algorithm's change changes its numbers)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.blake2b(digest_size=6)
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def read_partial(path: Path, sweep_key: str) -> list[dict[str, Any]]:
    """Rows of an interrupted sweep (a torn last line is dropped). Raises if the file holds a
    different sweep's rows, so a resume never mixes two sweeps."""
    import pandas as pd

    if not path.exists() or path.stat().st_size == 0:
        return []
    try:
        df = pd.read_csv(path, on_bad_lines="skip")
    except Exception as exc:
        raise UserError(f"cannot resume from {path}: it is not a results CSV ({exc}); move it away or pass "
                        "--no-resume to overwrite it.") from None
    if "sweep" not in df.columns or any(c not in df.columns for c in CONTRACT_COLUMNS):
        raise UserError(f"{path} exists and is not this sweep's results file; choose another --out or pass "
                        "--no-resume to overwrite it.")
    df = df.dropna(subset=["dataset", "algorithm", "rep", "seed", "sweep"])
    other = set(df["sweep"].astype(str)) - {sweep_key}
    if other:
        raise UserError(f"{path} holds results of a different sweep (its parameters or seeds differ); choose "
                        "another --out, or pass --no-resume to start over.")
    versions = set(df["version"].astype(str)) if "version" in df.columns else {"(none recorded)"}
    if df.empty:
        versions = set()
    if versions - {code_version()}:
        raise UserError(f"{path} was written by another version of the program ({', '.join(sorted(versions))}; "
                        f"this one is {code_version()}), whose numbers may differ: choose another --out, or pass "
                        "--no-resume to start over.")
    return to_frame(df.to_dict("records")).to_dict("records")


def summarise(df, x: str = "epsilon", metrics: tuple[str, ...] = ("skeleton_f1", "arc_f1", "shd", "n_ci_tests",
                                                                      "seconds")):
    """Mean, sd and count of ``metrics`` per (dataset, n, algorithm, requested ε), with the mean of
    the x column ``x`` (requested ε or a reported total). Failed runs are left out; on the guaranteed-ε axis a run
    without a guarantee has no x (NaN), so no chart places it there."""
    if x not in df.columns:
        raise UserError(f"unknown x-axis {x!r}; choose one of {', '.join(X_AXES)}.")
    ok = df[df["error"].isna()] if "error" in df.columns else df
    if x == "epsilon_total" and "guarantee" in ok.columns:  # a run without a guarantee has no guaranteed ε to be
        ok = ok.assign(epsilon_total=ok["epsilon_total"].where(ok["guarantee"] != 0))  # placed at (EM-PC)
    keys = ["dataset", "n", "algorithm", "epsilon_kind", "epsilon"]
    g = ok.groupby(keys, dropna=False, sort=False)
    out = g[list(metrics)].agg(["mean", "std", "count"])
    out.columns = [f"{m}_{s}" for m, s in out.columns]
    out["x"] = g[x].mean()
    out["x_sd"] = g[x].std()
    out["reps"] = g.size()
    return out.reset_index()
