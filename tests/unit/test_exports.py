"""Exports and labels with hostile column names: no formula runs in a spreadsheet, no markup in a page."""
import csv
import io

import numpy as np
import pandas as pd
import pytest

from cgdcore.exports import csv_text, neutralise

HOSTILE = ['<script>alert(1)</script>', '=cmd|" /C calc"!A0', '@SUM(1+1)*cmd', '+1-2', '-3+HYPERLINK("x")',
           'x"y,z']


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    from cgdcore.data.tabular import load_csv
    from cgdcore.discover import discover

    rng = np.random.default_rng(0)
    n = 3000
    a = rng.integers(0, 2, n)
    cols = {HOSTILE[0]: a, HOSTILE[1]: (a ^ (rng.random(n) < 0.1)).astype(int)}
    for name in HOSTILE[2:]:
        cols[name] = rng.integers(0, 2, n)
    path = tmp_path_factory.mktemp("hostile") / "hostile.csv"
    pd.DataFrame(cols).to_csv(path, index=False)
    ds = load_csv(str(path))
    assert [v.strip() for v in ds.variables] == [h.strip() for h in HOSTILE]
    return discover(ds, algo="pc")


def test_neutralise_follows_owasp():
    for s in ("=1+1", "+1", "-1", "@A1", "\t=1", "\r=1"):
        assert neutralise(s) == "'" + s
    for s in ("a=1", "1", " x", ""):
        assert neutralise(s) == s
    assert neutralise(-1.5) == -1.5  # numbers stay numbers


def _cells(text):
    return [c for row in csv.reader(io.StringIO(text)) for c in row]


def test_csv_exports_never_start_a_cell_with_a_formula(hostile):
    from cgdcore import viz

    names = hostile.variables
    edges = viz.edge_list_csv(viz.edge_table(hostile.cpdag, None, names), names)
    trace = csv_text(pd.DataFrame(hostile.trace_json()).assign(S=[" ".join(r["S"]) for r in hostile.trace_json()]))
    table = csv_text(pd.DataFrame({HOSTILE[1]: ["=2+2", "ok"], "value": [-1.0, 2.0]}))
    for text in (edges, trace, table):
        cells = _cells(text)
        assert cells and not any(c.startswith(("=", "+", "@", "\t", "\r")) for c in cells), text
        assert not any(c.startswith("-") and not _number(c) for c in cells), text
    assert "'" + HOSTILE[1] in _cells(edges)
    assert "-1.0" in _cells(table)  # a negative number is not text


def _number(c):
    try:
        float(c)
        return True
    except ValueError:
        return False


def test_dot_html_and_figure_escape_names(hostile):
    from cgdcore import viz

    names = hostile.variables
    dot = viz.to_dot(hostile.cpdag, None, names)
    # every quoted DOT string is closed where it should be: the quotes inside names are escaped
    assert '"=cmd|\\" /C calc\\"!A0"' in dot and 'x\\"y,z' in dot
    html = viz.pyvis_html(hostile.cpdag, None, names)
    assert "<script>alert(1)</script>" not in html
    fig = viz.graph_figure(hostile.cpdag, None, names)
    assert "<script>" not in fig.to_json()
