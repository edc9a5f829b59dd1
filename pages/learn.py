"""Learn: the ideas behind private causal discovery, each with a small live example."""
import math

import numpy as np
import streamlit as st

from cgdcore.privacy.ledger import readable
from ui.privacy import accounting_table, guarantee_message, paper_vs_guarantee, status_legend
from ui.common import (checked_url_settings, explain, load_dataset, route_through_app, run_cached, run_discovery,
                       user_errors)
from ui.widgets import lazy_tabs

route_through_app()

URL = {"bind": "query-params"}

st.title("Learn")
st.caption("What PC does, what a CI test and ε are, why noise flips decisions near the threshold, who sees what "
           "under local, central and encrypted privacy, and where the papers' accounting is loose — each with a "
           "small example you can change.")
explain("What am I looking at?", """
Eleven short lessons, in the order a newcomer needs them. Every example runs live on data sampled from a benchmark
network, so changing a slider changes the numbers. The other pages go deeper: **Discover** (any algorithm on any
data), **Budget** (CURATE's per-order allocation, Priv-PC's sieve-and-examine noise), **Local privacy**,
**Encrypted** and **Trade-off** (sweeps).
""")

from cgdcore import viz
from cgdcore.viz import teach as viz_teach  # noqa: E402
from ui import teach  # noqa: E402



def _pc_outcome(ds, res, where) -> None:
    """Say whether PC recovered the truth and, if not, which test missed each lost edge and why."""
    names = ds.variables
    if res.metrics["shd"] == 0:
        where.success(f"PC recovered the true graph exactly from {ds.n:,} rows (SHD 0).", icon=":material/check:")
        return
    wrong = teach.pc_mistakes(res.result, ds.truth)
    parts = []
    if wrong["missed"]:
        parts.append("missed " + ", ".join(
            f"{names[x]} – {names[y]} (given {', '.join(names[v] for v in S) or 'nothing'}, p = {p:.2g} ≥ α)"
            for x, y, S, p in wrong["missed"]))
    if wrong["extra"]:
        parts.append("kept " + ", ".join(f"{names[x]} – {names[y]}" for x, y in wrong["extra"]) +
                     " (no separating set reached p ≥ α)")
    from cgdcore.viz.graph import category_counts, edge_table

    turned = category_counts(edge_table(res.cpdag, ds.truth, names)).get("wrongly oriented", 0)
    arrows = (f"here {turned} edge{'s' if turned != 1 else ''} PC kept {'are' if turned != 1 else 'is'} oriented "
              "otherwise than in the true CPDAG" if turned else "here every edge PC kept still has its true marks")
    why = ("A missed edge is a dependence too weak for the test to see in this many rows: its p-value came out "
           "above α, so PC called the pair independent. The arrows rest on the skeleton and its separating sets, so "
           f"a missing edge can take a v-structure away or make a wrong one: {arrows}. More rows make a weak "
           "dependence visible."
           if wrong["missed"] else
           "The skeleton is right; an arrowhead differs because a v-structure decision rests on a separating set "
           "that a borderline test chose.")
    where.warning(f"PC's graph differs from the truth (SHD {res.metrics['shd']}): {'; '.join(parts) or 'orientation only'}. "
                  + why, icon=":material/error:")


def pc_step_by_step():
    c1, c2 = st.columns([1, 3])
    net = c1.selectbox("Network", ["earthquake", "cancer", "asia", "survey", "sachs"], key="lnet", **URL)
    n = int(c1.number_input("Rows", min_value=500, max_value=200_000, value=5000, step=500, key="ln", **URL))
    with user_errors():
        ds = load_dataset(net, n, 0)
        res = run_discovery(("learn", net, n), ds, algo="pc", alpha=0.05)
    stages = teach.pc_stages(res.result)
    k = c1.select_slider("Stage", options=list(range(len(stages))), value=len(stages) - 1, key="lstage",
                         format_func=lambda i: stages[i].title.split(":")[0])
    s = stages[k]
    c1.markdown(f"**{s.title}**\n\n{s.note}")
    if s.removed:
        names = ds.variables
        c1.dataframe([{"pair": f"{names[x]} – {names[y]}", "S": ", ".join(names[v] for v in S) or "∅",
                       "p": f"{p:.3f}"} for x, y, S, p in s.removed], hide_index=True, width="stretch")
    # before orientation only the skeleton is being learned: compare it with the true skeleton, not the arrows
    skeleton_only = s.title.startswith(("Start", "Order"))
    truth = (ds.truth | ds.truth.T) if skeleton_only else ds.truth
    c2.plotly_chart(viz.graph_figure(s.graph, truth, ds.variables, title_learned=s.title.split(":")[0],
                                     title_truth="True skeleton" if skeleton_only else "True DAG", height=430),
                    width="stretch", key="lpcfig")
    _pc_outcome(ds, res, c1)
    st.latex(r"\begin{aligned}&X \perp\!\!\!\perp Y \mid S \ \Rightarrow\ \text{remove } X - Y,\ "
             r"\text{sepset}(X,Y) = S\\ &X - Z - Y,\ Z \notin \text{sepset}(X,Y) \Rightarrow X \to Z \leftarrow Y"
             r"\end{aligned}")  # two lines: on one it ran 20 px past the column at 1,280 px
    with st.expander("When PC gets it wrong: Cancer with 5,000 rows"):
        with user_errors():
            cds = load_dataset("cancer", 5000, 0)
            cres = run_discovery(("learn", "cancer", 5000), cds, algo="pc", alpha=0.05)
        a, b = st.columns([1, 2])
        _pc_outcome(cds, cres, a)
        a.caption("Pollution raises the chance of cancer only a little, so 5,000 rows do not show it at α = 0.05. "
                  "Without that edge PC cannot find the collider Pollution → Cancer ← Smoker, and the arrows it "
                  "draws around Cancer rest on the wrong skeleton (the box above counts those that differ from the "
                  "truth). Set Network = cancer and Rows = 100,000 above to watch the edge come back.")
        b.plotly_chart(viz.graph_figure(cres.cpdag, cds.truth, cds.variables, title_learned="PC on 5,000 rows",
                                        title_truth="True DAG", height=360), width="stretch", key="lpcwrong")


def ci_test():
    with user_errors():
        ds = load_dataset("asia", 5000, 0)
    names = list(ds.variables)
    c1, c2, c3 = st.columns(3)
    x = c1.selectbox("X", names, index=names.index("either") if "either" in names else 0, key="lx", **URL)
    y = c2.selectbox("Y", [v for v in names if v != x], key="ly", **URL)
    S = c3.multiselect("given S", [v for v in names if v not in (x, y)], key="lS", max_selections=2, **URL)
    from cgdcore.citests import shared_ci_test, suffstats_for

    stats = suffstats_for(ds.data, ds.arities)
    r = shared_ci_test("g2", stats)(names.index(x), names.index(y), tuple(names.index(v) for v in S))
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("G statistic", f"{r.statistic:.2f}")
    m2.metric("degrees of freedom", int(r.dof))
    m3.metric("p-value", f"{r.p_value:.4g}" if r.p_value > 0 else "< 1e-300",
              help="0 in double precision: the data are far beyond what independence would produce")
    m4.metric("decision at α = 0.05", "independent" if r.p_value >= 0.05 else "dependent")
    from scipy.stats import chi2

    dof = max(int(r.dof), 1)
    xs = np.linspace(0, max(chi2.isf(1e-4, dof), r.statistic * 1.1), 400)
    st.plotly_chart(viz_teach.ci_test_figure(xs, chi2.pdf(xs, dof), r.statistic, dof, r.p_value), width="stretch", key="lcifig")
    st.latex(r"G = 2\sum_{s}\sum_{x,y} O_{xys}\ln\frac{O_{xys}}{E_{xys}},\quad E_{xys} = \frac{O_{x\cdot s}O_{\cdot ys}}"
             r"{O_{\cdot\cdot s}},\quad p = P\big(\chi^2_{\text{dof}} \ge G\big)")
    st.caption("The p-value is how surprising the data would be if X and Y were independent given S. PC calls the pair "
               "independent when p ≥ α. Try X = either, Y = xray with and without S = lung (or tub).")


def epsilon_on_one_coin():
    c1, c2 = st.columns([1, 2])
    eps = float(c1.slider("ε", min_value=0.05, max_value=5.0, value=1.0, step=0.05, key="leps", **URL))
    rate = float(c1.slider("true share answering yes", 0.0, 1.0, 0.3, 0.05, key="lrate", **URL))
    people = int(c1.select_slider("people asked", [100, 1000, 10_000, 100_000], value=1000, key="lppl", **URL))
    rr = teach.randomized_response(eps, rate, people, np.random.default_rng(0))
    c2.markdown(f"Everyone flips a biased coin and tells the truth with probability **q = e^ε/(1+e^ε) = {rr['q']:.3f}**, "
                f"otherwise the opposite. Whatever you answered, any report is at most **e^ε = {rr['ratio']:.2f}** times "
                "more likely under one true answer than under the other: that ratio is what ε bounds.")
    m1, m2, m3 = c2.columns(3)
    m1.metric("reported 'yes'", f"{rr['reported']:.3f}")
    m2.metric("de-biased estimate", f"{rr['estimate']:.3f} ± {rr['sd']:.3f}")
    m3.metric("true share in the sample", f"{rr['true']:.3f}")
    if not 0.0 <= rr["estimate"] <= 1.0:
        c2.info(f"The estimate {rr['estimate']:.3f} is outside [0, 1]: a share cannot be that, but the unbiased "
                f"estimator divides by 2q − 1 = {2 * rr['q'] - 1:.3f}, so with few people or a small ε its noise "
                "carries it past the ends. Clipping it to [0, 1] gives a possible share, no longer unbiased.",
                icon=":material/info:")
    st.latex(r"\frac{P(\text{report}=r \mid \text{yes})}{P(\text{report}=r \mid \text{no})} \le e^{\epsilon},\qquad "
             r"\hat\pi = \frac{\bar r - (1-q)}{2q-1}")
    st.caption("Smaller ε: stronger deniability, noisier estimate — the estimate's sd grows like 1/(2q−1). "
               "The Local privacy page applies exactly this (k-RR) to every column of a dataset.")


def noise_near_threshold():
    c1, c2 = st.columns([1, 2])
    eps = float(c1.slider("ε per test", 0.05, 10.0, 1.0, 0.05, key="lfe", **URL))
    n = int(c1.select_slider("rows n", [1000, 10_000, 100_000, 1_000_000], value=100_000, key="lfn", **URL))
    from cgdcore.citests import KENDALL_PUBLIC_C, p_sensitivity

    sens = p_sensitivity(KENDALL_PUBLIC_C / math.sqrt(n), "one")
    scale = sens / eps
    ps = 0.05 + np.linspace(-0.05, 0.1, 401)  # p from 0 to 0.15 around α = 0.05
    c2.plotly_chart(viz_teach.flip_figure(ps, teach.flip_probability(ps, 0.05, scale), 0.05), width="stretch",
                    key="lflipfig")
    c1.metric("p-value sensitivity Δ", f"{sens:.2e}")
    c1.metric("Laplace scale Δ/ε", f"{scale:.2e}")
    st.latex(r"\tilde p = p + \mathrm{Lap}(\Delta/\epsilon),\qquad P(\text{flip}) = \tfrac12\, e^{-|p-\alpha|\,\epsilon/\Delta}")
    zone = scale * math.log(5)  # P(flip) > 10 % exactly when |p − α| < (Δ/ε)·ln 5
    share = min(0.05 + zone, 1.0) - max(0.05 - zone, 0.0)  # of uniform p-values (independent pairs)
    split = 1.0 / 300  # a total ε = 1 over a run's few hundred tests
    everywhere = zone >= 0.95  # the 10 % band covers every p-value in [0, 1]
    here = (f"Here (n = {n:,} rows, ε = {eps:g} *per test*) the band where a decision flips with probability above "
            f"10 % reaches {zone:.2g} either side of α = 0.05, wider than [0, 1]: every decision is close to a coin "
            f"flip, and a clear dependence (p ≈ 0) flips with probability {teach.flip_probability(0.0, 0.05, scale):.2g}."
            if everywhere else
            f"Only tests whose p-value lies within a few Δ/ε of the threshold can flip. Here (n = {n:,} rows, "
            f"ε = {eps:g} *per test*) a decision flips with probability above 10 % only when p lies within "
            f"{zone:.2g} of α = 0.05: that is {share:.0%} of the tests of independent pairs, whose p-values are "
            f"uniform, and a clear dependence (p ≈ 0) flips with probability "
            f"{teach.flip_probability(0.0, 0.05, scale):.2g}.")
    st.caption(f"{here} {'And' if everywhere else 'But'} a run makes hundreds of tests: a *total* "
               f"ε = 1 split over 300 of them leaves ε ≈ {split:.3f} per test, and then even a clear dependence "
               f"flips with probability {teach.flip_probability(0.0, 0.05, sens / split):.2f}. The Discover page's "
               "'Noise vs threshold' view shows every test of a real private run with its flips circled.")


def budget_per_order():
    c1, c2 = st.columns([1, 2])
    anet = c1.selectbox("Network", ["asia", "sachs", "child"], key="lan", **URL)
    aeps = float(c1.select_slider("total ε", [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0], value=5.0, key="lat",
                                  **URL))
    with user_errors():
        ads = load_dataset(anet, 100_000, 0)
        base = run_discovery(("learn-alloc-pc", anet), ads, algo="pc", ci_test="kendall")
        cur = run_discovery(("learn-alloc", anet, aeps, "curate"), ads, algo="curate", epsilon=aeps, seed=0)
        lap = run_discovery(("learn-alloc", anet, aeps, "laplace-pc"), ads, algo="laplace-pc", epsilon=aeps, seed=0)
    per = {name: {r["order"]: r for r in run.privacy.per_order} for name, run in (("CURATE", cur),
                                                                                     ("Laplace-PC", lap))}
    orders = range(len(base.result.tests_per_order))
    table = [{"order": k, "tests (non-private PC)": base.result.tests_per_order[k],
              **{f"{name}: tests": per[name].get(k, {}).get("releases", 0) for name in per},
              **{f"{name}: ε per test": (per[name][k]["epsilon"] / per[name][k]["releases"]
                                         if per[name].get(k, {}).get("releases") else 0.0) for name in per}}
             for k in orders]
    first_plan = cur.privacy.curate_plans[0] if cur.privacy.curate_plans else None
    plan = None
    if first_plan:
        shown = [(o, v) for o, v in zip(first_plan["orders"], first_plan["planned"]) if o < len(table)]
        plan = ([o for o, _ in shown], [v for _, v in shown])
    c2.plotly_chart(viz_teach.per_test_budget_figure([r["order"] for r in table],
                                                     {name: [r[f"{name}: ε per test"] for r in table] for name in per},
                                                     plan), width="stretch", key="lallocfig")
    c1.markdown("**Skeleton F1** against the true graph")
    m1, m2, m3 = c1.columns(3)
    m1.metric("PC", f"{base.metrics['skeleton_f1']:.2f}", help="non-private PC, Kendall test")
    m2.metric("CURATE", f"{cur.metrics['skeleton_f1']:.2f}",
              help=f"guaranteed ε = {cur.privacy.epsilon:g}; the filter used {cur.privacy.used_epsilon:.2f}")
    m3.metric("Laplace-PC", f"{lap.metrics['skeleton_f1']:.2f}",
              help=f"guaranteed ε = {lap.privacy.epsilon:g}; the filter used {lap.privacy.used_epsilon:.2f}")
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={f"{n}: ε per test": st.column_config.NumberColumn(format="%.4f") for n in per})
    c0, l0 = table[0]["CURATE: ε per test"], table[0]["Laplace-PC: ε per test"]
    told = (f"Here CURATE gave each order-0 test ε = {c0:.3g} against Laplace-PC's {l0:.3g} — "
            + ("more, as its objective asks: an early mistake is never undone." if c0 > l0 * 1.02 else
               "not more: at this budget CURATE's objective found no gain in front-loading, or, when the bound "
               "from the complete graph would leave order 1 nothing, CURATE planned the later orders at no more "
               "tests than order 0's and kept budget for them."))
    if first_plan and len(first_plan["planned"]) > 1:
        p0, p_last = first_plan["planned"][0], first_plan["planned"][-1]
        told += ((f" Its plan before order 0 falls from {p0:.3g} to {p_last:.3g} per test" if 0 < p_last < p0 * 0.99
                  else f" Its plan before order 0 gives {p0:.3g} per test and nothing to the last orders"
                  if p_last <= 0 else f" Its plan before order 0 is {p0:.3g} per test for every order")
                 + " (εᵢ ≥ εᵢ₊₁, the paper's constraint); but it re-plans after every order with what is left"
                 + (", and the later orders usually need far fewer tests than the bound it planned for, so the "
                    "realised ε per test can rise again at late orders (the bars)."
                    if sum(1 for r in table if r["CURATE: tests"]) > 1 else
                    " — here it made no test after order 0."))
    stops = [f"**{name}** stopped: {run.result.stop_reason}." for name, run in (("CURATE", cur), ("Laplace-PC", lap))
             if run.result.stopped_early and run.result.stop_reason]
    if stops:
        told += "\n\n" + " ".join(stops)
    told += (f"\n\nThe ε per test is what each test's noise was calibrated to. The filter composes them by advanced "
             f"composition (δ = {cur.privacy.delta:g} for CURATE, {lap.privacy.delta:g} for Laplace-PC), which "
             "charges many small releases less than their sum: tests × ε per test can add up to more than the total "
             "ε, and the guarantee still holds.")
    st.markdown(told)
    st.latex(r"\min_{\epsilon_i \ge \dots \ge \epsilon_{d-2}}\ \prod_j q^{(1)}_j + \Big(1 - \prod_j (1-q^{(2)}_j)\Big)"
             r"\quad\text{s.t.}\quad \sum_j \text{leak}(t_j, \epsilon_j) \le \epsilon^{(i)}_{\text{Total}}")
    st.latex(r"t_j \le \sum_{x}|\mathrm{adj}(x)|\binom{|\mathrm{adj}(x)|-1}{j}\quad(\text{paper: } t_j = e_i\binom{d-2}{j})")
    st.caption("PC does not know in advance how many tests each order will need: order 0 tests every pair, later "
               "orders only the edges still standing, with more conditioning sets each. Laplace-PC gives each order "
               "half of what is left (all of it to the last order the degrees allow), split over a bound on its "
               "tests computed from the graph so far; CURATE (Bhattacharjee & Tandon, eq. 3) plans ε per order by "
               "minimising a bound on its error and re-plans after each order with what is left. The paper plans "
               "for e_i·C(d−2, j) tests per order, thousands on Child, which leaves each a coin flip; here both use "
               "the bound from the current graph (a post-processing of released decisions), CURATE at order 0 "
               "capped at order 0's own test count when the complete graph's bound would leave later orders "
               "nothing. Both stop once an "
               "order's ε would give noise of s.d. above 10 on the z scale. One seed: rerun on the Trade-off page "
               "for means over many.")


def _privpc_on_sachs(column, key: str):
    """The real Priv-PC run two lessons show, as its paper runs it (per-round ε, uncapped, δ = 10⁻³): Sachs,
    n = 100,000, the per-round ε chosen in ``column``."""
    from cgdcore.algorithms import PAPER_DELTA

    eps = float(column.number_input("Priv-PC per-round ε", 0.05, 10.0, 1.0, 0.05, key=key, **URL))
    with user_errors():
        ds = load_dataset("sachs", 100_000, 0)
        run = run_discovery(("learn-acc", eps), ds, algo="priv-pc", round_epsilon=eps, delta=PAPER_DELTA, seed=0)
    return eps, ds, run


def sieve_and_examine():
    c1, c2 = st.columns([1, 2])
    seps, sds, srun = _privpc_on_sachs(c1, "lse")
    flow = teach.sieve_examine_flow(srun.result.trace, srun.result.params.get("alpha", 0.05))
    pv = srun.privacy
    labels = [f"{flow['asked']} tests asked", f"sieve: below threshold, edge kept ({flow['sieve_keep']})",
              f"sieve hit → examine ({flow['examined']})", f"edge removed ({flow['examine_remove']})",
              f"false alarm, kept ({flow['examine_keep']})"]
    xs, ys = [0.001, 0.45, 0.45, 0.999, 0.999], [0.4, 0.35, 0.9, 0.8, 0.97]
    links = [(0, 1, flow["sieve_keep"]), (0, 2, flow["examined"]), (2, 3, flow["examine_remove"]),
             (2, 4, flow["examine_keep"])]
    if flow["stopped"]:
        labels.append(f"budget spent: not asked ({flow['stopped']})")
        links.append((0, 5, flow["stopped"]))
        xs, ys = xs + [0.999], ys + [0.05]
    c2.plotly_chart(viz_teach.sieve_flow_figure(labels, xs, ys, links), width="stretch", key="lsievefig")
    with c2:
        guarantee_message(pv, sds.n)  # what the promise is worth: its ε, its δ against 1/n, the lesson's fixed seed
    c1.metric("rounds (examined tests), ε each", f"{flow['examined']} × {seps:g}",
              help="What this run spent: an odometer reading, not a guarantee (lesson 8).")
    c1.metric("the run can promise", f"ε = {readable(pv.epsilon)}" if pv.guarantee else "no guarantee",
              help="Without a budget, any of the tests could have been a hit: the guarantee composes the most rounds "
                   "any run on data of this shape could make (lesson 8).")
    c1.metric(f"sieve sub-sample (of {sds.n:,} rows)", f"{pv.subsample_rows:,} rows")
    c1.metric("flips vs noise-free (sieve / examine)", f"{flow['flipped_sieve']} / {flow['flipped_examine']}")
    st.latex(r"\epsilon' = \ln\!\Big(\frac{n}{m}\big(e^{\epsilon/2}-1\big)+1\Big)\ \text{(sieve on } m \text{ rows costs }"
             r"\epsilon/2\text{)},\qquad \tilde p_{\text{examine}} = p + \mathrm{Lap}(2\Delta/\epsilon)\ \text{(costs } "
             r"\epsilon/2\text{)}")
    if srun.params.get("scale") == "z" and pv.subsample_rows is not None and pv.subsample_rows >= sds.n:
        sub = (f"This run decides on the z scale (the app's default), and there it sieves on all {sds.n:,} rows "
               f"(n/m = 1, so ε' = ε/2 = {pv.sieve_epsilon:.3g}): a sub-sample of m rows shrinks every dependence's "
               "z by √(m/n), more than the larger ε' of amplification gives back. The paper sieves p-values on a "
               "sub-sample, where amplification does pay: choose Decision scale = p on the Discover page to run it "
               "that way.")
    else:
        sub = (f"The sieve reads a sub-sample of {pv.subsample_rows:,} rows: sub-sampling amplifies privacy, so it "
               f"can use the larger ε' = {pv.sieve_epsilon:.3g} with less noise.")
    st.caption("Priv-PC (Wang, Pang & Song 2020, Alg. 2) on Sachs, n = 100,000. Most tests say 'dependent' and the "
               "sparse vector technique lets them through the sieve at no extra cost in this run; only a hit (a "
               "likely independence) costs a round of ε, and it is checked again on all rows so a sieve fluke does "
               f"not delete an edge. Those {flow['examined']} rounds are what this run spent, not what it can "
               "promise: any test could have been a hit, so without a budget the guarantee counts every test as a "
               f"possible round ({'ε = ' + readable(pv.epsilon) if pv.guarantee else 'none here'}; lesson 8). "
               f"{sub} The Discover page's 'Noise vs threshold' view shows each of these tests with its noisy "
               "value.")


def who_sees_what():
    st.markdown("Three ways to protect the same records, and who can see what in each:")
    cols = st.columns(3)
    cards = [
        ("Local privacy", "Every record is randomised on its owner's device (k-RR, geometric).",
         ["Data owner: own true record", "Analyst: only noisy records", "Anyone: only noisy records"],
         "No trust in anyone; costs the most accuracy. Discovery afterwards is post-processing: no further ε."),
        ("Central DP", "A trusted curator holds all records and releases noisy test results (Priv-PC, CURATE).",
         ["Curator: every true record", "Analyst: the graph and noisy decisions", "Ledger: every ε charged"],
         "Trust the curator; a run with a budget fixed in advance releases an (ε, δ)-DP graph at that budget "
         "(without a budget, as in the papers, see lesson 8). Much more accurate than local at the same ε."),
        ("Encrypted", "Owners encrypt their counts; a server computes the statistics without the key; the key "
         "holder, one of the owners, decrypts the results.",
         ["Owners: their own rows", "Server: ciphertexts only (no secret key)",
          "Key holder: one statistic per test — or, in secure aggregation, each test's summed tables, which minus "
          "its own are the other owners' total"],
         "No one pools the rows; the output itself is not private unless the DP variant adds noise."),
    ]
    for col, (title, how, sees, cost) in zip(cols, cards):
        with col.container(border=True):
            st.markdown(f"**{title}**  \n{how}")
            st.markdown("\n".join(f"- {s}" for s in sees))
            st.caption(cost)


def as_in_paper_vs_sound():
    c1, c2 = st.columns([1, 2])
    eps, ds, run = _privpc_on_sachs(c1, "lae")
    pv = run.privacy
    paper = next(v for k, v in pv.accounting.items() if k.startswith("as in paper"))
    c1.metric("the paper's formula gives", f"ε = {readable(paper['epsilon'])}", help="the paper's accounting applied "
              "to this run: advanced composition over the K rounds it happened to make (not a guarantee)")
    c1.metric("the run can promise", f"ε = {readable(pv.epsilon)}", help=pv.statement)
    c1.metric("releases in the ledger", pv.releases)
    with c2:
        guarantee_message(pv, ds.n)
        st.markdown(f"Priv-PC with ε = {eps:g} per round, as the paper runs it, has **no budget**: PC keeps asking tests "
                    "until it is done, and how many rounds that takes depends on the data. The paper composes the "
                    "rounds this run made — but a different dataset would have made a different number, so that "
                    "total is not a guarantee (an *odometer* reading; Rogers et al. 2016). What the run can promise "
                    "is the composition of the most rounds *any* dataset of this shape could cause. A budget fixed "
                    "in advance, with a filter that stops the run before it is exceeded, is what makes a small "
                    "number true.")
        st.markdown(f"Here: {paper_vs_guarantee(pv)}")
    k_max = sum(k for _, k in run.ledger.worst_case or ())
    c1.metric("most releases possible", f"{k_max:,}", help="two per round (the sieve's ε/2 and the examine's ε/2), "
              "one round per CI test any run could ask; the ledger of this run also counts the sieve that was "
              "still running when the run ended, so it shows two per round plus one")
    accounting_table(pv.accounting, "lacc", with_figure=False)  # full width: names and verdicts read whole
    # two lines: on one, the end ("k = 112,640 releases") ran past the page's width at 1,400 px
    st.latex(r"\begin{aligned}&\text{paper: } \sqrt{2K\ln(1/\delta)}\,\epsilon + K\epsilon(e^\epsilon - 1)\ "
             r"\text{at the realised } K\\ &\text{guarantee: } \min\Big(k\tfrac{\epsilon}{2},\ "
             r"\sqrt{2k\ln(1/\delta)}\,\tfrac{\epsilon}{2} + \tfrac12 k\big(\tfrac{\epsilon}{2}\big)^2\Big),\ k = "
             + f"{k_max:,}".replace(",", "{,}") + r"\ \text{releases}\end{aligned}")
    st.caption("One real Priv-PC run on Sachs (n = 100,000), deciding on this app's z scale (Discover's default). On "
               "the papers' p-value scale (the Demo's 'as in paper' run) the same data make a different number of "
               "rounds, so the paper's formula gives a different total there. " + status_legend())


def noise_in_floating_point():
    c1, c2 = st.columns([1, 2])
    lam = float(c1.select_slider("noise scale λ (ε = 1/λ)", [0.25, 0.5, 1.0, 2.0, 4.0], value=1.0, key="lfpl", **URL))
    leak = run_cached(("learn-fp", lam), teach.floating_point_leak, 400_000, lam, np.random.default_rng(0))
    p0, p1 = leak["plain"][0.0], leak["plain"][1.0]
    c1.markdown(f"Release f(D) + noise for two neighbouring datasets with f = 0 and f = 1 (Δ = 1), ε = {1 / lam:g}. "
                f"An attacker looks at outputs that land in (0, 2⁻⁶).")
    c2.dataframe([
        {"sampler": "plain numpy (x + λ·Laplace)", "f = 0: outputs on the 2⁻⁵³ grid": f"{p0['on_grid']:.1%}",
         "f = 1: outputs on the 2⁻⁵³ grid": f"{p1['on_grid']:.1%}"},
    ], hide_index=True, width="stretch")
    c1.markdown(f"One output of each, in hexadecimal:  \nf = 0: `{p0['example_hex']}`  \nf = 1: `{p1['example_hex']}`  \n"
                "f = 1's mantissa ends in zero bits.")
    c2.markdown(f"**Plain:** {p1['on_grid']:.0%} of f = 1's outputs in the window are multiples of 2⁻⁵³ (1 + noise is "
                f"rounded to the doubles near 1), against {p0['on_grid']:.1%} of f = 0's. Seeing the trailing zero bits "
                "of the hexadecimal mantissa names the input with near certainty: the ratio of probabilities is "
                f"enormous, not the e^ε = {math.exp(1 / lam):.2f} that DP promises.")
    snap = leak["snapping"]
    rows = [{"output": v, "f = 0": snap[0.0].get(v, 0), "f = 1": snap[1.0].get(v, 0),
             "|ln ratio|": (abs(math.log(snap[0.0][v] / snap[1.0][v])) if snap[0.0].get(v) and snap[1.0].get(v)
                            else float("inf"))} for v in leak["support"]]
    c2.markdown(f"**Snapping** (Mironov 2012, §5.2): clamp to ±B = ±{leak['bound']:g}, add noise, round to a multiple "
                f"of Λ = {leak['grid']:g}, clamp again. Both inputs give the same {len(rows)} outputs, with "
                f"frequency ratios within ε + sampling error (largest |ln ratio| {leak['max_log_ratio']:.3f}; the "
                f"theorem's ε = {leak['snapping_epsilon']:.13g}).")
    c2.dataframe(rows, hide_index=True, width="stretch")
    st.latex(r"\tilde f(D) = \mathrm{clamp}_B\big(\lfloor \mathrm{clamp}_B(f(D)) \oplus S \otimes \lambda \otimes "
             r"\mathrm{LN}(U^*) \rceil_\Lambda\big),\qquad \epsilon = \frac{1}{\lambda} + 2^{-49}\frac{B}{\lambda}")
    disc = leak["discrete"]
    c2.markdown(f"**Discrete** (Canonne, Kamath & Steinke 2020), what the private algorithms here use: the value is "
                f"put on a lattice of step r = 2^{int(math.log2(disc['resolution']))}, an exact discrete Laplace "
                f"integer is added (integer arithmetic only), and every output is a lattice point either input can "
                f"produce. The largest ratio of output probabilities is exactly ln ratio = {disc['exact_log_ratio']:.6g}"
                f" ≤ ε = {1 / lam:g}.")
    st.caption("Snapping repairs the Laplace mechanism, but its output is clamped and rounded to the grid Λ ≥ λ, "
               "so it is no longer Laplace noise shifted by the input, and the sparse vector technique's proof — "
               "which shifts the threshold noise by exactly Δ — has no such shift on it (measured: up to 1.4× the "
               "stated ε per hit). The private algorithms therefore draw exact "
               "discrete noise on a lattice fine enough (r ≤ Δ/1024) that rounding costs under 0.2 % more noise; "
               "the papers' 'plain' sampler stays available, marked as having no guarantee.")


def why_the_p_value_wastes_budget():
    c1, c2 = st.columns([1.3, 2])
    rows = teach.p_and_z_margins()
    c1.markdown("A private test adds noise to a number and compares it with a line. On the **p-value** scale "
                "(the papers) every strong dependence is squashed into [0, α]: a test with z = 20 is no farther from "
                "the line than one with z = 5, and not twice as far as one with z = 2, so a little noise can flip "
                "them all. On the **z** scale the margin grows "
                "with the evidence, and the noise only has to be small next to it.")
    c1.dataframe(rows, hide_index=True, width="stretch",
                 column_config={k: st.column_config.NumberColumn(format="%.3g") for k in ("p", "p margin", "z margin")})
    c1.caption("Margin = distance from the decision line at α = 0.05 (one-sided p): α − p on the p scale, "
               "|z| − z_α on the z scale.")
    with user_errors():
        ds = load_dataset("sachs", 100_000, 0)
        comp = run_cached(("learn-scale",), teach.scale_comparison, ds)
    series = [(f"{a}, {'p-value scale (as in paper)' if sc == 'p' else 'z scale'}",
               [r for r in comp if r["algorithm"] == a and r["scale"] == sc])
              for a in ("laplace-pc", "svt-pc") for sc in ("p", "z")]
    c2.plotly_chart(viz_teach.f1_against_epsilon_figure(series, y_title="skeleton F1 (Sachs)"), width="stretch",
                    key="lscalefig")
    st.latex(r"p = 1 - \Phi(|z|):\ \text{margin} \le \alpha\qquad\text{vs}\qquad |z| + \text{noise} \le c,\ "
             r"c = z_\alpha\sqrt{1+\sigma^2}\ \text{(Gaussian noise of s.d. } \sigma)")
    st.caption("Same data, same algorithms, same total ε, only the scale changed (mean of noise seeds 0–2: a "
               "reproducible demo). On the z scale the line c is calibrated to the noise, so a truly independent pair "
               "is still called dependent no more often than by the exact test at level α.")


def which_statistic():
    with user_errors():
        ds = load_dataset("sachs", 100_000, 0)
        comp = run_cached(("learn-statistic",), teach.statistic_comparison, ds)
    sens, ceiling = comp["sensitivity"], comp["ceiling"]
    c1, c2 = st.columns([1.3, 2])
    c1.markdown(
        "The noise a private test needs is set by its statistic's **sensitivity**; what the test can ever find is set "
        "by what the statistic **sees**. Kendall's z̃ (the normalised τ the tests noise) moves by at most "
        f"**{sens['kendall']:.3g}** (9/√n) when one of {comp['n']:,} records changes, but it sees only monotone "
        f"dependence: even without noise, PC with it reaches skeleton F1 **{ceiling['kendall']:.2f}** here. The "
        f"G statistic sees any dependence (PC with it: **{ceiling['g2']:.2f}**) but moves by up to "
        f"**{sens['g2']:.3g}** (4(ln n + 1)) on a scale where a strong dependence scores thousands.")
    small = next(r for r in comp["rows"] if r["test"] == "kendall")["epsilon"]
    at = {(r["test"], r["epsilon"]): r["skeleton_f1"] for r in comp["rows"]}
    cross = [e for e in sorted({r["epsilon"] for r in comp["rows"]}) if at[("g2", e)] > at[("kendall", e)] + 0.01]
    c1.markdown(
        f"So the better statistic depends on the budget: at ε = {small:g} Kendall scores "
        f"{at[('kendall', small)]:.2f} and G {at[('g2', small)]:.2f}; "
        + (f"from ε = {cross[0]:g} G is ahead, and it passes Kendall's ceiling." if cross else
           "on this grid G never gets ahead.")
        + " Both are private at the stated ε: each sensitivity is proven (and checked by exhaustive search).")
    tests = (("kendall", "Gauss-PC, Kendall τ", "Kendall"), ("g2", "Gauss-PC, G statistic", "G-test"))
    fig = viz_teach.f1_against_epsilon_figure(
        [(name, [r for r in comp["rows"] if r["test"] == t]) for t, name, _ in tests],
        ceilings=[(ceiling[t], f"PC without noise, {short}") for t, _, short in tests], y_title="skeleton F1 (Sachs)")
    c2.plotly_chart(fig, width="stretch", key="lstatfig")
    st.latex(r"\Delta\tilde z_{\text{Kendall}} < \frac{9}{\sqrt n}\qquad\qquad \Delta G \le 4\,[\,n\ln n-(n-1)\ln(n-1)\,]"
             r"\le 4(\ln n+1)")
    st.caption("Same data, same algorithm (Gauss-PC), same total ε; only the statistic changed (mean of noise seeds "
               "0–2). On Discover, choose the CI test of Gauss-PC to try either.")


#: each lesson, and the settings a link can give its examples (the keys of its widgets that are bound to the address)
LESSONS = {"1 · PC step by step": (pc_step_by_step, ("lnet", "ln")),
           "2 · A CI test and its p-value": (ci_test, ("lx", "ly", "lS")),
           "3 · ε on one coin": (epsilon_on_one_coin, ("leps", "lrate", "lppl")),
           "4 · Noise near the threshold": (noise_near_threshold, ("lfe", "lfn")),
           "5 · Budget per order": (budget_per_order, ("lan", "lat")),
           "6 · Sieve and examine": (sieve_and_examine, ("lse",)),
           "7 · Who sees what": (who_sees_what, ()),
           "8 · As in paper vs guaranteed": (as_in_paper_vs_sound, ("lae",)),
           "9 · Noise in floating point": (noise_in_floating_point, ("lfpl",)),
           "10 · Why the p-value wastes budget": (why_the_p_value_wastes_budget, ()),
           "11 · Which statistic to noise": (which_statistic, ())}


def lesson_for_link(keys) -> str:
    """The lesson a link opens when it names none (``?lesson=``): the first whose examples it sets, else the first."""
    keys = set(keys)
    return next((name for name, (_, own) in LESSONS.items() if keys & set(own)), next(iter(LESSONS)))


with checked_url_settings():  # settings in a shared link that the widgets refuse are named, not dropped silently
    # only the open lesson runs its example (ui.widgets.lazy_tabs); the open lesson is in the address
    lazy_tabs({name: lesson for name, (lesson, _) in LESSONS.items()}, key="lesson",
              default=lesson_for_link(st.query_params), check_link=False)
