"""Columns of a *simple* CSV without pandas: the fast path of :func:`cgdcore.data.tabular.load_csv`.

A file is simple when it has no quote characters, no spaces or tabs in its rows (other than a tab separator), no
blank, short or long lines, no empty or missing-value fields, fields of at most 16 bytes, at most
:data:`MAX_DISTINCT` distinct values per column, and every column is one of
* whole numbers of at most 15 digits (``-?[0-9]+``): numeric, as pandas reads it (int64, then float64);
* only ``True``/``TRUE``/``true`` and ``False``/``FALSE``/``false``: pandas reads a boolean column, whose labels
  are then ``"False"``/``"True"``;
* printable ASCII labels, at least one of which has a character that no number has (a number has only
  ``0-9 + - . e E _`` or is ``inf``/``infinity``/``nan``, which are refused): pandas keeps the whole column as text,
  so it is categorical, its states the sorted distinct labels.
For such files the result is the :class:`~cgdcore.data.Dataset` that the pandas path builds (tests compare the two
on every shipped network and on edge cases); any other file returns ``None`` and goes through pandas, with its
checks and messages.

How: in chunks of about a megabyte of whole lines (small working arrays, reused), one pass finds the separators
and line ends and each field's first 16 bytes are read as two little-endian 64-bit words through a 1-byte-strided
view of the buffer (one gather per word, no per-field Python objects; no NUL bytes, so a field is its words without
their zero padding); the few distinct values of a column are then found by repeated comparison and turned into
codes.
"""
from __future__ import annotations

import re

import numpy as np

__all__ = ["parse_simple_csv", "MAX_DISTINCT"]

#: Above this many distinct values in a column the file goes through pandas.
MAX_DISTINCT = 64
_INT = re.compile(rb"-?[0-9]{1,15}")
_BOOL = {b"True": True, b"TRUE": True, b"true": True, b"False": False, b"FALSE": False, b"false": False}
# words pandas parses as numbers (after an optional sign, any letter case), and the characters of numbers
_NUMBER_WORDS = {"inf", "infinity", "nan"}
_NUMBER_CHARS = "0123456789+-.eE_"
# _MASKS[skip][L]: keeps the bytes skip..L-1 of a field of L ≤ 16 bytes read as a word from its byte ``skip``
_CHUNK_BYTES = 1 << 20
_MASKS = {skip: np.array([(1 << (8 * min(max(L - skip, 0), 8))) - 1 for L in range(17)], dtype=np.uint64)
          for skip in (0, 8)}


def _field_bounds(buf: np.ndarray, sep: int, d: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(starts, lengths) of the n·d fields, row-major, or None unless every line has exactly d fields."""
    edge = buf == sep
    edge |= buf == 10
    ends = np.flatnonzero(edge)
    if ends.size == 0 or ends.size % d:
        return None
    kinds = buf[ends].reshape(-1, d)
    if not (kinds[:, -1] == 10).all() or (d > 1 and not (kinds[:, :-1] == sep).all()):
        return None
    starts = np.empty_like(ends)
    starts[0] = 0
    np.add(ends[:-1], 1, out=starts[1:])
    ends -= starts
    return starts, ends


def _keys(words: np.ndarray, starts: np.ndarray, lengths: np.ndarray, skip: int) -> np.ndarray:
    """Bytes skip..skip+7 of each field as one little-endian integer, the bytes past the field's end masked out
    (no NUL bytes in the file, so distinct fields get distinct keys)."""
    key = words[starts + skip] if skip else words[starts]
    key &= _MASKS[skip][lengths]
    return key


def _row_chunks(body: bytes, size: int):
    """(start, end) byte ranges of whole lines, about ``size`` bytes each, covering ``body``."""
    lo = 0
    while lo < len(body):
        hi = body.find(b"\n", min(lo + size, len(body)) - 1) + 1
        yield lo, hi
        lo = hi


def _token(first: int, second: int) -> bytes:
    """The field whose key words are ``first`` and ``second`` (its bytes, without the zero padding)."""
    return (first.to_bytes(8, "little") + second.to_bytes(8, "little")).rstrip(b"\0")


def _distinct(k1: np.ndarray, k2: np.ndarray | None) -> tuple[list[int], np.ndarray] | None:
    """Row index of each distinct value (in order of first appearance) and each row's value number."""
    n = k1.shape[0]
    code = np.full(n, -1, dtype=np.int64)
    firsts: list[int] = []
    start = 0
    while True:
        rest = np.flatnonzero(code[start:] < 0)
        if rest.size == 0:
            return firsts, code
        if len(firsts) == MAX_DISTINCT:
            return None
        i = start + int(rest[0])
        same = k1 == k1[i]
        if k2 is not None:
            same &= k2 == k2[i]
        code[same] = len(firsts)
        firsts.append(i)
        start = i + 1


def _plain(token: str, missing: frozenset) -> bool:
    """Printable ASCII, not a missing-value token, not a word pandas reads as a number."""
    return token.isascii() and token.isprintable() and token not in missing and (
        token.lstrip("+-").lower() not in _NUMBER_WORDS)


def _column(tokens: list[bytes], code: np.ndarray, missing: frozenset):
    """(values, states) of one column from its distinct tokens, as the pandas path builds them, or None."""
    if all(_INT.fullmatch(t) for t in tokens):
        return np.array([float(int(t)) for t in tokens])[code], None
    if all(t in _BOOL for t in tokens):
        labels = [str(_BOOL[t]) for t in tokens]
    else:
        labels = [t.decode("utf-8") for t in tokens]
        if not all(_plain(t, missing) for t in labels) or not any(t.strip(_NUMBER_CHARS) for t in labels):
            return None  # missing values, or a column that may be numeric: pandas decides
    states = sorted(set(labels))
    index = {s: i for i, s in enumerate(states)}
    return np.array([index[s] for s in labels], dtype=np.int64)[code], tuple(states)


def parse_simple_csv(data: bytes, sep: str, d: int, max_rows: int, missing=()):
    """Columns of the data rows (everything after the first line) of a simple CSV with ``d`` columns: a list of
    (values, states) per column — codes and sorted state labels for categorical columns, float64 values and
    None for numeric ones — or None when the file is not simple (or has no rows, or over ``max_rows`` rows,
    or a value in ``missing``)."""
    missing = frozenset(missing)
    first_end = data.find(b"\n")
    if first_end < 0 or len(sep) != 1 or b'"' in data:
        return None
    body = data[first_end + 1:]
    if b" " in body or (sep != "\t" and b"\t" in body):
        return None
    if not body.endswith(b"\n"):
        body += b"\n"
    if body.startswith(b"\n") or b"\n\n" in body:
        return None  # blank lines: pandas skips them
    n = body.count(b"\n")
    if n == 0 or n > max_rows:
        return None
    buf = np.zeros(len(body) + 16, dtype=np.uint8)  # one copy, zero-padded so every 8-byte read stays inside
    buf[: len(body)] = np.frombuffer(body, dtype=np.uint8)
    words = np.ndarray(shape=(len(body) + 9,), dtype="<u8", buffer=buf, strides=(1,))  # the 8 bytes at each offset
    k1 = np.empty((d, n), dtype=np.uint64)  # each field's bytes 0-7, then (if any field is longer) bytes 8-15
    k2 = None
    row = 0
    for lo, hi in _row_chunks(body, max(1, _CHUNK_BYTES)):  # small working arrays, reused across chunks
        bounds = _field_bounds(buf[lo:hi], ord(sep), d)
        if bounds is None:
            return None
        starts, lengths = bounds
        if lengths.min() == 0 or lengths.max() > 16:
            return None  # empty (missing) fields, or long labels
        starts += lo
        rows = starts.size // d
        k1[:, row: row + rows] = _keys(words, starts, lengths, 0).reshape(rows, d).T
        if lengths.max() > 8:
            if k2 is None:
                k2 = np.zeros((d, n), dtype=np.uint64)  # fields of at most 8 bytes have second word 0
            k2[:, row: row + rows] = _keys(words, starts, lengths, 8).reshape(rows, d).T
        row += rows
    long_cols = set() if k2 is None else set(np.flatnonzero(k2.any(axis=1)).tolist())
    out = []
    for j in range(d):
        found = _distinct(k1[j], k2[j] if j in long_cols else None)
        if found is None:
            return None
        firsts, code = found
        tokens = [_token(int(k1[j, i]), 0 if j not in long_cols else int(k2[j, i])) for i in firsts]
        col = _column(tokens, code, missing)
        if col is None:
            return None
        out.append(col)
    return out
