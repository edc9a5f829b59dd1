"""Learn: the ideas behind private causal discovery, each with a small live example."""
import numpy as np
import streamlit as st

from ui.common import explain, load_dataset, route_through_app, run_discovery, user_errors

route_through_app()

URL = {"bind": "query-params"}

st.title("Learn")
st.caption("What PC does, what a CI test and ε are, why noise flips decisions near the threshold, who sees what "
           "under local, central and encrypted privacy, and where the papers' accounting is loose — each with a "
           "small example you can change.")
explain("What am I looking at?", """
Six short lessons, in the order a newcomer needs them. Every example runs live on data sampled from a benchmark
network, so changing a slider changes the numbers. The other pages go deeper: **Discover** (any algorithm on any
data), **Budget** (CURATE's per-order allocation, Priv-PC's sieve-and-examine noise), **Local privacy**,
**Encrypted** and **Trade-off** (sweeps).
""")

from cgdcore import teach, viz  # noqa: E402

t_pc, t_ci, t_eps, t_flip, t_trust, t_acc = st.tabs(
    ["1 · PC step by step", "2 · A CI test and its p-value", "3 · ε on one coin", "4 · Noise near the threshold",
     "5 · Who sees what", "6 · As in paper vs sound"])

with t_pc:
    c1, c2 = st.columns([1, 3])
    net = c1.selectbox("Network", ["cancer", "earthquake", "asia", "survey", "sachs"], key="lnet", **URL)
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
        c1.dataframe([{"pair": f"{names[x]} – {names[y]}", "separating set S": ", ".join(names[v] for v in S) or "∅",
                       "p": round(p, 4)} for x, y, S, p in s.removed], hide_index=True)
    c2.plotly_chart(viz.graph_figure(s.graph, ds.truth, ds.variables, title_learned=s.title.split(":")[0],
                                     height=430), width="stretch", key="lpcfig")
    st.latex(r"X \perp\!\!\!\perp Y \mid S \ \Rightarrow\ \text{remove } X - Y,\ \text{sepset}(X,Y) = S;\qquad "
             r"X - Z - Y,\ Z \notin \text{sepset}(X,Y) \Rightarrow X \to Z \leftarrow Y")

with t_ci:
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
    m2.metric("degrees of freedom", r.dof)
    m3.metric("p-value", f"{r.p_value:.4g}")
    m4.metric("decision at α = 0.05", "independent" if r.p_value >= 0.05 else "dependent")
    import plotly.graph_objects as go
    from scipy.stats import chi2

    dof = max(int(r.dof), 1)
    hi = max(chi2.isf(1e-4, dof), r.statistic * 1.1)
    xs = np.linspace(0, hi, 400)
    fig = go.Figure(go.Scatter(x=xs, y=chi2.pdf(xs, dof), mode="lines", name=f"χ²({dof}) under independence",
                               line={"color": "#0072B2"}))
    tail = xs >= r.statistic
    fig.add_scatter(x=xs[tail], y=chi2.pdf(xs[tail], dof), fill="tozeroy", mode="none", name="p-value (tail area)",
                    fillcolor="rgba(213,94,0,0.35)")
    fig.add_vline(x=r.statistic, line_dash="dash", line_color="#D55E00",
                  annotation_text=f"G = {r.statistic:.2f}")
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), xaxis_title="statistic",
                      yaxis_title="density", legend=dict(orientation="h", y=-0.3))
    st.plotly_chart(fig, width="stretch", key="lcifig")
    st.latex(r"G = 2\sum_{s}\sum_{x,y} O_{xys}\ln\frac{O_{xys}}{E_{xys}},\quad E_{xys} = \frac{O_{x\cdot s}O_{\cdot ys}}"
             r"{O_{\cdot\cdot s}},\quad p = P\big(\chi^2_{\text{dof}} \ge G\big)")
    st.caption("The p-value is how surprising the data would be if X and Y were independent given S. PC calls the pair "
               "independent when p ≥ α. Try X = either, Y = xray with and without S = lung (or tub).")

with t_eps:
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
    st.latex(r"\frac{P(\text{report}=r \mid \text{yes})}{P(\text{report}=r \mid \text{no})} \le e^{\epsilon},\qquad "
             r"\hat\pi = \frac{\bar r - (1-q)}{2q-1}")
    st.caption("Smaller ε: stronger deniability, noisier estimate — the estimate's sd grows like 1/(2q−1). "
               "The Local privacy page applies exactly this (k-RR) to every column of a dataset.")

with t_flip:
    c1, c2 = st.columns([1, 2])
    eps = float(c1.slider("ε per test", 0.05, 10.0, 1.0, 0.05, key="lfe", **URL))
    n = int(c1.select_slider("rows n", [1000, 10_000, 100_000, 1_000_000], value=100_000, key="lfn", **URL))
    from cgdcore.citests import kendall_p_sensitivity

    sens = kendall_p_sensitivity(n, 6.0, "one")
    scale = sens / eps
    gaps = np.linspace(-0.1, 0.1, 401)
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=0.05 + gaps, y=teach.flip_probability(0.05 + gaps, 0.05, scale), mode="lines",
                               line={"color": "#D55E00"}, name="P(decision flips)",
                               hovertemplate="p = %{x:.3f}<br>P(flip) = %{y:.3f}<extra></extra>"))
    fig.add_vline(x=0.05, line_dash="dot", annotation_text="α = 0.05")
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=30, b=10), xaxis_title="true p-value of the test",
                      yaxis_title="chance the noise flips the decision", yaxis_range=[0, 0.52])
    c2.plotly_chart(fig, width="stretch", key="lflipfig")
    c1.metric("p-value sensitivity Δ", f"{sens:.2e}")
    c1.metric("Laplace scale Δ/ε", f"{scale:.2e}")
    st.latex(r"\tilde p = p + \mathrm{Lap}(\Delta/\epsilon),\qquad P(\text{flip}) = \tfrac12\, e^{-|p-\alpha|\,\epsilon/\Delta}")
    st.caption("Only tests whose p-value lies within a few Δ/ε of the threshold can flip; with n = 100,000 rows "
               "Kendall's τ has a tiny sensitivity, so even ε = 1 per test flips few decisions. The Discover page's "
               "'Noise vs threshold' view shows every test of a real private run with its flips circled.")

with t_trust:
    st.markdown("Three ways to protect the same records, and who can see what in each:")
    cols = st.columns(3)
    cards = [
        ("Local privacy", "Every record is randomised on its owner's device (k-RR, geometric).",
         ["Data owner: own true record", "Analyst: only noisy records", "Anyone: only noisy records"],
         "No trust in anyone; costs the most accuracy. Discovery afterwards is post-processing: no further ε."),
        ("Central DP", "A trusted curator holds all records and releases noisy test results (Priv-PC, CURATE).",
         ["Curator: every true record", "Analyst: the graph and noisy decisions", "Ledger: every ε spent"],
         "Trust the curator; the released graph is ε-DP. Much more accurate than local at the same ε."),
        ("Encrypted", "Owners encrypt their counts; a server computes the statistics without the key; the key "
         "holder decrypts only the results.",
         ["Owners: their own rows", "Server: ciphertexts only (no secret key)", "Key holder: the decrypted statistics"],
         "No one pools the rows; the output itself is not private unless the DP variant adds noise."),
    ]
    for col, (title, how, sees, cost) in zip(cols, cards):
        with col.container(border=True):
            st.markdown(f"**{title}**  \n{how}")
            st.markdown("\n".join(f"- {s}" for s in sees))
            st.caption(cost)

with t_acc:
    c1, c2 = st.columns([1, 2])
    eps = float(c1.number_input("Priv-PC per-round ε", 0.05, 10.0, 1.0, 0.05, key="lae", **URL))
    with user_errors():
        ds = load_dataset("sachs", 100_000, 0)
        run = run_discovery(("learn-acc", eps), ds, algo="priv-pc", round_epsilon=eps, seed=0)
    acc = run.privacy["accounting"]
    rows = [{"rule": k, "ε": round(v["epsilon"], 3), "δ": f"{v['delta']:.0e}", "valid bound": "yes" if v["valid"]
             else "no", "how": v["note"]} for k, v in acc.items()]
    c2.dataframe(rows, hide_index=True, width="stretch")
    c1.metric("releases in the ledger", run.privacy["releases"])
    c1.metric("headline (tightest valid)", f"ε = {run.privacy['epsilon']:.2f}")
    st.latex(r"\epsilon_{\text{adv}} = \sqrt{2k\ln(1/\delta')}\,\epsilon_0 + k\,\epsilon_0\,(e^{\epsilon_0}-1)"
             r"\quad\text{vs the paper's}\quad \sqrt{2K\ln(1/\delta)}\,\epsilon + K\epsilon^2")
    st.caption("One real Priv-PC run on Sachs (n = 100,000). The paper totals K rounds with its own formula; sound "
               "accounting composes what was actually released (the sieve on a sub-sample, amplified, and the "
               "examine on the full data). 'valid bound = no' marks formulas that do not hold for this run.")
