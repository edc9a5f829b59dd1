"""Widgets the pages share: inputs generated from the algorithm registry's declared options
(cgdcore.algorithms.PARAMS), and tabs drawn only when open.

The choices, default and allowed interval of an option come from its one declaration; a page gives only what is
about presentation — the label, a longer teaching help text, a tighter range that suits a slider, the step.
"""
from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

from cgdcore.algorithms import PARAMS
from ui.common import checked_url_settings

URL = {"bind": "query-params"}


def option_input(key: str, *, widget_key: str, label: str, help: str | None = None, lo: float | None = None,
                 hi: float | None = None, step: float | None = None, choices=None):
    """The widget of algorithm option ``key``: a horizontal radio for a choice, a number input for a number (within
    the declared interval; ``lo``/``hi`` may only narrow it), starting at the declared default."""
    p = PARAMS[key]
    text = help or p.help[:1].upper() + p.help[1:] + "."
    if p.kind == "choice":
        options = list(choices or p.choices)
        assert set(options) <= set(p.choices), (key, options)
        start = options.index(p.default) if p.default in options else 0
        return st.radio(label, options, index=start, key=widget_key, horizontal=True, help=text, **URL)
    low = p.low if lo is None else lo
    high = p.high if hi is None else hi
    assert (p.low is None or low >= p.low) and (p.high is None or high <= p.high), (key, low, high)
    if p.high_open and high == p.high:  # the widget's largest value is one step inside an excluded end
        high = high - (step or (1 if p.kind == "int" else 0.01))
    if p.kind == "int":
        return int(st.number_input(label, min_value=int(low), max_value=int(high), value=int(p.default),
                                   step=int(step or 1), key=widget_key, help=text, **URL))
    return float(st.number_input(label, min_value=float(low), max_value=float(high), value=float(p.default),
                                 step=float(step or 0.01), format="%g", key=widget_key, help=text, **URL))


def lazy_tabs(draws: dict, key: str, keep: dict | None = None, check_link: bool = True, **tabs_kwargs) -> None:
    """Tabs named by ``draws``' keys, of which only the open one is drawn, by calling its function (Streamlit's
    ``on_change="rerun"``): opening a tab reruns the page, and each tab's content is built on the run that shows it,
    so the closed tabs' tables, charts and pages cost the server and the browser nothing. ``tabs_kwargs`` go to
    ``st.tabs`` (``default``).

    The open tab is in the address (``?discover_tab=CI-test+log``; the first tab leaves it out), so a reload or a
    shared link opens it. A link naming a tab the page does not have gets the page's warning about refused settings
    (:func:`ui.common.checked_url_settings`), unless ``check_link`` is false: the caller checks the link around a
    larger block.

    The open tab stays open when the set of tabs changes (Discover's algorithm switched from PC to Priv-PC adds two
    tabs) if the new set has it: see :func:`_open_across_tab_sets`.

    ``keep``: the widgets inside the tabs, key → starting value (``None``: the widget's own first option). Streamlit
    forgets a widget's value on a run that does not draw it, so a toggle would be off again when its tab reopens;
    saving the value in each run keeps it (Streamlit's documented idiom for widgets that are not always drawn). The
    starting value is set here, so the widget itself is drawn without one: a widget given both a value of its own
    and one set through the session state makes Streamlit log a warning.

    While the page's script runs (a tab opening included), two rules hold (checked in the browser:
    tests/browser/test_browser.py and test_leaving.py):

    - the tab panels keep at least a window's height until the new tab is drawn, charts included, so the page does
      not shrink meanwhile and the browser does not move the tab bar the user just clicked;
    - the tabs are dimmed and take no click and no key (← → Home End Enter Space on a focused tab): the tabs of the
      previous result stay on screen while a new result computes, and opening one there would rerun the page and
      start that computation again from the beginning."""
    for k, start in (keep or {}).items():
        if k in st.session_state:
            st.session_state[k] = st.session_state[k]
        elif start is not None:
            st.session_state[k] = start
    names_changed = _open_across_tab_sets(key, tuple(draws))
    running = f"[data-test-script-state='running'] .st-key-{key}"
    # a click empties the panel at once, before the rerun starts, and a chart is drawn after the run ends: a panel
    # that is empty, or whose chart has no figure yet, holds the height too
    panel = f".st-key-{key} [role='tabpanel']"
    waiting = (f"{panel}:not(:has([data-testid='stElementContainer']))", f"{panel}:has([data-testid='stSkeleton'])",
               f"{panel}:has([data-testid='stPlotlyChart']):not(:has(.main-svg))", f"{running} [role='tabpanel']")
    st.html("<style>" + " ".join(f"{w} {{ min-height: 100vh; }}" for w in waiting) + " "  # one rule each: a
            # selector the browser cannot read drops only its own rule
            f".st-key-{key} [role='tablist'] {{ flex-wrap: wrap; }} "  # every tab in view: Learn's eleven, a
            # deep link's tab, a narrow window's last tabs (a tab bar scrolled sideways hid them behind an arrow)
            f"{running} [role='tab'] {{ pointer-events: none; opacity: 0.5; }} "
            f"{running} [role='tablist'] {{ cursor: progress; }} "
            # an element that runs a script takes its place in the page's column (its gap): this one takes none
            "[data-testid='stElementContainer']:has(.cgd-tab-keys) { display: none; }</style>"
            + _TAB_SCRIPT.replace("KEY", key),
            unsafe_allow_javascript=True)  # our own script, no user text: the key is the page's identifier
    # a tab in the address that the page's own new set of tabs lacks was not a link's doing
    with checked_url_settings() if check_link and not names_changed else nullcontext():
        tabs = st.tabs(list(draws), key=key, on_change="rerun", bind="query-params", **tabs_kwargs)
    for tab, (name, draw) in zip(tabs, draws.items()):
        if tab.open:
            st.session_state[f"_{key}_open"] = name
            with tab:
                draw()


#: the tabs' page script, its listeners added once per page: (1) the keyboard's way to a dimmed tab, closed while the
#: page's script runs: ← → Home End Enter and Space on a tab of these tabs are dropped (the tab list moves to and
#: opens a tab on them, which would rerun the page as a click would; CSS can stop the mouse only); (2) a tab opened
#: in a page scrolled down does not move the tab bar: at the click or key the page keeps at least the height that
#: fills the window, so a shorter tab leaves room at the page's foot instead of the browser scrolling the page back
#: (on Discover the bar went from the window's top edge to 860 px down); leaving the page lets go of that height
_TAB_SCRIPT = """<span class="cgd-tab-keys"></span><script>(() => {
  const keys = window.cgdQuietTabs = window.cgdQuietTabs || new Set();
  if (keys.has("KEY")) return;
  keys.add("KEY");
  if (keys.size > 1) return;
  const moving = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "Enter", " "]);
  const ours = (el) => {
    const tab = el instanceof Element ? el.closest("[role='tab']") : null;
    return tab && [...keys].some((k) => tab.closest(".st-key-" + k)) ? tab : null;
  };
  const block = () => document.querySelector("[data-testid='stMainBlockContainer']");
  const holdHeight = () => {
    const b = block(), main = b && b.closest(".stMain");
    if (!main) return;
    const top = b.getBoundingClientRect().top - main.getBoundingClientRect().top;
    b.style.minHeight = Math.ceil(main.clientHeight - top) + "px";
  };
  const release = () => { const b = block(); if (b) b.style.minHeight = ""; };
  window.addEventListener("keydown", (e) => {
    const tab = moving.has(e.key) ? ours(e.target) : null;
    if (!tab) return;
    if (!tab.closest("[data-test-script-state='running']")) return holdHeight();
    e.preventDefault();
    e.stopImmediatePropagation();
  }, true);
  window.addEventListener("click", (e) => {
    if (ours(e.target)) holdHeight();
    else if (e.target instanceof Element && e.target.closest("a[href]")) release();
  }, true);
  window.addEventListener("popstate", release);
})();</script>"""


def _open_across_tab_sets(key: str, labels: tuple[str, ...]) -> bool:
    """Keep tabs ``key`` (now named ``labels``) on the tab drawn last if their names changed since and the new names
    have it, else on their first.

    Streamlit makes new tabs when their names change, which open their first (or ``default``) tab; a value set in
    the session state before they are drawn is the one they open instead. New tabs do not write that value into the
    address, so it is set once more on the next run, when they are no longer new: Streamlit then puts the open tab
    in the address, or takes the old one out. Returns true on both runs: what the address loses then is the page's
    doing, not a link's."""
    named, drawn, again = f"_{key}_labels", f"_{key}_open", f"_{key}_set_again"
    before = st.session_state.get(named)
    st.session_state[named] = labels
    if before is not None and before != labels:
        was_open = st.session_state.get(drawn)
        st.session_state[key] = was_open if was_open in labels else labels[0]
        st.session_state[again] = True
        return True
    if st.session_state.pop(again, False):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
        return True
    return False
