"""Download rows under a result: every table as CSV or JSON and every figure as self-contained HTML.

Text cells pass through :func:`cgdcore.exports.csv_text` (spreadsheet formulas neutralised); figures through
:func:`cgdcore.exports.figure_html` (plotly.js inlined, opens offline).
"""
from __future__ import annotations

import json

import streamlit as st

from cgdcore.exports import csv_text, figure_html


def ledger_table(ledger):
    """Every release a run's ledger recorded: mechanism, ε, δ, order, group and what was released."""
    import pandas as pd

    return pd.DataFrame([{"mechanism": r.mechanism, "ε": r.epsilon, "δ": r.delta, "order": r.order,
                          "group": r.group, "released": r.what} for r in ledger.releases])


def json_text(obj) -> str:
    """JSON of a result object (numpy numbers and arrays written as plain numbers and lists)."""
    def plain(o):
        if hasattr(o, "tolist"):
            return o.tolist()
        if hasattr(o, "item"):
            return o.item()
        return str(o)

    return json.dumps(obj, indent=2, default=plain)


#: download buttons side by side in one row
PER_ROW = 3


def download_row(items, key: str) -> None:
    """One button per ``(label, kind, payload, file name)``; kind is csv (a table), json (an object), html (a
    figure, titled by the label) or text (already rendered). At most :data:`PER_ROW` buttons side by side (five in a
    row cut their labels short on a 1400-px screen), the rest in rows below."""
    per_row = min(len(items), PER_ROW)
    cols = [c for start in range(0, len(items), per_row) for c in st.columns(per_row)]
    for i, (col, (label, kind, payload, fname)) in enumerate(zip(cols, items)):
        if kind == "csv":
            data, mime = csv_text(payload), "text/csv"
        elif kind == "json":
            data, mime = json_text(payload), "application/json"
        elif kind == "html":
            data, mime = figure_html(payload, label), "text/html"
        else:
            data, mime = payload, "text/plain"
        col.download_button(label, data, fname, mime, key=f"{key}_{i}", on_click="ignore",
                            icon=":material/download:")
