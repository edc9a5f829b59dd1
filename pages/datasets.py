"""Datasets: what is bundled, where it comes from, and what its true graph looks like."""
import streamlit as st

from cgdcore.data import list_datasets
from cgdcore.exports import markdown_literal
from ui.common import checked_url_settings, explain, load_dataset, route_through_app, user_errors

route_through_app()

st.title("Datasets")
explain(
    "What am I looking at?",
    """
Every dataset the app can use. **Benchmark networks** are discrete Bayesian networks from the bnlearn
repository: the app samples as many rows as you ask for from their probability tables, and their DAG is
the ground truth. **Sachs** is real protein-signalling data (continuous) with two published "truths" that
disagree on 9 edges — the app always names the one it scores against. **Adult** is real census data
with no known truth, useful to see what privacy costs on sensitive records. **Synthetic** data come from
a random linear structural equation model whose DAG you control.
""",
    latex=[r"P(x_1,\dots,x_d) = \prod_{i=1}^{d} P\big(x_i \mid \mathrm{pa}(x_i)\big)\quad\text{(forward sampling "
           r"in topological order)},\qquad X_i = \sum_{j \in \mathrm{pa}(i)} w_{ji} X_j + \varepsilon_i\quad"
           r"\text{(linear SEM)}"],
)
infos = list_datasets()
# a Markdown table and an SVG graph: the page has nothing for the browser to load or decode but its own text (a
# data table would wait for the browser's Arrow decoder), so it opens in well under a second even on a busy server
# (bench/load.py)
columns = ("name", "kind", "variables", "rows", "ground truth", "description", "licence")
rows = [(i.name, i.kind, i.n_vars, "any (sampled)" if i.n_rows is None else f"{i.n_rows:,}", i.truth or "none",
         i.description, i.licence) for i in infos]
st.markdown("\n".join([" | ".join(columns), " | ".join("---:" if c == "variables" else "---" for c in columns),
                        *(" | ".join(markdown_literal(v) for v in row) for row in rows)]))

names = [i.name for i in infos]
with checked_url_settings():
    pick = st.selectbox("Show the true graph of", names, index=names.index("asia") if "asia" in names else 0,
                        key="dsview", bind="query-params")
info = next(i for i in infos if i.name == pick)
with user_errors():
    ds = load_dataset(pick, 200 if info.n_rows is None else None, 0)
st.markdown(f"**{pick}** — {info.description}  \nSource: {info.source}. Licence: {info.licence}.")
for note in ds.notes:
    if "sampled" not in note:  # this page samples only to read the truth; the sampling note is noise here
        st.caption(f":material/info: {note}")
if ds.truth is None:
    st.info("No ground-truth graph is known for this dataset.", icon=":material/info:")
else:
    from cgdcore import viz

    st.caption(f"Ground truth: {ds.truth_name} — {int(ds.truth.sum())} arcs over {ds.d} variables.")
    st.markdown(viz.dag_svg(ds.truth, ds.variables, label=f"True DAG of {pick}"), unsafe_allow_html=True)
