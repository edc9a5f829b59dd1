"""Local privacy: privatise every record before discovery (k-RR and geometric mechanisms), naive vs de-biased."""
import numpy as np
import streamlit as st

from cgdcore.local.privatize import MECHANISMS
from cgdcore.metrics import CONVENTIONS
from cgdcore.privacy.ledger import ODDS_GROWTH, WEAK_EPSILON, readable
from ui.downloads import download_row
from ui.widgets import lazy_tabs
from ui.common import (checked_url_settings, explain, load_dataset, route_through_app, run_cached, run_discovery,
                       session_id, user_errors)
from ui.privacy import noise_message, noise_seed_input

route_through_app()

URL = {"bind": "query-params"}

st.title("Local privacy")
st.caption("Every person privatises their own record before it leaves their hands; discovery then works on the "
           "noisy records. Compare the mechanisms of Binkyte et al. (CLeaR 2024) at the same privacy level P (the "
           "paper's measure: equal P is not equal ε, and both are shown), and a channel-aware CI test that undoes "
           "the noise.")

explain(
    "What am I looking at?",
    """
**k-RR** keeps a value with probability p = e^ε/(k − 1 + e^ε) and otherwise reports one of the other k − 1 values
uniformly. **C-wise** privatises each column separately (ε split in proportion to the column sizes); **Comb**
privatises the whole record as one value of the product domain — for 11 columns of 10 bins that is 10¹¹ values.
The **bounded geometric** mechanism reports a *nearby* value, P[y | x] ∝ e^{−ε_x |y − x|}, resampled inside the
domain; in the paper's mode ε_x is tuned for each x so that the true value is reported with probability p_max.

The paper compares mechanisms at the same **privacy level** P: the chance that an attacker who sees a report
guesses the whole true record in one try. Equal P is *not* equal ε: the geometric channel's true ε-LDP (the largest
log-ratio of report probabilities between two records) is many times larger, because far-apart values are almost
never confused. Both numbers are shown.

**Naive** (the paper): run PC on the privatised records. Noise on a conditioning variable S leaves x and y
dependent through the true S, so PC keeps edges it should remove. **De-biased** (ours): estimate the true table
of (x, y, S) by inverting the known channel (or by IBU), run the G-test on the estimate and calibrate its p-value
for the added noise — by a parametric bootstrap under the null or with an effective sample size.
""",
    latex=[r"\text{k-RR: } P[y\mid x] = \begin{cases} \frac{e^\epsilon}{k-1+e^\epsilon} & y = x\\ "
           r"\frac{1}{k-1+e^\epsilon} & y \ne x\end{cases}\qquad "
           r"\text{Geo: } P[y\mid x] = p_{\max} e^{-\epsilon_x \|y-x\|_1},\ \sum_y P[y\mid x] = 1",
           r"P = \frac{1}{|X|}\sum_y \max_x C(x,y)\qquad \epsilon_{\text{LDP}} = \max_{y,x,x'} "
           r"\ln\frac{C(x,y)}{C(x',y)}",
           r"\hat f = (\textstyle\bigotimes_a C_a)^{-\top}\hat q\ \to\ \Pi_{\Delta}(\hat f),\qquad "
           r"T^*_1..T^*_B \text{ under } \hat\theta_0 = \hat\theta(x,S)\hat\theta(y,S)/\hat\theta(S):\ "
           r"p = P\big[g\,\chi^2_h \ge T\big],\ g = \tfrac{\mathrm{var}\,T^*}{2\,\overline{T^*}},\ "
           r"h = \tfrac{2\,\overline{T^*}^2}{\mathrm{var}\,T^*}"],
)

#: scenario (named short enough for the sidebar's select box; older links' longer names: ui.links) → (dataset, default
#: rows or None for all, default bins or None for discrete data, bin the log) and what the scenario is
SCENARIOS = {
    "Sachs, real data": ("sachs-cont", None, 10, True),
    "Synthetic SEM, 10 variables": ("synthetic:d=10,degree=2", 5000, 10, False),
    "Sachs network, 3 states": ("sachs", 20000, None, False),
    "Asia network (8 binary variables)": ("asia", 20000, None, False),
}
ABOUT = {
    "Sachs, real data": "853 rows: the observational cd3cd28 condition, each protein's log intensity in equal-width "
                        "bins (the paper's 10 by default).",
    "Synthetic SEM, 10 variables": "A linear Gaussian SEM of 10 variables, like the paper's Synth10, in equal-width "
                                   "bins.",
    "Sachs network, 3 states": "Rows sampled from bnlearn's Sachs network: 11 proteins, 3 states each.",
    "Asia network (8 binary variables)": "Rows sampled from bnlearn's Asia network.",
}

with checked_url_settings(), st.sidebar:
    st.header("Data")
    scen = st.selectbox("Scenario", list(SCENARIOS), key="lscen", **URL)
    spec, n_default, bins, log = SCENARIOS[scen]
    st.caption(ABOUT[scen])
    if n_default is None:
        n = None
    else:
        n = int(st.number_input("Rows (n)", min_value=200, max_value=200_000, value=n_default, step=1000, key="ln",
                                **URL))
    if bins:
        bins = int(st.number_input("Equal-width bins per column" + (" (of log intensity)" if log else ""),
                                   min_value=2, max_value=20, value=bins, key="lbins", **URL))
    st.header("Mechanism")
    mech = st.radio("Local mechanism", list(MECHANISMS), key="lmech", help="\n\n".join(
        f"**{k}**: {v}" for k, v in MECHANISMS.items()), **URL)
    mode = st.radio("Privacy parameter", ["privacy level P", "ε"], horizontal=True, key="lmode", **URL)
    if mode == "ε":
        value = float(st.number_input("ε (geometric: per unit of distance)", min_value=0.01, max_value=500.0,
                                      value=20.0 if mech.startswith("krr") else 1.0, step=0.5, format="%g",
                                      key="leps", **URL))
        ldp = {"mechanism": mech, "epsilon": value}
    else:
        value = float(st.select_slider("P: chance of guessing a whole record", options=[0.01, 0.02, 0.05, 0.1, 0.2,
                                       0.3, 0.5, 0.7, 0.8, 0.9, 0.95], value=0.1, key="lpmax", **URL))
        ldp = {"mechanism": mech, "p_max": value}
    lseed, ldraw = noise_seed_input("lnseed")  # fresh entropy unless a reproducible demo is asked for
    st.header("Discovery")
    naive_test = st.selectbox("Naive CI test", ["fisherz", "g2", "chi2"], key="ltest",
                              help="The paper uses the Gaussian (Fisher-z) test on the privatised bin codes.", **URL)
    alpha = float(st.select_slider("α", options=[0.001, 0.005, 0.01, 0.05, 0.1], value=0.01, key="lalpha", **URL))
    debias = st.selectbox("De-biasing", ["invert", "ibu"], key="ldeb",
                          help="**invert**: channel inversion + simplex projection. **ibu**: iterative Bayesian "
                               "update (slower).", **URL)
    calibration = st.selectbox("p-value calibration", ["bootstrap", "neff"], key="lcal",
                               help="**bootstrap**: parametric bootstrap (99 replicates). **neff**: χ² at the "
                                    "effective n (fast, approximate).", **URL)
    max_order = st.number_input("Maximum order |S|", min_value=0, max_value=10, value=3, key="lmaxo",
                                help="Largest conditioning set. De-biased tables grow as (bins)^(|S|+2).", **URL)

from cgdcore import viz  # noqa: E402
from cgdcore.viz import local as viz_local  # noqa: E402
from cgdcore.discover import cap_max_order  # noqa: E402
from cgdcore.local.compare import column_channel, marginal_distortion  # noqa: E402
from cgdcore.local.privatize import discretise_for_ldp, privatize  # noqa: E402

if lseed is None:
    # fresh noise: one draw of entropy per session and "Draw new noise", never shown, so that the records of the Rows
    # tab are the ones the Discovery tab runs on; another user (another session) gets a draw of their own
    lseed = st.session_state.setdefault(f"lnseed_entropy_{ldraw}", np.random.SeedSequence())
    noise_key = (("draw", ldraw), ("session", session_id()))
else:
    noise_key = ()
fixed_seed = not isinstance(lseed, np.random.SeedSequence)

with user_errors():
    with st.spinner("Preparing data…"):
        raw = load_dataset(spec, n, 0)
        clean = discretise_for_ldp(raw, bins or 10, log)
    priv, rel = run_cached(("privatize", spec, n, bins, log, tuple(sorted(ldp.items())), lseed) + noise_key,
                           privatize, clean, seed=lseed, **ldp)

c = st.columns(4)
c[0].metric("Chance of guessing a record", f"{rel.vulnerability:.3g}",
            help="Bayes vulnerability under a uniform prior: the paper's privacy level P (higher = less private).")
c[1].metric("True ε-LDP per record", f"{rel.epsilon:.4g}" + ("" if rel.exact else " (bound)"),
            help="max over reports y and records x, x' of ln P[y|x]/P[y|x'] for this channel."
            + (" It holds only if the categories are a public schema, fixed before the data were seen (the note "
               "below)." if rel.schema_note else ""))
c[2].metric("Records", f"{priv.n:,}")
_domain = float(np.prod(rel.arities, dtype=float))
_exp = int(np.floor(np.log10(_domain)))  # 1 × 10¹¹ rather than 1e+11
_sup = str(_exp).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
c[3].metric("Domain size", f"{_domain:,.0f}" if _domain < 1e6 else f"{_domain / 10 ** _exp:.2g} × 10{_sup}",
            help=f"Π k_i over the columns: the number of distinct records ({_domain:,.0f})")
for note in rel.notes:
    st.caption(f":material/info: {note}")
noise_message(rel.noise)  # the fixed-seed warning the other pages show
if rel.epsilon > WEAK_EPSILON:  # a small average guessing chance does not make a large ε private
    st.warning(f"The chance of guessing, {rel.vulnerability:.3g}, is an average over records for an attacker who "
               f"knows nothing about them. The channel's worst case is ε = {readable(rel.epsilon)}: from one report, "
               f"{ODDS_GROWTH}, so for the records it tells apart it protects little.", icon=":material/shield:")


def _channel():
    """One column's channel: the probability of each report given each true value."""
    j = st.selectbox("Column", list(clean.variables), key="lcol")
    jj = list(clean.variables).index(j)
    C, caption = column_channel(rel, jj)
    st.plotly_chart(viz_local.channel_figure(C, clean.states[jj], f"Channel of {j}"), key="lchan", width="stretch")
    st.caption(caption)


def _rows():
    """The first records before and after privatisation, and the privatised records' download."""
    import pandas as pd

    k = 10
    show = lambda ds: pd.DataFrame({v: [ds.states[i][int(c_)] for c_ in ds.data[:k, i]]  # noqa: E731
                                    for i, v in enumerate(ds.variables)})
    left, right = st.columns(2)
    left.markdown("**Before** (discretised, first 10 records)")
    left.dataframe(show(clean), hide_index=True)
    right.markdown("**After** (what the collector receives)")
    right.dataframe(show(priv), hide_index=True)
    download_row([("Privatised records (CSV)", "csv", priv.to_frame(), "privatised.csv")], "ldl_rows")
    same = float(np.mean(np.asarray(clean.data) == np.asarray(priv.data)))
    st.caption(f"{same:.1%} of all cells kept their true value; "
               f"{float(np.mean(np.all(np.asarray(clean.data) == np.asarray(priv.data), axis=1))):.1%} of records "
               "arrived entirely unchanged.")


def _marginals():
    """How far each column's reported distribution is from the truth, naive and inverted."""
    rows = marginal_distortion(clean, priv, rel)
    st.plotly_chart(viz_local.distortion_figure(rows), key="ldist", width="stretch")
    st.caption("Total variation distance between each column's true distribution and the reports' (vermilion bars), "
               "and the channel-inverted estimate's (blue hatched bars). Inversion removes the bias; what remains is "
               "sampling noise.")


def _discovery():
    """PC on the clean bins, on the reports naively, and with the de-biased G-test."""
    if not rel.debias_supported():
        st.info("Geo Comb at a fixed P has an ε_x that depends on the whole record, so no per-column channel exists "
                "to invert: only the naive pipeline runs. Choose ε instead of P, or Geo C-wise.",
                icon=":material/info:")
    go_on = st.toggle("Run discovery", key="lrun")  # on at first (lazy_tabs below)
    if go_on:
        _order_notes: list = []
        mo = cap_max_order(int(max_order), clean.d, _order_notes)
        for note in _order_notes:
            st.caption(f":material/info: {note}")
        with user_errors(), st.status("Running PC: no noise, naive, de-biased…", expanded=False) as status:
            base = run_discovery(("lclean", spec, n, bins, log, naive_test, alpha, mo), clean, algo="pc",
                                 ci_test=naive_test, alpha=alpha, max_order=mo)
            full = {**ldp, "seed": lseed}  # the records the other tabs show, privatised again from the same seed
            naive = run_discovery(("lnaive", spec, n, bins, log, tuple(sorted(full.items())), naive_test, alpha, mo)
                                  + noise_key, clean, algo="pc", ci_test=naive_test, alpha=alpha, max_order=mo,
                                  ldp=full)
            deb = None
            if rel.debias_supported():
                dfull = {**full, "debias": debias, "calibration": calibration}
                deb = run_discovery(("ldeb", spec, n, bins, log, tuple(sorted(dfull.items())), alpha, mo) + noise_key,
                                    clean, algo="pc", ci_test="g2", alpha=alpha, max_order=mo, ldp=dfull,
                                    seed=lseed if fixed_seed else None)
            status.update(label="PC finished", state="complete")
        import pandas as pd

        table = []
        for label, r in [("no noise (" + naive_test + ")", base), ("naive (" + naive_test + ")", naive),
                         ("de-biased (g2)", deb)]:
            if r is None:
                continue
            m = r.metrics or {}
            table.append({"pipeline": label, "skeleton F1": m.get("skeleton_f1"), "arc F1": m.get("arc_f1"),
                          "SHD": m.get("shd"), "edges": len(r.edges()), "CI tests": r.result.n_ci_tests,
                          "seconds": round(r.seconds, 3)})
        st.dataframe(pd.DataFrame(table), hide_index=True,
                     column_config={"skeleton F1": st.column_config.NumberColumn(format="%.3f",
                                                                                 help=CONVENTIONS["skeleton"]),
                                    "arc F1": st.column_config.NumberColumn(format="%.3f", help=CONVENTIONS["arc_f1"]),
                                    "SHD": st.column_config.NumberColumn(help=CONVENTIONS["shd"])})
        names = list(clean.variables)
        sub = st.tabs(["Naive"] + (["De-biased"] if deb is not None else []) + ["No noise"])
        with sub[0]:
            st.plotly_chart(viz.graph_figure(naive.cpdag, clean.truth, names, title_learned="Naive PC on reports"),
                            key="lg_naive", width="stretch")
        if deb is not None:
            with sub[1]:
                st.plotly_chart(viz.graph_figure(deb.cpdag, clean.truth, names,
                                                 title_learned="PC with de-biased G-test"),
                                key="lg_deb", width="stretch")
                for note in deb.notes[-2:]:
                    st.caption(f":material/info: {note}")
        with sub[-1]:
            st.plotly_chart(viz.graph_figure(base.cpdag, clean.truth, names, title_learned="PC on clean bins"),
                            key="lg_clean", width="stretch")
        with st.expander("The commands that reproduce these runs", icon=":material/terminal:"):
            from cgdcore.cli import command_line

            rows = n  # None for the real datasets, used whole
            binning = {"bins": bins or None, "log": log} if not raw.is_discrete else {}
            shown = {} if fixed_seed else {"seed": None}  # fresh noise: no seed in the command (it draws its own)
            runs = [("naive", {"algo": "pc", "ci_test": naive_test, "alpha": alpha, "max_order": mo,
                               "ldp": {**full, **binning, **shown}})]
            if deb is not None:
                runs.append(("de-biased", {"algo": "pc", "ci_test": "g2", "alpha": alpha, "max_order": mo,
                                           "ldp": {**dfull, **binning, **shown}}))
            for label, call in runs:
                st.caption(label)
                st.code(command_line(spec, rows, call, data_seed=0) or "(no command-line form)", language="bash")


def _curve():
    """Every mechanism at the paper's privacy levels over several seeds (on request)."""
    st.markdown("SHD and skeleton F1 of PC against the truth for **every mechanism** at the paper's privacy levels, "
                "over several privatisation seeds: the paper's comparison (naive, solid) and ours (de-biased, dashed).")
    cc = st.columns(3)
    reps = int(cc[0].number_input("Seeds", min_value=1, max_value=20, key="lreps"))  # 3 at first (lazy_tabs)
    metric = cc[1].radio("Metric", ["skeleton_f1", "shd"], horizontal=True, key="lmetric",
                         format_func=lambda m: {"skeleton_f1": "skeleton F1", "shd": "SHD"}[m])
    with_deb = cc[2].toggle("Include de-biased", key="lcurve_deb")  # on at first (lazy_tabs)
    key = ("curve", spec, n, bins, log, reps, naive_test, alpha, with_deb, debias, calibration, int(max_order))
    if st.button("Run the comparison", key="lcurve_go", type="primary"):
        from cgdcore.local.compare import utility_curve

        bar = st.progress(0.0, text="privatising and running PC…")
        with user_errors():
            rows = run_cached(key, utility_curve, raw, seeds=range(reps), naive_test=naive_test,
                              alpha=alpha, debias=debias if with_deb else None, calibration=calibration,
                              bins=bins or 10, log=log, max_order=int(max_order),
                              _progress=lambda d, t: bar.progress(d / t, text=f"{d} / {t} runs"))
        bar.empty()
        st.session_state["lcurve_rows"] = (key, rows)
    saved = st.session_state.get("lcurve_rows")
    if saved and saved[0][1] == spec:  # the same data: the curves of other settings are shown as such
        import pandas as pd

        changed = [name for name, a, b in zip(_CURVE_KEY, saved[0], key) if a != b]
        if changed:
            st.warning(f"These curves are from other settings ({', '.join(changed)} changed since): press **Run the "
                       "comparison** to draw them for the current ones.", icon=":material/history:")
        st.plotly_chart(viz_local.utility_figure(saved[1], metric), key="lcurve", width="stretch")
        st.caption("Geo Comb at a fixed P cannot be de-biased, so it has no dashed line. The paper's finding — the "
                   "geometric mechanisms stay close to the no-noise baseline while k-RR Comb collapses — concerns "
                   "the naive lines, at equal P. " + _epsilon_at_equal_p(saved[1]) + " "
                   + _debiased_against_naive(saved[1], metric))
        download_row([("The runs (CSV)", "csv", pd.DataFrame(saved[1]), "local_curve.csv"),
                      ("Curve figure (HTML)", "html", viz_local.utility_figure(saved[1], metric), "local_curve.html")],
                     "lcurve_dl")
    else:
        st.caption("Press the button: each mechanism × level × seed is one privatisation and one or two PC runs.")


#: what each place of the curve's cache key is (its settings), as the page names them
_CURVE_KEY = ("", "scenario", "rows", "bins", "log scale", "seeds", "naive CI test", "α", "de-biased included",
              "de-biasing", "calibration", "maximum order")


def _epsilon_at_equal_p(rows: list[dict]) -> str:
    """The ε-LDP each mechanism's channel has over the curve's levels, said beside the paper's comparison at equal P:
    a mechanism that keeps its utility at the same P may do so at a far larger ε."""
    from cgdcore.local.compare import epsilon_by_level

    spans: dict[str, list[float]] = {}
    for (mech, _), eps in epsilon_by_level(rows).items():
        spans.setdefault(mech, []).append(eps)
    if not spans:
        return ""
    parts = [f"{mech} {readable(min(v))}" + (f"–{readable(max(v))}" if max(v) > min(v) else "")
             for mech, v in sorted(spans.items(), key=lambda kv: min(kv[1]))]
    text = f"Equal P is not equal ε: over these levels the channels' ε-LDP per record is {'; '.join(parts)}."
    lowest = min(min(v) for v in spans.values())
    if lowest > WEAK_EPSILON:
        text += (f" Every level here is above ε = {readable(WEAK_EPSILON)}: from one report, {ODDS_GROWTH}, so "
                 "none of these channels protects much, and a better line at the same P can be bought with a larger ε.")
    return text


def _debiased_against_naive(rows: list[dict], metric: str) -> str:
    """What these curves show of the de-biased test against the naive one, averaged over the levels and seeds."""
    import pandas as pd

    df = pd.DataFrame(rows)
    mean = df.groupby(["mechanism", "pipeline"])[metric].mean()
    higher_is_better = metric == "skeleton_f1"
    better, worse = [], []
    for mech in sorted(set(df.loc[df["pipeline"] == "de-biased", "mechanism"])):
        if (mech, "naive") not in mean:
            continue
        gain = mean[(mech, "de-biased")] - mean[(mech, "naive")]
        if abs(gain) > 1e-9:
            (better if (gain > 0) == higher_is_better else worse).append(mech)
    if not better and not worse:
        return ("Here the de-biased test (dashed) scores as the naive one does." if (df["pipeline"] == "de-biased").any()
                else "")
    said = ("Averaged over the levels and seeds, the de-biased test (dashed) does better than the naive one for "
            + (", ".join(better) or "no mechanism") + (f" and worse for {', '.join(worse)}" if worse else ""))
    return (said + f"; without noise PC scores {mean.xs('no noise', level='pipeline').mean():.2f}. The de-biased "
            "G-test needs enough rows per cell: undoing the noise costs it power.")


def _oracles():
    """Frequency oracles against k-RR at estimating one column's distribution."""
    st.markdown("Frequency oracles estimate a column's distribution from reports; OUE and OLH (Wang et al., 2017) "
                "send bit vectors or hashes instead of a value, so they are not used for record-level discovery — "
                "but they beat k-RR (GRR) at estimating frequencies when the domain is large.")
    j2 = st.selectbox("Column", list(clean.variables), key="lfcol")
    jj2 = list(clean.variables).index(j2)
    from cgdcore.local.compare import frequency_comparison

    with user_errors():
        frows = run_cached(("freq", spec, n, bins, log, j2), frequency_comparison,
                           np.asarray(clean.data[:, jj2], dtype=np.int64), int(clean.arities[jj2]),
                           [0.25, 0.5, 1.0, 2.0, 4.0], seeds=range(10))
    st.plotly_chart(viz_local.frequency_figure(frows), key="lfreq", width="stretch")
    st.caption("Points: mean squared error of the unbiased estimate over 10 seeds; dashed: the predicted variance "
               "q(1−q)/(n(p−q)²) + f(1−p−q)/(n(p−q)) averaged over the values.")


#: only the open tab is drawn (ui.widgets.lazy_tabs): PC's three runs wait for the Discovery tab
TABS = {"Channel": _channel, "Rows": _rows, "Marginals": _marginals, "Discovery": _discovery,
        "Privacy–utility curve": _curve, "Frequency oracles": _oracles}
lazy_tabs(TABS, key="local_tab", keep={"lcol": None, "lrun": True, "lreps": 3, "lmetric": None, "lcurve_deb": True,
                                       "lfcol": None})
