"""How every page shows a run's privacy: the guarantee in one sentence, what the filter used, the noise
source, and the accounting table in the ledger's one vocabulary (cgdcore.privacy.ledger.STATUS)."""
from __future__ import annotations

import streamlit as st

from cgdcore.privacy.ledger import STATUS

URL = {"bind": "query-params"}


def fmt_eps(v) -> str:
    return "—" if v is None else f"{v:.4g}" if v < 1e5 else f"{v:.3g}"


def guarantee_metrics(pv: dict, cols=None) -> None:
    """Four metrics: the guaranteed ε (or "none"), δ, what the filter used, the releases."""
    c = cols or st.columns(4)
    ok = bool(pv.get("guarantee"))
    c[0].metric("Guaranteed ε", fmt_eps(pv["epsilon"]) if ok else "none",
                help="The run's differential-privacy guarantee, fixed before it started: its budget, or the "
                     "composition of the most releases any run on data of this shape could make."
                     if ok else f"No guarantee: {pv.get('guarantee_note')}")
    c[1].metric("δ", "—" if pv["delta"] is None else f"{pv['delta']:.3g}")
    used = (pv.get("used") or {}).get("epsilon")
    c[2].metric("Used by the filter", fmt_eps(used),
                help="How much of the budget the filter's rule counted for the releases this run made. It depends "
                     "on the data, so it is not a smaller guarantee.")
    c[3].metric("Releases", f"{pv['releases']:,}", help="Privacy-costing releases recorded in the ledger.")


def guarantee_message(pv: dict) -> None:
    """The statement (or why there is none) and, for a fixed noise seed, the demo warning."""
    if pv.get("guarantee"):
        st.success(pv["statement"], icon=":material/verified_user:")
    else:
        st.error(f"**No privacy guarantee.** {pv.get('guarantee_note') or pv['statement']}. The totals below are "
                 "for comparison only.", icon=":material/gpp_bad:")
    noise = pv.get("noise") or {}
    if noise.get("reproducible"):
        st.warning(f"Noise seed {noise['seed']}: {noise['note']}.", icon=":material/casino:")
    elif noise:
        st.caption(f":material/casino: {noise['note'][0].upper()}{noise['note'][1:]}.")


def accounting_table(acc: dict, key: str, with_figure: bool = True) -> None:
    """The guarantee and every comparison total, each with its status and the reason it is (not) a guarantee."""
    from cgdcore import viz_privacy as vp

    if with_figure:
        st.plotly_chart(vp.ledger_totals_figure(acc), key=f"{key}_fig", width="stretch")
    st.dataframe({"total": list(acc), "ε": [a["epsilon"] for a in acc.values()],
                  "δ": [a["delta"] for a in acc.values()], "status": [a.get("status", "") for a in acc.values()],
                  "why": [a["note"] for a in acc.values()]}, hide_index=True, width="stretch", key=f"{key}_table",
                 column_config={"ε": st.column_config.NumberColumn(format="%.4g"),
                                "δ": st.column_config.NumberColumn(format="%.3g"),
                                "why": st.column_config.TextColumn(width="large")})


def status_legend() -> str:
    """One line per status, for captions."""
    return " ".join(f"**{k}** — {v}." for k, v in STATUS.items())


def noise_seed_input(key: str, default_fixed: bool = False):
    """(seed or None, draw number): fresh operating-system entropy unless the user fixes a seed (a reproducible
    demo); "Draw new noise" asks for another fresh draw of the same settings."""
    fixed = st.toggle("Fix the noise seed (reproducible demo)", value=default_fixed, key=f"{key}_fixed",
                      help="Off: the noise comes from fresh operating-system entropy and its seed is never shown. "
                           "On: the same seed gives the same noise — reproducible, but not private against anyone "
                           "who knows the seed.", **URL)
    if fixed:
        seed = int(st.number_input("Noise seed", min_value=0, max_value=2**31 - 1, value=0, step=1, key=key, **URL))
        return seed, 0
    draws = st.session_state.setdefault(f"{key}_draws", 0)
    if st.button("Draw new noise", key=f"{key}_redraw", icon=":material/casino:",
                 help="Run the same settings again with fresh noise."):
        st.session_state[f"{key}_draws"] = draws = draws + 1
    return None, draws
