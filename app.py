"""Entry point: page configuration and navigation. Pages live in pages/ and only compose."""
# Sessions run in threads of one process, and plotly's validators look pandas up in sys.modules without importing
# it: while one session's thread is still importing pandas, another's figure met a half-initialised module
# ("partially initialized module 'pandas' has no attribute 'Series'"). A real import statement waits for an
# import in progress to finish, so every script run passes one before drawing (tests/unit/test_app_imports.py).
import numpy  # noqa: F401
import pandas  # noqa: F401
import streamlit as st

from ui.common import SAID_THIS_RUN, say_unused_link_settings
from ui.history import keep_settings_in_history
from ui.links import canonical_link
from ui.priority import drawing
from ui.stopping import stop_when_user_leaves

st.set_page_config(page_title="Private causal discovery", page_icon="🕸️", layout="wide",
                   menu_items={"About": "Teach, explore and demonstrate privacy-preserving causal discovery."})

pages = [
    st.Page("pages/discover.py", title="Discover", icon=":material/hub:", default=True),
    st.Page("pages/learn.py", title="Learn", icon=":material/school:", url_path="learn"),
    st.Page("pages/demo.py", title="Demo", icon=":material/co_present:", url_path="demo"),
    st.Page("pages/budget.py", title="Budget", icon=":material/savings:", url_path="budget"),
    st.Page("pages/score.py", title="Score", icon=":material/show_chart:", url_path="score"),
    st.Page("pages/local.py", title="Local privacy", icon=":material/shield_person:", url_path="local"),
    st.Page("pages/encrypted.py", title="Encrypted", icon=":material/lock:", url_path="encrypted"),
    st.Page("pages/tradeoff.py", title="Trade-off", icon=":material/query_stats:", url_path="tradeoff"),
    st.Page("pages/datasets.py", title="Datasets", icon=":material/dataset:", url_path="datasets"),
]
# leaving a page, rerunning it or Stop ends its long runs (ui/stopping.py); heavy runs pause while this script run
# draws a page (ui/priority.py)
link = {k: st.query_params.get_all(k) for k in st.query_params}  # the settings the page opens with
keep_settings_in_history()  # Back returns to a page with its settings (ui/history.py)
unused_slot = st.empty()  # above the page: a setting the page did not use is named there once it has run
st.session_state[SAID_THIS_RUN] = set()  # a refused setting is named once per run (ui.common.checked_url_settings)
with stop_when_user_leaves(), drawing():
    page = st.navigation(pages)
    canonical_link()  # ?salgo=noleaks opens again as ?salgo=DP-NOTEARS+(noleaks), which the address keeps (ui/links.py)
    page.run()
say_unused_link_settings(link, unused_slot, page.url_path)
