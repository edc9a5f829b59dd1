"""The browser's Back button returns to a page with the settings it had.

Each page keeps its settings in the address (widgets bound to the URL), and a page's history entry is its address.
Leaving a page for another through the app's own links (the sidebar, a page link), Streamlit's server drops the
settings of the page being left from its copy of the address, and its frontend then wrote that shorter address for
the *old* page just before the new page's entry: as a new entry (``/?ds=sachs&n=5000`` → ``/`` → ``/datasets``) or,
when the old page had been reached by Back, over its own entry. Back then led to ``/``, and the page opened with its
defaults (seen in chromium on about half of the page changes, and on most changes after a Back on a busy machine: it
depends on which of two messages arrives first).

:data:`SCRIPT` is a page script, added once to the document: between a click on a link to another page of the app and
that page's entry, the page being left is not written again (the address of the page being left stays the one
with its settings). Everything else the frontend writes into the history is left as it is. Checked in the browser:
tests/browser/test_browser.py::test_back_returns_to_a_page_with_its_settings.
"""
from __future__ import annotations

import streamlit as st

#: the page script (our own constant; no user text in it)
SCRIPT = """<span class="cgd-history"></span><script>(() => {
  if (window.cgdHistory) return;
  window.cgdHistory = true;
  const WINDOW_MS = 5000;  // a page change the server never answered stops counting after this long
  let leaving = null;  // {from, at}: a click on a link to another page of this app
  document.addEventListener("click", (e) => {
    const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey || a.target === "_blank") return;
    if (a.origin === location.origin && a.pathname !== location.pathname)  // this tab goes to another page
      leaving = {from: location.pathname, at: performance.now()};
  }, true);
  // the frontend writes the page being left without its settings as a new entry (pushState) or, after a Back,
  // over its own entry (replaceState); either way that write is skipped, and the new page's entry ends the watch
  for (const kind of ["pushState", "replaceState"]) {
    const write = history[kind].bind(history);
    history[kind] = (state, title, url) => {
      if (leaving && url != null) {
        const to = new URL(url, location.href).pathname;
        if (performance.now() - leaving.at > WINDOW_MS || location.pathname !== leaving.from) leaving = null;
        else if (to === leaving.from) return;  // the page being left, without its settings: keep its own entry
        else leaving = null;  // the new page's entry
      }
      return write(state, title, url);
    };
  }
})();</script>"""


def keep_settings_in_history() -> None:
    """Add :data:`SCRIPT` to the page (its element takes no room: hidden, so the page's column has no gap for it)."""
    st.html("<style>[data-testid='stElementContainer']:has(.cgd-history) { display: none; }</style>" + SCRIPT,
            unsafe_allow_javascript=True)
