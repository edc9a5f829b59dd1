"""User tables: load and validate a CSV into a :class:`Dataset`, discretise, check discrete usability.

Column types. A column is *numeric* if every non-missing value parses as a number (pandas' C parser
does the inference; values with stray spaces are re-tried after stripping); it is *categorical*
otherwise, and its labels (whitespace-stripped) are encoded as codes 0..k-1 in sorted label order.
Integer columns with few distinct values stay numeric; :func:`discretise` turns numeric columns into
quantile bins when a discrete CI test needs them.

Missing values: empty fields and ``NA``, ``N/A``, ``NaN``, ``?``, ``null`` (and case variants).
Rows with any missing value are dropped (``missing="drop"``, reported in ``Dataset.notes``) or
refused (``missing="error"``).

Every problem with the file is raised as :class:`~cgdcore.UserError` with what is wrong and how to
fix it. pandas is imported lazily so that ``import cgdcore.data`` stays cheap, and simple files (plain labels or
whole numbers, no quotes or missing values: :mod:`cgdcore.data.simple_csv`) are read without it, to the same
Dataset.
"""
from __future__ import annotations

import csv
import io
import math
import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cgdcore import UserError
from cgdcore.data.checks import _short, check_category_counts, check_discrete_usable
from cgdcore.data.dataset import Dataset, code_dtype
from cgdcore.data.simple_csv import parse_simple_csv

__all__ = ["load_csv", "dataset_from_frame", "discretise", "check_discrete_usable", "check_category_counts",
           "MAX_BYTES", "MAX_ROWS", "MAX_COLUMNS", "MISSING_TOKENS"]

MAX_BYTES = 200 * 1024 * 1024
MAX_ROWS = 2_000_000
MAX_COLUMNS = 100
MISSING_TOKENS = ("", "NA", "N/A", "n/a", "na", "NaN", "nan", "NAN", "?", "null", "NULL", "Null")
_SEPARATORS = (",", ";", "\t", "|")


# ----------------------------------------------------------------------------- reading bytes

def _read_bytes(source) -> tuple[bytes, str]:
    """Bytes and a display name from a path, bytes, or a binary/text file-like object."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, name = bytes(source), "data.csv"
        if len(data) > MAX_BYTES:
            raise _too_big(len(data))
        return data, name
    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        if not p.is_file():
            raise UserError(f"no such file: {p.name!r}; check the path")
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise _too_big(size)
        return p.read_bytes(), p.name
    if hasattr(source, "read"):
        name = Path(str(getattr(source, "name", "data.csv"))).name
        data = source.read(MAX_BYTES + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
        if len(data) > MAX_BYTES:  # only the first MAX_BYTES + 1 were read: the size is the end's position
            try:
                size = source.seek(0, os.SEEK_END)
            except (AttributeError, OSError, ValueError):
                size = None
            raise _too_big(size if isinstance(size, int) and size > MAX_BYTES else None)
        return bytes(data), name
    raise UserError(f"cannot read a CSV from a {type(source).__name__}; give a path, bytes or a file object")

#: how a dataset's notes begin when rows with missing values were dropped (cgdcore.discover reads it for private runs)
DROPPED_NOTE = "dropped"


def _too_big(size: int | None) -> UserError:
    what = "the file is" if size is None else f"the file is {size / 2**20:.1f} MB,"
    return UserError(f"{what} over the {MAX_BYTES // 2**20} MB limit; upload a sample of its rows or fewer columns")


def _decode_check(data: bytes) -> bytes:
    """Strip a UTF-8 BOM, check that the bytes are UTF-8 text (naming the first bad line) and turn old-Mac
    (CR) and Windows (CRLF) line ends into LF, which the header and row checks below split on."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UserError("the file is UTF-16 text, not UTF-8; save it as 'CSV UTF-8' and upload it again")
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise UserError(f"the file is binary, not CSV text (a NUL byte on line {line}): it may be a spreadsheet "
                        f"(.xlsx), a compressed or a UTF-16 file; export it as 'CSV UTF-8' and upload that")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise UserError(f"the file is not UTF-8 text: byte 0x{data[e.start]:02x} on line {line} cannot be "
                        f"decoded (the file is probably Latin-1 or Windows-1252); save it as "
                        f"'CSV UTF-8' and upload it again") from None
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def _sniff_separator(header: str) -> str:
    counts = [header.count(s) for s in _SEPARATORS]
    return _SEPARATORS[int(np.argmax(counts))] if max(counts) else ","


def _field_counts_bad_line(data: bytes, sep: str, expected: int) -> tuple[int, int] | None:
    """Physical lines (1-based: first, last) of the first non-blank record whose field count != expected; first <
    last when a quoted value runs over several lines (a quote that is never closed takes the rest of the file).

    Files without quote characters are scanned with numpy (separator and newline positions);
    quoted files with the csv module, which understands quoted separators and newlines.
    Blank and whitespace-only lines are skipped, as pandas does.
    """
    if b'"' in data:
        reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""), delimiter=sep, skipinitialspace=True)
        last = 0
        for row in reader:
            first, last = last + 1, reader.line_num
            if not row or all(not f.strip() for f in row) and len(row) == 1:
                continue
            if len(row) != expected:
                return first, last
        return None
    b = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(b == 10)
    if b.size and b[-1] != 10:
        ends = np.append(ends, b.size)
    starts = np.concatenate(([0], ends[:-1] + 1))
    seps = np.flatnonzero(b == ord(sep))
    n_fields = np.searchsorted(seps, ends) - np.searchsorted(seps, starts) + 1
    for i in np.flatnonzero(n_fields != expected):
        if data[starts[i]:ends[i]].strip():
            return int(i) + 1, int(i) + 1
    return None


def _bad_row_message(data: bytes, sep: str, expected: int) -> str | None:
    """What is wrong with the first row whose field count is not the header's, and where; None when there is no
    such row or even the csv module cannot split the file (e.g. a field over its 128 kB limit)."""
    try:
        bad = _field_counts_bad_line(data, sep, expected)
    except csv.Error:
        return None
    if bad is None:
        return None
    first, last = bad
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if first < last and last >= lines:  # the quoted value took every line to the end of the file
        return (f"malformed CSV: a quote opened on line {first} is never closed (the value runs to the end of the "
                f"file, line {last}); close the quote or remove it")
    where = f"line {first}" if first == last else f"the row on lines {first}–{last} (a quoted value spans them)"
    return (f"malformed CSV: {where} does not have {expected} fields like the header; fix or remove that row "
            f"(check for unquoted separators in values)")


# ----------------------------------------------------------------------------- loading

def load_csv(source, name: str | None = None, missing: str = "drop", min_columns: int = 2) -> Dataset:
    """Load a CSV (path, bytes or file-like) into a :class:`Dataset`.

    ``min_columns``: 2 for discovery; 1 where a single column is a valid table (privatising records).

    The separator is sniffed from the header line (``,`` ``;`` tab ``|``; comma wins ties). Limits:
    200 MB, 100 columns, 2,000,000 rows. ``missing="drop"`` drops rows with any missing value and
    notes how many; ``missing="error"`` refuses them.
    """
    if missing not in ("drop", "error"):
        raise UserError(f"missing={missing!r} is not an option; use 'drop' or 'error'")
    data, default_name = _read_bytes(source)
    name = name or f"upload:{default_name}"
    data = _decode_check(data)
    start = re.match(rb"\s*", data).end()  # type: ignore[union-attr]
    if start == len(data):
        raise UserError("the file is empty; upload a CSV with a header line and at least one data row")
    end = data.find(b"\n", start)
    first = data[start:end if end >= 0 else len(data)].decode("utf-8").rstrip("\r")
    sep = _sniff_separator(first)
    try:
        header = [h.strip() for h in next(csv.reader([first], delimiter=sep))]
    except csv.Error as e:
        raise UserError(f"malformed CSV: the header line cannot be read ({e}); the first line should be the "
                        f"column names separated by commas") from None
    if len(header) > MAX_COLUMNS:
        raise UserError(f"the file has {len(header)} columns, over the limit of {MAX_COLUMNS}; "
                        f"keep the variables you want to study")
    if len(header) < min_columns:
        raise UserError(f"the file has only one column ({_short(header[0])}); causal discovery needs at least two. "
                        f"Use commas (or ; or tabs) between values")
    header = [h or f"(unnamed column {i + 1})" for i, h in enumerate(header)]
    seen, dups = set(), []
    for h in header:
        if h in seen and h not in dups:
            dups.append(h)
        seen.add(h)
    if dups:
        raise UserError(f"duplicate column names: {', '.join(map(_short, dups[:5]))}; give every column a distinct "
                        f"name")
    simple = parse_simple_csv(data[start:], sep, len(header), MAX_ROWS, MISSING_TOKENS)
    if simple is not None:  # the same Dataset as below, without pandas
        values = [v for v, _ in simple]
        states = [st for _, st in simple]
        return Dataset(name=name, variables=tuple(header), data=_stack(values, states, len(values[0])),
                       states=tuple(states))
    import pandas as pd

    try:
        with warnings.catch_warnings():
            # a first data row longer than the header only warns ("loss of data"): make it an error
            warnings.simplefilter("error", pd.errors.ParserWarning)
            df = pd.read_csv(io.BytesIO(data), sep=sep, header=0, names=header, index_col=False,
                             keep_default_na=False, na_values=list(MISSING_TOKENS), skipinitialspace=True,
                             encoding="utf-8", engine="c", low_memory=False)
    except (pd.errors.ParserError, pd.errors.ParserWarning) as e:
        bad = _bad_row_message(data, sep, len(header))
        if bad is None:  # not a field count: say what the parser saw (e.g. a quote that is never closed)
            why = str(e).replace("Error tokenizing data. C error: ", "").strip().rstrip(".")[:160]
            raise UserError(f"malformed CSV ({why}); check for unbalanced quotes or unquoted separators in "
                            f"values") from None
        raise UserError(bad) from None
    except pd.errors.EmptyDataError:
        raise UserError("the file is empty; upload a CSV with a header line and at least one data row") from None
    if len(df) == 0:
        raise UserError("the file has a header but no data rows")
    if len(df) > MAX_ROWS:
        raise UserError(f"the file has {len(df):,} rows, over the limit of {MAX_ROWS:,}; upload a random sample")
    if df.isna().to_numpy().any():
        # pandas pads short rows with NaN, so tell them apart from genuinely missing values
        bad = _bad_row_message(data, sep, len(header))
        if bad is not None:
            raise UserError(bad)
    return dataset_from_frame(df, name=name, missing=missing)


def dataset_from_frame(df, name: str, missing: str = "drop", source: str = "", licence: str = "",
                       notes: Sequence[str] = (), numeric: Sequence[str] | None = None) -> Dataset:
    """Turn a parsed DataFrame into a :class:`Dataset` (type detection, encoding, missing values).

    By default a column is numeric iff every non-missing value parses as a number. ``numeric``, if
    given, names the text columns to parse as numbers (unparseable values become missing); other
    text columns are then categorical without trying.
    """
    import pandas as pd

    if missing not in ("drop", "error"):
        raise UserError(f"missing={missing!r} is not an option; use 'drop' or 'error'")
    # Text columns are examined through their distinct values (pandas.factorize once per column): stripping,
    # missing-value tokens and the numeric check run on the few distinct strings, not on every row.
    cols, is_num = [], []
    tokens = set(MISSING_TOKENS)
    for c in df.columns:
        s = df[c]
        if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            v = s.to_numpy(dtype=np.float64, na_value=np.nan)
            cols.append(v)
            is_num.append(True)
            continue
        raw, uniques = pd.factorize(s, use_na_sentinel=True)  # a missing cell: -1
        text = np.array([str(u).strip() for u in uniques], dtype=object)
        gone = np.fromiter((t in tokens for t in text), dtype=bool, count=len(text))
        missing_row = (raw < 0) | gone[np.maximum(raw, 0)] if len(text) else raw < 0
        want_num = numeric is not None and c in numeric
        if want_num or numeric is None:
            vals = pd.to_numeric(pd.Series(text[~gone], dtype=object), errors="coerce").to_numpy(dtype=np.float64)
            if want_num or not np.isnan(vals).any():
                table = np.full(len(text) + 1, np.nan)
                table[np.flatnonzero(~gone)] = vals
                v = table[np.where(missing_row, len(text), raw)]
                cols.append(v)
                is_num.append(True)
                continue
        cols.append((raw, text, gone, missing_row))
        is_num.append(False)

    n_total = len(df)
    miss = np.zeros(n_total, dtype=bool)
    for c, v, num in zip(df.columns, cols, is_num):
        m = np.isnan(v) if num else v[3]
        if m.all():
            raise UserError(f"column {c!r} has no values (all {n_total:,} are missing); remove it")
        if num and np.isinf(v).any():
            raise UserError(f"column {c!r} contains infinite values; replace or remove them")
        miss |= m
    notes = list(notes)
    n_miss = int(miss.sum())
    if n_miss:
        if missing == "error":
            r = int(np.flatnonzero(miss)[0])
            bad = [c for c, v, num in zip(df.columns, cols, is_num) if (np.isnan(v[r]) if num else v[3][r])]
            raise UserError(f"{n_miss:,} of {n_total:,} rows have missing values (first: data row {r + 1}, "
                            f"column {bad[0]!r}); fill them in or allow dropping those rows")
        if n_miss == n_total:
            raise UserError("every row has at least one missing value; remove the emptiest columns")
        notes.append(f"{DROPPED_NOTE} {n_miss:,} of {n_total:,} rows with missing values")
    keep = ~miss
    n = int(keep.sum())
    variables = tuple(str(c) for c in df.columns)
    states: list[tuple[str, ...] | None] = []
    arrays = []
    for v, num in zip(cols, is_num):
        if num:
            arrays.append(v[keep] if n_miss else v)
            states.append(None)
        else:  # states: the sorted distinct stripped labels of the kept rows
            raw, text, gone, _ = v
            kept = raw[keep] if n_miss else raw
            present = np.bincount(kept[kept >= 0], minlength=len(text)) > 0
            labels = sorted(set(text[present & ~gone].tolist()))
            index = {t: i for i, t in enumerate(labels)}
            to_state = np.array([index.get(t, -1) for t in text], dtype=np.int64)
            arrays.append(to_state[kept])
            states.append(tuple(labels))
    data = _stack(arrays, states, n)
    return Dataset(name=name, variables=variables, data=data, states=tuple(states),
                   source=source, licence=licence, notes=tuple(notes))


def _looks_numeric(s) -> bool:
    """Cheap pre-check on a few values, so that label columns skip the full numeric parse."""
    import pandas as pd

    return bool(pd.to_numeric(s, errors="coerce").notna().all())


def _stack(arrays, states, n: int) -> np.ndarray:
    """(n, d) array: smallest unsigned dtype if all columns are discrete, float64 otherwise."""
    if all(s is not None for s in states):
        dtype = code_dtype(max(len(s) for s in states))
    else:
        dtype = np.float64
    out = np.empty((n, len(arrays)), dtype=dtype)
    for j, a in enumerate(arrays):
        out[:, j] = a
    return out


# ----------------------------------------------------------------------------- discretising

def _fmt(x: float) -> str:
    """4 significant digits; whole numbers up to a million in full (10000, not 1e+04)."""
    if float(x).is_integer() and abs(x) < 1e6:
        return str(int(x))
    return f"{x:.4g}"


def _public_bins(x: np.ndarray, bins: int, name: str, lo: float, hi: float,
                 log: bool) -> tuple[np.ndarray, tuple[str, ...]]:
    """Equal-width bins over the declared public range [lo, hi] (of log x when ``log``), values clipped to the
    range first; every bin is kept, even if empty. Nothing here is computed from the rows."""
    if log:
        x = np.log(np.clip(x, lo, hi))
        lo, hi = math.log(lo), math.log(hi)
    else:
        x = np.clip(x, lo, hi)
    code = np.minimum(bins - 1, np.floor(bins * (x - lo) / (hi - lo))).astype(np.int64)
    edges = np.linspace(lo, hi, bins + 1)
    if log:
        edges = np.exp(edges)
    labels = tuple(f"b{i + 1} [{_fmt(edges[i])}, {_fmt(edges[i + 1])}{']' if i == bins - 1 else ')'}"
                   for i in range(bins))
    return code, labels


def parse_ranges(text: str | None, variables=None) -> dict[str, tuple[float, float]]:
    """``"age=17:90,hours=1:99"`` → {"age": (17.0, 90.0), ...}; a UserError that says what to fix otherwise."""
    out: dict[str, tuple[float, float]] = {}
    if text is None or not str(text).strip():
        return out
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, span = part.rpartition("=")
        lo_s, sep2, hi_s = span.partition(":")
        if not sep or not sep2 or not name.strip():
            raise UserError(f"public range {part!r}: write column=low:high, e.g. age=17:90 (several separated by "
                            "commas).")
        try:
            lo, hi = float(lo_s), float(hi_s)
        except ValueError:
            raise UserError(f"public range {part!r}: low and high must be numbers.") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise UserError(f"public range {part!r}: need finite numbers with low < high.")
        name = name.strip()
        if variables is not None and name not in variables:
            raise UserError(f"public range for {name!r}: there is no such column; columns are "
                            f"{', '.join(map(str, variables))}.")
        out[name] = (lo, hi)
    return out


def format_ranges(ranges: dict) -> str:
    """The inverse of :func:`parse_ranges`."""
    return ",".join(f"{k}={_fmt(lo)}:{_fmt(hi)}" for k, (lo, hi) in ranges.items())


def missing_ranges(dataset: Dataset, columns: Sequence[str] | None = None) -> list[str]:
    """Numeric columns (of ``columns``, default all) without a declared public range."""
    return [v for v, st in zip(dataset.variables, dataset.states)
            if st is None and v not in dataset.ranges and (columns is None or v in columns)]


def require_ranges(dataset: Dataset, why: str, columns: Sequence[str] | None = None) -> None:
    """A UserError naming the numeric columns that have no public range, and how to declare one."""
    missing = missing_ranges(dataset, columns)
    if missing:
        shown = ", ".join(missing[:6]) + (" …" if len(missing) > 6 else "")
        raise UserError(f"{why} needs a public range for every numeric column, and {shown} ha"
                        f"{'s' if len(missing) == 1 else 've'} none: bins or clipping computed from the private "
                        f"rows would reveal them. Declare ranges you know without looking at the data (CLI: "
                        f"--ranges {missing[0]}=LOW:HIGH,…; app: 'Public ranges').")


def discretise(dataset: Dataset, bins: int = 3, columns: Sequence[str] | None = None,
               method: str = "quantile") -> Dataset:
    """Cut numeric columns into ``bins`` quantile bins (equal-frequency), returning a new Dataset.

    ``method="public"`` cuts each column's declared public range [lo, hi] (``dataset.ranges``) into
    equal-width bins instead, after clipping the values to it: bin = min(k − 1, ⌊k(x − lo)/(hi − lo)⌋).
    Nothing is computed from the rows, which private runs need (quantiles or the data's own min/max
    would reveal them; Binkyte et al. 2024 §3). ``"public-log"`` does that to log x (ranges with lo > 0),
    as for Sachs in that paper. A numeric column without a public range is refused.

    Edges are the empirical quantiles at 0, 1/bins, ..., 1; duplicate edges (heavy ties) are
    merged, so a column may get fewer bins. Bin i is ``[e_i, e_{i+1})`` and the last is closed;
    labels read ``"q1 [a, b)"``. A column with at most ``bins`` distinct values (e.g. constant, or
    small integers) gets one bin per value, labelled ``"q1 [v, v]"``. ``columns=None`` means every numeric column; named
    categorical columns are left as they are.
    """
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or not 2 <= bins <= 64:
        raise UserError(f"bins must be a whole number from 2 to 64, got {bins!r}")
    if method not in ("quantile", "public", "public-log"):
        raise UserError(f"discretisation must be 'quantile', 'public' or 'public-log'; got {method!r}")
    names = list(dataset.variables)
    if columns is None:
        targets = [j for j, s in enumerate(dataset.states) if s is None]
    else:
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise UserError(f"unknown column(s) {', '.join(map(repr, unknown))}; columns are: {', '.join(names)}")
        targets = [names.index(c) for c in columns if dataset.states[names.index(c)] is None]
    states = list(dataset.states)
    arrays = [dataset.data[:, j] for j in range(dataset.d)]
    if method != "quantile":
        require_ranges(dataset, "binning for a private run", [names[j] for j in targets])
        if method == "public-log":
            bad = [names[j] for j in targets if dataset.ranges[names[j]][0] <= 0]
            if bad:
                raise UserError(f"log-scale bins need a public range above 0, and {', '.join(bad)} "
                                f"start{'s' if len(bad) == 1 else ''} at or below 0; declare a positive low end or "
                                "use equal-width bins on the raw values.")
    for j in targets:
        x = np.asarray(dataset.data[:, j], dtype=np.float64)
        if method != "quantile":
            lo, hi = dataset.ranges[names[j]]
            arrays[j], states[j] = _public_bins(x, bins, names[j], float(lo), float(hi), method == "public-log")
            continue
        values = np.unique(x)
        if values.size <= bins:  # few distinct values (constant, small integers): one bin per value
            arrays[j] = np.searchsorted(values, x)
            states[j] = tuple(f"q{i + 1} [{_fmt(v)}, {_fmt(v)}]" for i, v in enumerate(values))
            continue
        edges = np.unique(np.quantile(x, np.linspace(0.0, 1.0, bins + 1)))
        arrays[j] = np.searchsorted(edges[1:-1], x, side="right")
        k = edges.size - 1
        states[j] = tuple(f"q{i + 1} [{_fmt(edges[i])}, {_fmt(edges[i + 1])}{']' if i == k - 1 else ')'}"
                          for i in range(k))
    notes = dataset.notes
    if targets:
        kind = {"quantile": "quantile", "public": "equal-width public-range",
                "public-log": "equal-width public-range (log scale)"}[method]
        notes = notes + (f"discretised {', '.join(names[j] for j in targets)} into {bins} {kind} bins",)
    data = _stack(arrays, states, dataset.n)
    return Dataset(name=dataset.name, variables=dataset.variables, data=data, states=tuple(states),
                   truth=dataset.truth, truth_name=dataset.truth_name, source=dataset.source,
                   licence=dataset.licence, notes=notes, ranges=dataset.ranges)
