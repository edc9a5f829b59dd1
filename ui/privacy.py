"""How every page shows a run's privacy: the guarantee in one sentence, what the filter used, the noise
source, and the accounting table in the ledger's one vocabulary (cgdcore.privacy.ledger.STATUS)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from cgdcore.exports import markdown_literal
from cgdcore.privacy.ledger import STATUS, compare_to_guarantee, readable, verdict, weakness

if TYPE_CHECKING:
    from cgdcore.discovery import Privacy

URL = {"bind": "query-params"}

def fmt_eps(v) -> str:
    return readable(v)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def guarantee_metrics(pv: Privacy, cols=None) -> None:
    """Four metrics: the guaranteed ε (or "none"), δ, what the filter used, the releases."""
    c = cols or st.columns(4)
    ok = bool(pv.guarantee)
    c[0].metric("Guaranteed ε", fmt_eps(pv.epsilon) if ok else "none",
                help="The run's differential-privacy guarantee, fixed before it started: its budget, or the "
                     "composition of the most releases any run on data of this shape could make."
                     if ok else f"No guarantee: {pv.guarantee_note}")
    c[1].metric("δ", readable(pv.delta))
    used = pv.used_epsilon
    c[2].metric("ε used", fmt_eps(used),
                help="The composition rule at the releases this run made (how much of a budget the filter counted). "
                     "It depends on the data, so it is not a smaller guarantee.")
    c[3].metric("Releases", f"{pv.releases:,}", help="Privacy-costing releases recorded in the ledger.")
    filter_state(pv)


def filter_state(pv: Privacy) -> None:
    """How full the budget filter is: Σε (or ρ under zCDP) recorded against what the budget allows."""
    if pv.budget is None:
        return
    z = pv.zcdp
    if z and z.get("rho_budget"):
        used, cap = z["rho_used"], z["rho_budget"]
        text = (f"zCDP filter: ρ used {readable(used)} of ρ = {readable(cap)} (the budget ε = {readable(pv.budget)} "
                f"at δ = {readable(pv.delta)}: ε = ρ + 2√(ρ ln(1/δ)))")
    else:
        used, cap = pv.used_epsilon or 0.0, pv.budget
        text = f"{pv.rule}-composition filter: ε used {readable(used)} of the budget {readable(cap)}"
    if not pv.guarantee:  # the filter still capped the ledger, whose numbers bound nothing here
        text += " — no guarantee: what it counts bounds nothing"
    st.progress(min(1.0, used / cap) if cap else 0.0, text=text)


def guarantee_message(pv: Privacy, n: int | None = None) -> None:
    """The statement (or why there is none), in amber when it holds but protects little (ε above 10, or δ above
    1/n, which a mechanism publishing one row in full would meet), and for a fixed noise seed the demo warning."""
    if not pv.guarantee:
        st.error(f"**No privacy guarantee.** {_sentence(pv.guarantee_note or pv.statement)}. The totals "
                 "below are for comparison only.", icon=":material/gpp_bad:")
    else:
        weak = weakness(pv.epsilon, pv.delta, n)
        if weak:
            st.warning(f"{pv.statement} {weak}", icon=":material/shield:")
        else:
            st.success(pv.statement, icon=":material/verified_user:")
    noise_message(pv.noise)


def noise_message(noise: dict | None) -> None:
    """How a release's noise was seeded (cgdcore.privacy.noise_info): a fixed seed's demo warning, or fresh
    entropy's note."""
    noise = noise or {}
    if noise.get("reproducible"):
        st.warning(f"Noise seed {noise['seed']}: {noise['note']}.", icon=":material/casino:")
    elif noise:
        st.caption(f":material/casino: {noise['note'][0].upper()}{noise['note'][1:]}.")


def accounting_table(acc: dict, key: str, with_figure: bool = True) -> None:
    """The guarantee and every comparison total, each with its status and the reason it is (not) a guarantee."""
    from cgdcore.viz import privacy as vp

    if with_figure:
        st.plotly_chart(vp.ledger_totals_figure(acc), key=f"{key}_fig", width="stretch")
    # one row per total, its verdict in the one vocabulary (cgdcore.privacy.ledger.verdict), and the full reason
    # ε and δ written as everywhere else on the page (readable: 14,704, not 14700), so table, chart and prose agree.
    # A static table wraps its cells, so a reason of 200 characters reads whole at a 1,400 px window (a data grid
    # shows one line of it and scrolls sideways to its column).
    st.table({"total": [markdown_literal(k) for k in acc], "ε": [readable(a["epsilon"]) for a in acc.values()],
              "δ": [readable(a["delta"]) for a in acc.values()],
              "guarantee?": [verdict(a.get("status", "guarantee" if a["valid"] else "realised")) for a in acc.values()],
              "how it is computed, and why": [markdown_literal(a["note"]) for a in acc.values()]},
             hide_index=True)


def paper_vs_guarantee(pv: Privacy) -> str:
    """One sentence per paper formula in a run's accounting: its value and where it lies against the run's
    guarantee and budget, said from the numbers (so the prose never contradicts the chart beside it)."""
    acc = pv.accounting
    g = acc.get("guarantee")
    g = g if g is not None and g.get("status") == "guarantee" else None  # "no guarantee": nothing to compare with
    papers = [(k, a) for k, a in acc.items() if a.get("status") == "as in paper"]
    if not papers:
        return "no paper formula applies to this run."
    out = []
    for k, a in papers:
        where = compare_to_guarantee(a["epsilon"], g["epsilon"] if g else None, pv.budget)
        out.append(f"{k} gives ε = {readable(a['epsilon'])}, {where}")
    if g is not None and any(a["epsilon"] < g["epsilon"] for _, a in papers):
        tail = ("; a paper formula below the guarantee understates what the run can be held to, because it counts "
                "only the releases this run made")
    elif g is not None:
        tail = ("; a paper formula above the guarantee is a larger number for the same releases, not a larger "
                "privacy loss: the guarantee holds")
    else:
        tail = ""
    return "; ".join(out) + tail + "."


def per_order_sum(pv: Privacy) -> str:
    """What the per-order bars add up to, against the run's guarantee, from the numbers: the bars are Σε of each
    order's releases, and the filter's rule composes all of them into less than their sum."""
    total = sum(r["epsilon"] for r in pv.per_order)
    head = f"The bars add up to Σε = {readable(total)} over {pv.releases:,} releases (basic composition)"
    if not pv.guarantee or pv.epsilon is None or total <= pv.epsilon * (1 + 1e-9):
        return head + "."
    how = ("in zCDP, where ρ adds up and ε = ρ + 2√(ρ ln(1/δ)) grows more slowly than the releases' ε"
           if pv.rule == "zcdp" else f"by {pv.rule} composition, which grows like √k for k releases, not like k")
    return (f"{head}, above the guarantee ε = {readable(pv.epsilon)}: not an overspend. The filter composes all the "
            f"releases {how}, so the same releases fit within the budget (the totals above).")


def sweep_deltas(table, name=str) -> tuple[dict[str, float], list[str]]:
    """Each private algorithm's δ in a sweep's table (``name`` writes its label), and the δ that protect little by
    :func:`cgdcore.privacy.ledger.weak_reasons` (above 1/n at the table's largest n), one reason each."""
    from cgdcore.privacy.ledger import weak_reasons

    runs = table[(table["epsilon_kind"] != "none") & table["error"].isna()]
    runs = runs[runs["delta_total"].notna()]
    if runs.empty:
        return {}, []
    n = int(runs["n"].max())
    deltas = {a: float(d) for a, d in runs.groupby("algorithm", sort=False)["delta_total"].max().items()}
    return ({name(a): d for a, d in deltas.items()},
            [f"for {name(a)}, {r}" for a, d in deltas.items() for r in weak_reasons(None, d, n)])


def status_legend() -> str:
    """The one vocabulary, for captions: each total is the guarantee or not a guarantee, with its reason."""
    return " ".join(f"**{verdict(k)}** — {v}." if k == "guarantee" else
                    f"**{verdict(k)}** — {v[len('not a guarantee: '):] if v.startswith('not a guarantee: ') else v}."
                    for k, v in STATUS.items())


def noise_seed_input(key: str):
    """(seed or None, draw number): fresh operating-system entropy unless the user fixes a seed (a reproducible
    demo); "Draw new noise" asks for another fresh draw of the same settings. A link naming a seed (``?nseed=3``)
    fixes it: the toggle is switched on for the session, so the address then says so (``nseed_fixed=true``) even
    where it leaves the seed out (the default, 0), and a copied link gives the same noise."""
    flag = f"{key}_fixed"
    if key in st.query_params and flag not in st.session_state:
        st.session_state[flag] = True
        st.query_params[flag] = "true"  # as if the link had said it: the toggle does not write a value set here
    fixed = st.toggle("Fix the noise seed (reproducible demo)", key=flag,
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
