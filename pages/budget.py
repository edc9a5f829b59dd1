"""Budget: how CURATE spreads ε over PC orders, Priv-PC's noise scales, and the papers' totals vs the guarantee."""
import streamlit as st

from cgdcore.algorithms import PAPER_DELTA
from cgdcore.central.build import KENDALL_PUBLIC_C, min_rows
from cgdcore.data import list_datasets
from ui.downloads import download_row, ledger_table
from ui.widgets import lazy_tabs, option_input
from ui.common import checked_url_settings, explain, load_dataset, route_through_app, run_discovery, user_errors
from ui.privacy import (accounting_table, filter_state, guarantee_message, guarantee_metrics, noise_seed_input,
                        paper_vs_guarantee, status_legend)

route_through_app()

URL = {"bind": "query-params"}

st.title("Privacy budget")
st.caption("Where the ε goes: CURATE's per-order plan, the error bounds it optimises, Priv-PC's noise scales, and "
           "what the papers' own accounting claims next to what each run can guarantee.")

explain(
    "What am I looking at?",
    """
A private PC run spends its budget test by test. **CURATE** (Bhattacharjee & Tandon 2024) decides, before
every PC order, how much ε each test of the remaining orders gets: it minimises a surrogate of the error
probability (objective (2), built from the Lemma 1 bounds) subject to the total leakage fitting the budget
that is left (OPT (3), solved with SLSQP). Only the current order's ε is used; the rest is a plan that is
re-optimised once the order's outcome — how many edges remain — is known.

**Priv-PC** (Wang, Pang & Song 2020) pays per *round* instead: the sieve runs the sparse vector technique on a
sub-sample of m rows, where sub-sampling amplifies privacy, and each hit is examined on the full data.

Both papers total their spending with formulas of their own, at the number of releases their run happened to
make. Because PC chooses its next test from earlier answers, that number depends on the data, and the
composition theorems do not cover a total computed from it. A run with a guarantee fixes its budget *before* it starts and
a **filter** refuses every release that would exceed it; the budget is then the guarantee. This page runs the
same data both ways and shows the papers' totals next to the guarantee.
""",
    latex=[r"q_i^{(1)} = \tfrac{c_1}{2} + \tfrac12 e^{-T\beta_1\epsilon_i/\Delta},\quad "
           r"q_i^{(2)} = \tfrac{c_2}{2} + \tfrac12 e^{-T\beta_2\epsilon_i/\Delta}",
           r"\min_{\epsilon_i \ge \dots \ge \epsilon_L}\ \prod_j q_j^{(1)} + 1 - \prod_j \big(1 - q_j^{(2)}\big)"
           r"\quad\text{s.t.}\quad \sum_j \mathrm{leak}(t_j, \epsilon_j) \le \epsilon^{(i)}_{\text{Total}}",
           r"\epsilon' = \ln\!\Big(\frac{n}{m}\big(e^{\epsilon/2}-1\big)+1\Big),\qquad "
           r"\text{filter: stop before } \min\Big(\sum_i\epsilon_i,\ \sqrt{2\ln(1/\delta)\textstyle\sum_i"
           r"\epsilon_i^2} + \tfrac12\sum_i\epsilon_i^2\Big) > \epsilon_{\text{budget}}"],
)

NETWORKS = [i.name for i in list_datasets() if i.kind == "discrete" and i.truth and i.n_rows is None]

#: the fewest rows CURATE runs on here (its one-sided Kendall test with the public normaliser)
CURATE_MIN_ROWS = min_rows(KENDALL_PUBLIC_C, "one")

with checked_url_settings(), st.sidebar:
    st.header("Run")
    name = st.selectbox("Network", NETWORKS, index=NETWORKS.index("sachs") if "sachs" in NETWORKS else 0,
                        key="bds", **URL)
    n = int(st.number_input("Rows to sample (n)", min_value=CURATE_MIN_ROWS, max_value=1_000_000, value=100_000,
                            step=10_000, key="bn", **URL,
                            help=f"At least {CURATE_MIN_ROWS:,}: below that, CURATE's proven sensitivity is so large "
                                 "that its noise would drown every decision."))
    total = float(st.number_input("CURATE total ε", min_value=0.01, max_value=1e5, value=10.0, step=1.0,
                                  format="%g", key="beps", **URL))
    round_eps = float(st.number_input("Priv-PC per-round ε", min_value=0.01, max_value=100.0, value=1.0, step=0.1,
                                      format="%g", key="breps", **URL))
    sens = st.radio("CURATE sensitivity", ["conservative", "paper"], key="bsens", horizontal=True,
                    help="conservative: the proven Φ(9/√n) − ½ of the Kendall statistic with a public normaliser; "
                         "paper: 0.3627/√n, not a worst-case bound (the run is then not a guarantee).",
                    **URL)
    beta = option_input("beta1", widget_key="bbeta", label="Margins β₁ = β₂", step=0.05,
                        help="CURATE's margins β₁ (type I) and β₂ (type II) around the threshold.")
    seed, draw = noise_seed_input("bseed")

with user_errors():
    with st.spinner("Sampling data…"):
        ds = load_dataset(name, n, 0)
    curate_params = dict(algo="curate", epsilon=total, seed=seed, alpha=0.05, kendall_sided="one")
    curate_opts = {"curate_sensitivity": sens, "beta1": beta, "beta2": beta}
    # Priv-PC as its paper runs it: per-round ε, uncapped, at the paper's δ = 10⁻³
    priv_params = dict(algo="priv-pc", round_epsilon=round_eps, delta=PAPER_DELTA, seed=seed, alpha=0.10,
                       kendall_sided="one")
    with st.status("Running CURATE and Priv-PC…", expanded=False) as status:
        cur = run_discovery(("budget", name, n, tuple(sorted(curate_params.items())),
                             tuple(sorted(curate_opts.items())), draw), ds, options=curate_opts, **curate_params)
        priv = run_discovery(("budget", name, n, tuple(sorted(priv_params.items())), draw), ds, **priv_params)
        gauss_params = dict(algo="gauss-pc", epsilon=total, seed=seed, alpha=0.05, kendall_sided="one")
        gauss = run_discovery(("budget", name, n, tuple(sorted(gauss_params.items())), draw), ds, **gauss_params)
        status.update(label=f"CURATE: {cur.result.n_ci_tests} tests, Priv-PC: {priv.result.n_ci_tests} tests, "
                            f"Gauss-PC: {gauss.result.n_ci_tests} tests", state="complete")

from cgdcore.viz import privacy as vp  # noqa: E402

plans = cur.privacy.curate_plans
used = {}
for r in cur.ledger.releases:
    used.setdefault(r.order, r.epsilon)
plan_fig = vp.curate_plan_figure(plans, used)


def _gauss():
    """The same total ε spent by Gauss-PC in zCDP: its plan per order."""
    gp = gauss.privacy
    st.markdown(f"The same total **ε = {total:g}** spent by Gauss-PC, which composes its releases in zero-concentrated "
                f"DP (Bun & Steinke 2016): k releases of ρ each cost kρ, and ρ converts to (ε, δ = {gp.delta:g}) "
                "exactly once, for the headline — so ε grows like √k, not k.")
    filter_state(gp)
    g1, g2, g3 = st.columns(3)
    g1.metric("Skeleton F1, Gauss-PC", f"{gauss.metrics['skeleton_f1']:.3f}" if gauss.metrics else "—")
    g2.metric("Skeleton F1, CURATE", f"{cur.metrics['skeleton_f1']:.3f}" if cur.metrics else "—")
    g3.metric("Releases", f"{gp.releases:,}")
    gplan = vp.plan_rows(gp.gauss_plan)
    st.dataframe(gplan, hide_index=True, column_config={c: st.column_config.NumberColumn(format="%.4g")
                                                        for c in gplan[0] if c != "order" and "(" not in c})
    st.caption("Each order gets half of what the filter has left (all of it for the last order the degrees allow), "
               "split over its edges: one release per edge — the smallest |z| over its candidate separating sets "
               "plus discrete Gaussian noise — and, for an edge it removes, an exponential-mechanism choice of the "
               "separating set at half a release's ρ. What an order does not use carries forward.")


def _curate():
    """CURATE's plan, re-solved before each order, against the ε its tests used."""
    st.plotly_chart(plan_fig, key="plan", width="stretch")
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Total budget", f"{total:g}")
    c2.metric("ε used", f"{cur.privacy.used_epsilon:.4g}",
              help=f"the {cur.privacy.rule} rule at the releases made; "
                   + ("the guarantee is the budget" if cur.privacy.guarantee else "this run has no guarantee"))
    c3.metric("Orders run", len(cur.result.tests_per_order))
    c4.metric("Skeleton F1", f"{cur.metrics['skeleton_f1']:.3f}")
    if cur.result.stopped_early:
        st.info(f"Stopped: {cur.result.stop_reason}.", icon=":material/info:")
    st.caption("Dotted lines: the per-test ε that OPT planned for every remaining order, re-solved before each "
               "order from the budget left and a bound on each order's tests from the graph left (the paper plans "
               "t_j = e_i·C(d−2, j)); at order 0, if the complete graph's bound would leave the later orders "
               "nothing, they are planned at no more tests than order 0's. "
               "Bars: the ε each test of that order actually used. A plan below the floor "
               f"({cur.privacy.epsilon_floor:.3g}, where the Laplace noise's s.d. reaches 10 on the z scale) stops "
               "the run instead of running tests that are coin flips.")
    per_order_sum = {r["order"]: r["epsilon"] for r in cur.privacy.per_order}
    st.dataframe([{"order": p["order"], "ε used before (the filter's rule)": total - p["remaining"],
                   "ε left": p["remaining"], "edges left": p["edges"], "ε per test": p["planned"][0],
                   "tests run": (cur.result.tests_per_order[k] if k < len(cur.result.tests_per_order) else 0),
                   "Σε of the order's tests": per_order_sum.get(p["order"], 0.0)}
                  for k, p in enumerate(plans)], hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format="%.4g")
                                for c in ("ε used before (the filter's rule)", "ε left", "ε per test",
                                          "Σε of the order's tests")})
    st.caption("\"ε used\" is the filter's rule — min(Σε, √(2 ln(1/δ)·Σε²) + Σε²/2) — at everything released so "
               "far, so it is less than the plain sum Σε once there are many small releases. The plan must keep "
               "it within the budget" + ("; the guarantee is the budget itself." if cur.privacy.guarantee else
                                          ", yet this run has no guarantee: see below."))
    if not cur.privacy.guarantee:
        st.error(f"Not a privacy guarantee: {cur.privacy.guarantee_note}.", icon=":material/gpp_bad:")


def _bounds():
    """Lemma 1's error bounds and objective (2) at this page's β and sensitivity."""
    sens_val = cur.params["sensitivity"]
    st.plotly_chart(vp.lemma1_figure(0.05, beta, beta, sens_val), key="lemma1", width="stretch")
    st.caption(f"T = 0.05, β₁ = β₂ = {beta:g}, Δ = {sens_val:.4g}, c₁ = c₂ = 1 (the reference code's choice). "
               "With β₁ = β₂ the Type I and Type II curves coincide, so each pair draws as one line. "
               "The bounds never drop below ½ because c = 1 charges the whole coin-flip band as an error; the "
               "dashed exact probabilities, at true p-values 2β·T away from the threshold, show what the noise "
               "really does.")
    st.plotly_chart(vp.objective_figure(0.05, beta, beta, sens_val), key="objective", width="stretch")
    st.caption("The two curves give every order the same ε per test, or give it to order 0 alone (the later "
               "orders get nothing), as a function of that ε — not at equal total budgets. With c₁ = c₂ = 1 every q "
               "is at least ½, and an order at ε = 0 has q⁽¹⁾ = q⁽²⁾ = 1, which sets the Type-II term to 1: so "
               "'order 0 only' never falls below 1.5, while equal ε approaches 1. The objective therefore never "
               "rewards starving an order that will run.")


def _privpc():
    """Priv-PC's sub-sampling rate and noise scales, and this page's run."""
    st.plotly_chart(vp.privpc_scales_figure(n), key="scales", width="stretch")
    pv = priv.privacy
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Sub-sample m", f"{pv.subsample_rows:,}", help=f"n/m = {pv.subsample_ratio:.3g}")
    c2.metric("Sieve ε′", f"{pv.sieve_epsilon:.3g}")
    c3.metric("Rounds (sieve hits)", f"{priv.policy.rounds}")
    c4.metric("Skeleton F1", f"{priv.metrics['skeleton_f1']:.3f}")
    st.caption("Left: the sub-sampling rate m/n minimising √(n/m)/ln((n/m)(e^{ε/2}−1)+1) over n/m ∈ [1, 20] (a "
               "bounded search; the reference code's BFGS returns 1/20 at large ε). Right: the noise scales on the "
               f"p-value scale at n = {n:,}, from the proven sensitivity Φ(9/√n) − ½ (Φ(9/√m) − ½ on the "
               "sub-sample)." + (
                   f" The metrics are this page's run, which decides on the z scale (the app's default): there it "
                   f"sieves on all {n:,} rows (n/m = 1, ε′ = ε/2), since a sub-sample shrinks every dependence's z by "
                   "√(m/n), more than amplification gives back; the curves are for the p-value scale of the paper."
                   if priv.params.get("scale") == "z" else ""))


def _accounting():
    """What each run can promise against the papers' formulas."""
    if cur.privacy.guarantee:
        curate = (f"CURATE's run has a budget: the filter refused every release past it, so its guarantee is "
                  f"ε = {total:g}, whatever the data did.")
    else:  # the paper's sensitivity: the filter holds the budget, but the noise is too small to deliver it
        curate = (f"CURATE's run has a budget of ε = {total:g}, which the filter held, but its noise does not deliver "
                  f"that ε ({cur.privacy.guarantee_note}): it has **no guarantee**.")
    if priv.privacy.guarantee:
        privpc = (f"Priv-PC at ε = {round_eps:g} per round has no budget, as in the paper: its rounds stop only when "
                  "PC does, so all it can promise is the composition of the most rounds any run on data of this "
                  "shape could make.")
    else:
        privpc = (f"Priv-PC at ε = {round_eps:g} per round has **no guarantee** ({priv.privacy.guarantee_note}).")
    st.markdown(
        f"**What each run can promise.** {curate} {privpc} The papers' own formulas (CURATE's "
        "t·ε² + ε·√(2t ln(1/δ′)) at δ′ = 10⁻¹² per order; Priv-PC's advanced composition over the K rounds this run "
        "made) are shown for comparison; neither is a guarantee. Here:\n\n"
        + "\n".join(f"- **{title}**: {paper_vs_guarantee(res.privacy)}" for res, title in ((cur, "CURATE"),
                                                                                               (priv, "Priv-PC")))
        + "\n\n" + status_legend())
    for res, title in ((cur, "CURATE"), (priv, "Priv-PC")):
        st.subheader(title)
        guarantee_metrics(res.privacy)
        guarantee_message(res.privacy, res.dataset.n)  # what each promise is worth (ε above 10, δ above 1/n, seed)
        accounting_table(res.privacy.accounting, f"acc_{title}")
    st.plotly_chart(vp.composition_figure(round_eps / 2, 1e-3), key="composition", width="stretch")
    st.caption(f"Priv-PC's releases are ε₀ = {round_eps / 2:g} each (a sieve or an examine half of a round). "
               "Dwork & Roth's advanced composition needs the number of releases fixed in advance; the ledger's "
               "filter (Whitehouse et al. 2023) holds when the releases are chosen adaptively, as PC's are, and is "
               "tighter still. Both beat basic composition only when ε₀ is small and the releases are many.")

#: only the open view is drawn (ui.widgets.lazy_tabs)
VIEWS = {"CURATE: planned vs used": _curate, "Gauss-PC: ρ per order": _gauss, "Lemma 1 and objective (2)": _bounds,
         "Priv-PC: sub-sampling and noise": _privpc, "As in paper vs guaranteed": _accounting}
lazy_tabs(VIEWS, key="budget_view")

st.subheader("Downloads and the commands that reproduce these runs")
import pandas as pd  # noqa: E402

plan_rows = [{"planned at order": p["order"], "budget left": p["remaining"], "edges left": p["edges"],
              "order": o, "planned ε per test": e, "used ε per test": used.get(o)}
             for p in plans for o, e in zip(p["orders"], p["planned"])]
download_row([("CURATE's plans (CSV)", "csv", pd.DataFrame(plan_rows), "curate_plans.csv"),
              ("CURATE's releases (CSV)", "csv", ledger_table(cur.ledger), "curate_ledger.csv"),
              ("Priv-PC's releases (CSV)", "csv", ledger_table(priv.ledger), "privpc_ledger.csv"),
              ("Gauss-PC's plan (CSV)", "csv", pd.DataFrame(vp.plan_rows(gauss.privacy.gauss_plan)), "gausspc_plan.csv"),
              ("Plan figure (HTML)", "html", plan_fig, "curate_plan.html")], "bdl")
from cgdcore.cli import command_line  # noqa: E402

for label, call in (("CURATE", {**curate_params, "options": curate_opts}), ("Priv-PC", priv_params),
                    ("Gauss-PC", gauss_params)):
    st.caption(label)
    st.code(command_line(name, n, call, data_seed=0) or "(no command-line form)", language="bash")
