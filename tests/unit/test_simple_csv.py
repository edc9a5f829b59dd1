"""The pandas-free CSV path gives exactly the Dataset of the pandas path, and hands every file it does not cover
to pandas (whose checks and messages then apply)."""
from __future__ import annotations

import numpy as np
import pytest

import cgdcore.data.tabular as tab
from cgdcore.data import load_dataset
from cgdcore.data.registry import NETWORKS
from cgdcore.data.simple_csv import MAX_DISTINCT, parse_simple_csv


def _both(data: bytes):
    """(fast-path result or None, Dataset via load_csv, Dataset via the pandas path only)."""
    start = len(data) - len(data.lstrip())
    first = data[start:].split(b"\n", 1)[0].decode()
    sep = tab._sniff_separator(first)
    fast = parse_simple_csv(data[start:], sep, len(first.split(sep)), tab.MAX_ROWS, tab.MISSING_TOKENS)
    ds = tab.load_csv(data)
    orig = tab.parse_simple_csv
    tab.parse_simple_csv = lambda *a: None
    try:
        ref = tab.load_csv(data)
    finally:
        tab.parse_simple_csv = orig
    return fast, ds, ref


def _same(a, b):
    assert a.variables == b.variables and a.states == b.states and a.notes == b.notes and a.name == b.name
    assert a.data.dtype == b.data.dtype and a.data.shape == b.data.shape
    np.testing.assert_array_equal(a.data, b.data)


def _csv(ds, codes: bool) -> bytes:
    return ds.to_frame(codes=codes).iloc[:, : tab.MAX_COLUMNS].to_csv(index=False).encode()


# win95pts has labels over 16 bytes ('Yes__Network_printer_'), water 'mg_l'-style labels mixed with numbers
# (handled), child labels with symbols ('<5', '12+', 'Asy/Patch', handled)
_LONG_LABELS = {"win95pts"}


@pytest.mark.parametrize("net", list(NETWORKS))
def test_every_shipped_network_same_dataset(net):
    ds = load_dataset(net, n=400, seed=3)
    for codes in (False, True):
        fast, got, ref = _both(_csv(ds, codes))
        _same(got, ref)
        assert (fast is None) == (net in _LONG_LABELS and not codes), (net, codes)
    if net not in _LONG_LABELS:
        np.testing.assert_array_equal(got.data, ds.data[:, : tab.MAX_COLUMNS])  # the codes file: numbers


@pytest.mark.parametrize("text, simple", [
    (b"a,b,c\nTRUE,x,1\nFALSE,y,-2\n", True),            # boolean column: pandas' labels 'False'/'True'
    (b"a,b\ntrue,1\nFalse,007\n", True),                   # any case of the boolean words; leading zeros
    (b"a,b\nTrue,1\nx,True\n", True),                      # mixed with labels: the words stay text
    (b"a,b\n1,yes\n2,3\n", True),                          # numbers among labels: text, sorted as text
    (b"a,b\n5-12,x\n12+,y\n<5,x\n", True),                 # symbols
    (b"a,b\n5-12,x\n12+,y\n", None),                       # could be numbers: pandas decides
    (b"a,b\n1e5,x\n2,y\n", None),                          # a float
    (b"a,b\n1.5,x\n2,y\n", None),
    (b"a,b\nx,Infinity\ny,z\n", None),
    (b"a,b\nNA,x\n2,y\n", None),                           # missing values
    (b"a,b\n?,x\nu,y\n", None),
    (b"a,b\n1,\n2,y\n", None),                             # empty field
    (b"a,b\n1, x\n2,y\n", None),                           # spaces
    (b'a,b\n"1",x\n2,y\n', None),                          # quotes
    (b"a,b\n1,x\n\n2,y\n", None),                          # blank line
    (b"a;b\nu;1\nv;2", True),                              # no final newline, semicolons
    (b"a\tb\nu\t1\nv\t2\n", True),                         # tabs
    (b"\n\na,b\nu,1\nv,2\n", True),                        # blank lines before the header
    (b"a,b\nabcdefghijklmnop,1\nabcdefghijklmnoq,2\nabcdefgh,3\n", True),   # 16-, 8-byte labels
    (b"a,b\nabcdefghijklmnopq,1\nx,2\n", None),            # 17 bytes
    ("a,b\ncafé,1\nthé,2\n".encode(), None),               # non-ASCII
    (b"a,b\n1234567890123456,1\n2,2\n", None),             # 16 digits: beyond the exact integer rule
])
def test_edge_cases_match_pandas(text, simple):
    fast, got, ref = _both(text)
    _same(got, ref)
    assert (fast is not None) == bool(simple)


def test_infinity_goes_to_pandas_and_is_refused():
    assert parse_simple_csv(b"a,b\ninf,x\n2,y\n", ",", 2, tab.MAX_ROWS) is None
    with pytest.raises(tab.UserError, match="infinite"):
        tab.load_csv(b"a,b\ninf,x\n2,y\n")


def test_many_distinct_values_go_to_pandas():
    rows = "\n".join(f"v{i},{i % 2}" for i in range(MAX_DISTINCT + 1))
    fast, got, ref = _both(f"a,b\n{rows}\n".encode())
    assert fast is None
    _same(got, ref)
    rows = "\n".join(f"v{i},{i % 2}" for i in range(MAX_DISTINCT))
    fast, got, ref = _both(f"a,b\n{rows}\n".encode())
    assert fast is not None
    _same(got, ref)


@pytest.mark.parametrize("text, words", [
    (b"a,b,c\n1,2,3\n4,5,6\n7,8\n9,10,11\n", "line 4"),    # short row
    (b"a,b\n1,2\n3,4,5\n6,7\n", "line 3"),                 # long row
    (b"a,b\nx,1\ny,2\nz\n", "line 4"),
])
def test_bad_rows_keep_the_pandas_messages(text, words):
    assert parse_simple_csv(text, ",", len(text.split(b"\n")[0].split(b",")), tab.MAX_ROWS) is None
    with pytest.raises(tab.UserError, match=words):
        tab.load_csv(text)
