"""Download rows under a result: every table as CSV or JSON and every figure as self-contained HTML.

Text cells pass through :func:`cgdcore.exports.csv_text` (spreadsheet formulas neutralised); figures through
:func:`cgdcore.exports.figure_html` (plotly.js inlined, opens offline). Every file is written when its button is
clicked (:func:`when_clicked`), not each time the page draws.
"""
from __future__ import annotations

import json
from functools import partial

import streamlit as st

from cgdcore.exports import csv_text, figure_html


def ledger_table(ledger):
    """Every release a run's ledger recorded: mechanism, ε, δ, order, group and what was released."""
    import pandas as pd

    return pd.DataFrame([{"mechanism": r.mechanism, "ε": r.epsilon, "δ": r.delta, "order": r.order,
                          "group": r.group, "released": r.what} for r in ledger.releases])


def ledger_csv(ledger) -> str:
    """:func:`ledger_table` as CSV."""
    return csv_text(ledger_table(ledger))


def trace_csv(records) -> str:
    """A run's CI-test trace records (``discover --json --trace``) as CSV, a separating set as space-separated names."""
    import pandas as pd

    return csv_text(pd.DataFrame(records).assign(S=[" ".join(r["S"]) for r in records]))


def parquet_bytes(frame) -> bytes:
    """``frame`` as a Parquet file."""
    import io

    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def json_text(obj) -> str:
    """JSON of a result object (numpy numbers and arrays written as plain numbers and lists)."""
    def plain(o):
        if hasattr(o, "tolist"):
            return o.tolist()
        if hasattr(o, "item"):
            return o.item()
        return str(o)

    return json.dumps(obj, indent=2, default=plain)


def when_clicked(write, *args, **kwargs):
    """A download button's ``data`` that calls ``write(*args)`` when the button is clicked: Streamlit runs it then, on a
    thread of its own, and keeps only the function meanwhile. Written at every drawing instead, a figure's file (its
    ~4.7 MB of plotly.js), a trace or privatised records as CSV would cost the page's script that work, and the
    server that memory for the session's life, whether or not anyone downloads them."""
    return partial(write, *args, **kwargs)


def _file(kind: str, payload, label: str) -> str:
    """The text of one download of :func:`download_row`."""
    if kind == "csv":
        return csv_text(payload)
    if kind == "json":
        return json_text(payload)
    if kind == "html":
        return figure_html(payload, label)
    return payload


#: the MIME type of each kind of download
MIME = {"csv": "text/csv", "json": "application/json", "html": "text/html"}

#: download buttons side by side in one row
PER_ROW = 3


def download_row(items, key: str) -> None:
    """One button per ``(label, kind, payload, file name)``; kind is csv (a table), json (an object), html (a
    figure, titled by the label) or text (already rendered). At most :data:`PER_ROW` buttons side by side (five in a
    row cut their labels short on a 1400-px screen), the rest in rows below."""
    per_row = min(len(items), PER_ROW)
    cols = [c for start in range(0, len(items), per_row) for c in st.columns(per_row)]
    for i, (col, (label, kind, payload, fname)) in enumerate(zip(cols, items)):
        col.download_button(label, when_clicked(_file, kind, payload, label), fname, MIME.get(kind, "text/plain"),
                            key=f"{key}_{i}", on_click="ignore", icon=":material/download:")
