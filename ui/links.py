"""Settings a link may name by value where the page's control shows a label.

A control bound to the address writes the label it shows (``?salgo=DP-NOTEARS+(noleaks)``), and reads only labels,
so a link naming the option by value (``?salgo=noleaks``, older links, the command line's names) would be refused.
:func:`canonical_link` has the browser open such a link again with the labels as the page starts, replacing it in the
browser's history (``location.replace``): the controls then read the labels, the address keeps them, so a reload
or a copied link opens the same run, and Back does not lead to the old form. Streamlit offers no way to rewrite an
address without a new history entry (``st.switch_page`` adds one, and Back to the old form then reran the page
with the setting refused). That first run draws nothing else; where no script runs (AppTest, a browser without
scripts), the session's next run draws the link as it is: :func:`ui.common.url_accepts_names` seeds the control.
"""
from __future__ import annotations

import streamlit as st

#: the Score page's algorithms, as the command line names them
SCORE_ALGOS = ["notears", "noleaks", "curate-score"]
#: Discover's private CI tests and their labels
PRIVATE_TESTS = {"kendall": "Kendall τ (small sensitivity)", "g2": "G-test (sees any dependence)"}
#: the Local page's scenarios under the names older links give them (cut off in the sidebar's select box) → today's
LOCAL_SCENARIOS_RENAMED = {
    "Sachs, real data (paper: 10 equal-width bins of log intensity)": "Sachs, real data",
    "Synthetic linear SEM, 10 variables (paper's Synth10-like)": "Synthetic SEM, 10 variables",
    "Sachs network (bnlearn, 3 states per protein)": "Sachs network, 3 states",
}


def link_labels() -> dict[str, dict[str, str]]:
    """Setting → {value: label shown} for every control whose label differs from its value (or whose option
    was renamed)."""
    from cgdcore.discover import algo_label
    from cgdcore.experiments import X_AXIS_NAMES
    from cgdcore.viz.sweep import METRICS

    return {"salgo": {a: algo_label(a) for a in SCORE_ALGOS}, "private_test": dict(PRIVATE_TESTS),
            "tox": dict(X_AXIS_NAMES), "tometric": dict(METRICS), "lscen": dict(LOCAL_SCENARIOS_RENAMED)}


def canonical_link() -> None:
    """Before the page draws: if the link names a setting by value, open it again with the labels (see above)."""
    import json
    from urllib.parse import urlencode

    link = {k: st.query_params.get_all(k) for k in st.query_params}
    labels = link_labels()
    named = {k: [labels[k].get(v, v) for v in vs] if k in labels else vs for k, vs in link.items()}
    if named == link or st.session_state.get("_link_renamed"):  # once: if the page comes back, it draws as it is
        return
    st.session_state["_link_renamed"] = True
    target = json.dumps("?" + urlencode(named, doseq=True)).replace("</", "<\\/")  # the same page, a query only
    st.html(f"<script>location.replace({target} + location.hash);</script>", unsafe_allow_javascript=True)
    # nothing else is drawn or computed: the browser leaves this session at once; its next run, if any (no browser
    # script: AppTest), draws the link as it is
    st.stop()
