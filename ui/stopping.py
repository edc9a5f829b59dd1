"""Ending a page's long computation when its user leaves the page, reruns it or presses Stop.

Streamlit ends a script run only at its own yield points: a stop or rerun request (navigating to another page,
changing a widget, the toolbar's Stop, a closed tab) is acted on the next time the script thread calls into
Streamlit, which raises its stop/rerun exception there. A long ``cgdcore`` call does not call into Streamlit, so
:func:`stop_when_user_leaves` installs a ``cgdcore.cancel`` check that does, from the inner loops' checkpoints.
"""
from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from cgdcore.cancel import cancellable
from ui.priority import CHECK_INTERVAL, give_way

#: A session-state key that is never set: reading it is only a yield point.
_PROBE = "_cgd_stop_probe"


def yield_to_streamlit() -> None:
    """Let Streamlit end this script run if it was asked to (raises its stop or rerun exception); otherwise return.

    Uses public API only: every ``st.session_state`` access from the script thread first handles a pending stop or
    rerun request (``SafeSessionState`` calls the script runner's ``_maybe_handle_execution_control_request``;
    checked in Streamlit 1.67). Unlike updating an element, it sends nothing to the browser, so it is also safe inside
    ``st.cache_*`` functions (nothing is recorded for replay). Off the script thread (a worker thread) it does
    nothing. The browser test ``tests/browser/test_leaving.py`` fails if a later Streamlit drops this behaviour."""
    _ = _PROBE in st.session_state


def _check() -> None:
    yield_to_streamlit()
    give_way(yield_to_streamlit)  # a heavy run pauses while a page is being drawn (ui/priority.py)


@contextmanager
def stop_when_user_leaves(interval: float = CHECK_INTERVAL):
    """Within the block, long ``cgdcore`` runs check every ``interval`` seconds whether the user left, and end by
    Streamlit's own exception if so (so an aborted cached call stores nothing); a heavy run also gives way to pages
    being drawn there."""
    with cancellable(_check, interval):
        yield
