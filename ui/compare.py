"""Discover's side-by-side comparison: pin a run, change the settings, see both runs and the edges that differ.

The pinned run lives in the session; its settings travel in the link as ``pin`` (the pinned page's own query
string), so a shared link says what the other run was and opens it in one click.
"""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from cgdcore.exports import markdown_literal
from cgdcore.metrics import edge_differences
from cgdcore.privacy.ledger import readable


def _settings_link(params: dict) -> str:
    return "?" + urlencode(params, doseq=True)


def run_label(res) -> str:
    """One line that names a run: algorithm, data and budget."""
    p = res.params
    eps = (res.privacy or {}).get("budget") or p.get("epsilon") or p.get("round_epsilon")
    budget = "" if not eps else f", ε = {eps:g}" + (" per round" if p.get("round_epsilon") and not p.get("epsilon")
                                                   else "")
    test = f", {p['ci_test']}" if p.get("ci_test") else ""
    order = "" if p.get("max_order") is None else f", max order {p['max_order']}"
    return (f"{res.algorithm} on {res.dataset.name} (n = {res.dataset.n:,}{test}{budget}, α = {p.get('alpha', '—')}"
            f"{order})")


def _current_link() -> dict:
    return {k: st.query_params.get_all(k) for k in st.query_params if k != "pin"}


def pin_controls(res, run_key) -> None:
    """The Pin / Unpin buttons under a result."""
    pinned = st.session_state.get("pinned")
    c1, c2, c3 = st.columns([1, 1, 3])
    if c1.button("Pin this run", key="pin_run", icon=":material/push_pin:",
                 help="Keep this run; change any setting and the page shows both side by side, with the edges that "
                      "differ. The link then carries the pinned run's settings too."):
        link = _current_link()
        st.session_state["pinned"] = {"res": res, "key": run_key, "label": run_label(res), "link": link}
        st.query_params["pin"] = urlencode(link, doseq=True)
        pinned = st.session_state["pinned"]
    if pinned is not None:
        if c2.button("Unpin", key="unpin_run", icon=":material/close:"):
            st.session_state.pop("pinned", None)
            st.query_params.pop("pin", None)
            pinned = None
        else:
            c3.caption(f"Pinned: **{markdown_literal(pinned['label'])}**" + (" — this run" if pinned["key"] == run_key else ""))
    elif "pin" in st.query_params:
        c3.caption(f"This link compares with a pinned run: [open its settings](?{st.query_params['pin']}), pin it "
                   "there, then come back.")


def _guarantee(pv) -> str:
    """The run's guarantee in a few words: its ledger's statement, a local release's ε-LDP, or none."""
    if pv is None:
        return "not private"
    if pv.model == "local":
        return f"ε = {readable(pv.epsilon)} local DP per record ({pv.json.get('mechanism')})"
    return pv.statement or "encrypted, no DP"


def _row(res) -> dict:
    m = res.metrics or {}
    pv = res.privacy
    used = pv.used_epsilon if pv else None
    num = lambda v, f="{:.3f}": "—" if v is None else f.format(v)  # noqa: E731
    return {"settings": run_label(res), "skeleton F1": num(m.get("skeleton_f1")), "arc F1": num(m.get("arc_f1")),
            "SHD": num(m.get("shd"), "{}"), "learned edges": str(len(res.edges())),
            "CI tests": f"{res.result.n_ci_tests:,}",
            "guarantee": _guarantee(pv),
            "ε used": num(used, "{:.4g}"), "seconds": f"{res.seconds:.3f}"}


def compare_panel(res, run_key, draw_graph) -> None:
    """Both runs' numbers, graphs (``draw_graph(result, key)`` draws one) and the edges that differ, when a pinned
    run exists and is not this one."""
    pinned = st.session_state.get("pinned")
    if pinned is None or pinned["key"] == run_key:
        return
    a = pinned["res"]
    st.subheader("Pinned run and this run")
    import pandas as pd

    table = pd.DataFrame([_row(a), _row(res)], index=["pinned", "this run"]).T
    st.dataframe(table, width="stretch")
    if tuple(a.variables) != tuple(res.variables):
        st.info("The two runs are on different variables, so their graphs cannot be compared edge by edge.",
                icon=":material/info:")
        return
    left, right = st.columns(2)
    with left:
        st.caption(f"**Pinned** — {markdown_literal(pinned['label'])} · [its settings]({_settings_link(pinned['link'])})")
        draw_graph(a, "graph_pinned")
    with right:
        st.caption(f"**This run** — {markdown_literal(run_label(res))}")
        draw_graph(res, "graph_current")
    diff = edge_differences(a.cpdag, res.cpdag, list(res.variables))
    if not diff:
        st.success("Both runs learned the same graph.", icon=":material/check:")
    else:
        st.markdown(f"**{len(diff)} pair{'s' if len(diff) != 1 else ''} differ** (their SHD):")
        st.dataframe(pd.DataFrame(diff).rename(columns={"a": "pinned", "b": "this run", "change": "what changed"})
                     .replace({"only in a": "only in the pinned run", "only in b": "only in this run"}),
                     hide_index=True, width="stretch")
