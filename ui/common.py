"""Streamlit glue shared by the pages: cached loaders and runners, error display.

Only deterministic things are cached: loaded/sampled data and non-private discovery results
(their cache keys hold every parameter, including the seed), in one cache bounded in bytes and entries
(:func:`memory`).
"""
from __future__ import annotations

import hashlib
import io
import os
import threading
from contextlib import contextmanager

import streamlit as st

from cgdcore import UserError
from cgdcore.cancel import checkpoint
from cgdcore.exports import code_span, markdown_literal
from ui.priority import not_drawing


@st.cache_resource(show_spinner=False)
def memory():
    """The server's one cache of datasets, uploads and deterministic results (ui.bounded_cache): at most
    CGD_CACHE_MB in total, least recently used first out, and per kind an entry limit and a time to live."""
    from ui.bounded_cache import ByteBoundedLRU, budget_bytes

    store = ByteBoundedLRU(budget_bytes())
    for kind, entries, ttl in (("dataset", 24, 3600), ("upload", 8, 3600), ("discovery", 32, 3600),
                               ("discovery-upload", 8, 3600), ("cached", 48, 3600), ("stored", 16, 3600),
                               ("sweep", 24, 6 * 3600)):
        store.limit(kind, entries, ttl)
    return store


def session_id() -> str:
    """This session's id: uploads and results on them are kept per session (``kind:session`` namespaces)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else ""


def load_dataset(spec: str, n: int | None, seed: int):
    def load():
        from cgdcore.data import load_dataset as _load

        with not_drawing(heavy=True):  # sampling many rows is a heavy run's work: it gives way to pages too
            ds = _load(spec, n=n, seed=seed)
        ds.data.setflags(write=False)
        return ds

    return memory().get_or_compute("dataset", (spec, n, seed), load)


def load_upload(digest: str, name: str, payload: bytes, missing: str):
    """Parse an uploaded CSV once per session and content (the digest is the cache key)."""
    def parse():
        from cgdcore.data.tabular import load_csv

        ds = load_csv(io.BytesIO(payload), name=name, missing=missing)
        ds.data.setflags(write=False)
        return ds

    return memory().get_or_compute(f"upload:{session_id()}", (digest, name, missing), parse)


def _frozen(value):
    """A hashable stand-in for a call's parameters: dicts as sorted tuples, lists as tuples, arrays by a digest of
    their bytes, anything else unhashable by its repr (an object whose repr is its address never matches another)."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(_frozen(v) for v in (sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value))
    if hasattr(value, "dtype") and hasattr(value, "tobytes"):  # an array: its content, not its abbreviated repr
        return ("array", str(value.dtype), getattr(value, "shape", ()), digest(value.tobytes()))
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


def digest(payload: bytes) -> str:
    return hashlib.blake2b(payload, digest_size=16).hexdigest()


#: Heavy runs the server computes at once (the rest wait their turn): one per core, so a page that only reads
#: cached results or draws stays responsive. Set CGD_HEAVY_SLOTS to change it.
HEAVY_SLOTS = max(1, int(os.environ.get("CGD_HEAVY_SLOTS", "0") or 0) or (os.cpu_count() or 1))


_held = threading.local()


@st.cache_resource(show_spinner=False)
def _slots() -> dict:
    return {"cond": threading.Condition(), "running": 0, "waiting": 0}


@contextmanager
def heavy_slot():
    """Hold one of the server's :data:`HEAVY_SLOTS` while computing; wait (first come, first served) when all are
    taken. Used inside the cached runners, so a cache hit never waits. A run that ends early (an error, or its
    user left while it waited or ran) gives its slot back."""
    if getattr(_held, "depth", 0):  # a heavy run calling another: it already holds its slot
        _held.depth += 1
        try:
            yield
        finally:
            _held.depth -= 1
        return
    with not_drawing(), _slot(), not_drawing(heavy=True):  # a waiting or computing run does not draw; while it
        yield  # computes, it pauses for pages being drawn (ui/priority.py)


@contextmanager
def _slot():
    s = _slots()
    with s["cond"]:
        s["waiting"] += 1
        try:
            while s["running"] >= HEAVY_SLOTS:
                s["cond"].wait(timeout=0.2)
                checkpoint()  # a waiting run ends when its user leaves (ui/stopping.py)
        finally:
            s["waiting"] -= 1
        s["running"] += 1
    _held.depth = 1
    restore = _yield_cpu()
    try:
        yield
    finally:
        _held.depth = 0
        restore()
        with s["cond"]:
            s["running"] -= 1
            s["cond"].notify()


#: Niceness of a thread while it computes a heavy run (CGD_HEAVY_NICE, 0 = off): the kernel then gives the
#: server's other threads (page scripts, the web server) the cores first, so a page that only draws stays quick.
HEAVY_NICE = int(os.environ.get("CGD_HEAVY_NICE", "10") or 0)


def _yield_cpu():
    """Lower this thread's CPU priority (Linux: a thread is a task with its own niceness) and return a function that
    puts it back. Streamlit runs each script run in a thread of its own that ends with the run, but the thread draws
    the result after its heavy run, and a caller's thread may live on (a test's, a notebook's): it gets its niceness
    back where the system lets a thread raise its priority again (root, or RLIMIT_NICE), and otherwise keeps the
    lower one. Where a thread's priority cannot be changed, nothing happens."""
    if HEAVY_NICE <= 0 or not hasattr(os, "setpriority"):
        return lambda: None
    tid = threading.get_native_id()
    try:
        before = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, max(before, HEAVY_NICE))
    except OSError:
        return lambda: None

    def restore():
        try:
            os.setpriority(os.PRIO_PROCESS, tid, before)
        except OSError:  # raising a priority again needs the privilege to
            pass
    return restore


def queue_notice() -> None:
    """Say where a new run stands when every slot is busy (shown before the run asks for one)."""
    s = _slots()
    with s["cond"]:
        running, waiting = s["running"], s["waiting"]
    if running >= HEAVY_SLOTS:
        st.info(f"The server is busy: {running} run{'s' if running != 1 else ''} in progress"
                + (f" and {waiting} waiting" if waiting else "")
                + f". Yours is number {waiting + 1} in the queue and starts when a slot frees (results already "
                  "computed by anyone are shown at once).", icon=":material/hourglass_top:")


def check_work(name: str, n: int, d: int, params: dict) -> None:
    """Refuse, with the equivalent command, a run on ``n`` rows of ``d`` variables of dataset ``name`` whose
    estimated work is above the server's ceiling (cgdcore.workload; the CLI has none). Called before sampling
    where the shape is known in advance."""
    from cgdcore.cli import command_line
    from cgdcore.workload import work_units

    units = work_units(params.get("algo", "pc"), n, d, max_order=params.get("max_order"),
                       options=params.get("options"), ldp=params.get("ldp"))
    if refuse_work(units, "run", "fewer rows, fewer variables or a smaller maximum order",
                   lambda: [command_line(name, n, params)]):
        st.stop()


def refuse_work(units: float, what: str, smaller: str, commands) -> bool:
    """Above the server's ceiling (cgdcore.workload), say so with the estimate and the equivalent commands
    (``commands()``: a list, None for a run without a command line) and return True; else draw nothing."""
    from cgdcore.workload import ceiling, seconds_hint

    top = ceiling()
    if units <= top:
        return False
    st.error(f"This {what} is too large for the shared app: about {units:.2g} row-passes (≈ {seconds_hint(units):,.0f} "
             f"s of computing; this server's ceiling is {top:.2g}). Use {smaller} — or run it from the command line, "
             "which has no ceiling:", icon=":material/speed:")
    lines = [c for c in commands() if c]
    st.code("\n".join(lines) or "(an option of this run has no command-line flag)", language="bash")
    return True


def run_discovery(key: tuple, dataset, **params):
    """Non-private discovery is deterministic given data and parameters: cached by ``key`` (private runs hold their
    noise seed in the key). Checked against the work ceiling first; computed in a heavy slot."""
    check_work(dataset.name, dataset.n, dataset.d, params)
    queue_notice()
    return _run_discovery(key, dataset, **params)


def run_discovery_on_upload(key: tuple, dataset, **params):
    """``run_discovery`` for a user's upload, cached per session: a result carries its dataset (file name
    included), so a process-wide entry keyed by content would hand it to anyone uploading the same bytes."""
    check_work(dataset.name, dataset.n, dataset.d, params)
    queue_notice()
    return _run_discovery_on_upload(key, dataset, **params)


def _run_discovery(key: tuple, dataset, **params):
    return memory().get_or_compute("discovery", _frozen((key, params)), lambda: _discover(dataset, params))


def _run_discovery_on_upload(key: tuple, dataset, **params):
    return memory().get_or_compute(f"discovery-upload:{session_id()}", _frozen((key, params)),
                                   lambda: _discover(dataset, params))


def _discover(dataset, params):
    from cgdcore.discover import discover

    with heavy_slot():
        return discover(dataset, **params)


def _cached(key: tuple, fn, args, kwargs):
    def compute():
        with heavy_slot():
            return fn(*args, **kwargs)

    return memory().get_or_compute("cached", _frozen(key), compute)


_MISSING = object()


def run_stored(key: tuple, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` kept by ``key`` in :func:`memory`, shared by all sessions (the 16 most recent, for an
    hour), for calls that draw on the page while they run (progress bars, status lines). Streamlit's caches record
    what a cached call draws and replay it on the next hit; an element created outside the call cannot be
    replayed, and the second request for the same key failed with CacheReplayClosureError."""
    store, key = memory(), _frozen(key)
    hit = store.get("stored", key, _MISSING)
    if hit is not _MISSING:
        return hit
    queue_notice()
    with heavy_slot():
        value = fn(*args, **kwargs)
    store.put("stored", key, value)
    return value


def run_cached(key: tuple, fn, *args, _progress=None, **kwargs):
    """Cache a deterministic computation by ``key`` (which must hold every input, seeds included).
    With ``_progress`` (a callback that draws on the page) the result is kept by :func:`run_stored`."""
    full = (fn.__module__, fn.__qualname__) + tuple(key)
    if _progress is None:
        return _cached(full, fn, args, kwargs)
    return run_stored(full, fn, *args, progress=_progress, **kwargs)


@contextmanager
def user_errors():
    """Show a UserError as a clear message instead of a traceback; keep the app running."""
    try:
        yield
    except UserError as e:
        st.error(markdown_literal(e), icon=":material/error:")  # plain text, as the CLI prints it: it may quote
        # what the user typed, uploaded or linked (a column name, a range, an ε grid)
        st.stop()
    except MemoryError:
        st.error("Out of memory: use fewer rows or a smaller maximum order.", icon=":material/error:")
        st.stop()


def url_accepts_names(key: str, options, format_func) -> None:
    """Let a link name an option by its value when a single-choice widget (radio, selectbox) shows it under
    another label. (A multiselect seeds itself from the valid part of the link and drops the rest, so this cannot
    help there: keep its options unformatted.)

    A widget bound to the URL with a ``format_func`` writes (and reads) the label, so ``?salgo=noleaks`` would be
    refused once ``noleaks`` is shown as "DP-NOTEARS (noleaks)". Call before the widget: on the session's first run a
    link naming options by value seeds the widget's value (the widget, not finding such a label, keeps it)."""
    raw = st.query_params.get_all(key)
    if key in st.session_state or not raw or not any(r in options and format_func(r) != r for r in raw):
        return
    labels = {format_func(o): o for o in options}
    values = [labels.get(r, r) for r in raw]
    if all(v in options for v in values):
        st.session_state[key] = values[0]


#: session-state key of the link settings a run has already named as refused (app.py empties it before each run)
SAID_THIS_RUN = "_link_settings_said"


@contextmanager
def checked_url_settings(changed_by_page=(), labels=None):
    """Around a page's widgets: say which settings in the link were refused instead of dropping them silently.

    A widget bound to the URL (``bind="query-params"``) ignores a value outside its range or options (``?eps=0``,
    ``?alpha=1.5``, ``?delta_curate=1``) and Streamlit removes it from the URL without a word, so the page would run
    with the default while the user believes it used their value. A parameter that was in the link before the
    widgets ran, is gone or changed after, and does not match the widget's value was refused; so was every value but
    one of a setting the link gives more than once (``?n=2000&n=3000``). Keys in
    ``changed_by_page`` were changed on purpose this run (a preset filled them in) and are not checked; ``labels``
    maps a widget's key to its ``format_func``, so the message names the value used as the widget shows it. A
    setting is named once per run, by the first block that finds it refused.
    """
    before = {k: st.query_params.get_all(k) for k in st.query_params}
    slot = st.empty()  # the warning goes where the settings begin, not below whatever the widgets' block drew
    yield
    refused = []
    said = st.session_state.setdefault(SAID_THIS_RUN, set())  # a page's later blocks (its tabs) see the same link
    for k, raw in before.items():
        if k in changed_by_page or k not in st.session_state or k in said:
            continue
        value = st.session_state[k]
        repeated = len(raw) > 1 and not isinstance(value, (list, tuple))  # ?n=2000&n=3000: one of them is used
        if not repeated and k in st.query_params and st.query_params.get_all(k) == raw:
            continue
        if not _same_setting(raw, value):
            shown = labels[k](value) if labels and k in labels else _show(value)
            refused.append(f"{code_span(k + '=' + ','.join(raw))} (using {markdown_literal(shown) or 'none'})")
            said.add(k)
    if refused:
        slot.warning("The link asked for settings that are out of range, not among the choices or given more than "
                     "once, so they were ignored: " + "; ".join(refused) + ". Change them with the page's controls.",
                     icon=":material/link_off:")


#: link parameters that are not a widget's: Discover's pinned run, Demo's scenario, Streamlit's embedding options
NOT_WIDGETS = {"pin", "scenario", "embed", "embed_options"}


def say_unused_link_settings(link: dict[str, list[str]], slot, page: str) -> None:
    """After a page's first run in this session: name the settings in the link it opened with that no control on the
    page took — a misspelt name (``?epsilon=``), or a control the other settings hide (``?eps=`` with PC, which has
    no budget). A refused value is said by :func:`checked_url_settings`; these were not even read. They are taken out
    of the address too, so a link copied from it opens without the warning.

    The message stays above the page on its later runs (a tab opened, a control changed) until the user goes to
    another page: said once and gone on the next run, it moved everything below it, the tab bar just clicked
    included, up by its height."""
    seen = st.session_state.setdefault("_links_checked", set())
    said = st.session_state.get("_links_unused")  # (page, message) of this visit
    if page in seen:
        if said and said[0] == page:
            slot.warning(said[1], icon=":material/link_off:")
        else:
            st.session_state.pop("_links_unused", None)
        return
    seen.add(page)
    unused = [k for k in link if k not in NOT_WIDGETS and k not in st.session_state]
    st.session_state.pop("_links_unused", None)
    if unused:
        message = ("The link has settings this page does not use with its other settings, so they were ignored: "
                   + "; ".join(code_span(f"{k}={','.join(link[k])}") for k in unused) + ".")
        for k in unused:
            st.query_params.pop(k, None)
        st.session_state["_links_unused"] = (page, message)
        slot.warning(message, icon=":material/link_off:")


def _same_setting(raw: list[str], value) -> bool:
    """Does the URL text ``raw`` denote the widget's ``value`` (Streamlit drops a value equal to the default)?"""
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value] == raw
    if len(raw) != 1:
        return False
    if isinstance(value, bool):
        return raw[0].lower() == str(value).lower()
    if isinstance(value, (int, float)):
        try:
            return float(raw[0]) == float(value)
        except ValueError:
            return False
    return str(value) == raw[0]


def _show(value) -> str:
    return ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else f"{value:g}" if isinstance(
        value, float) else str(value)


def explain(title: str, body: str, latex: list[str] | tuple[str, ...] = ()):
    """A 'what am I looking at' expander with optional formulas."""
    with st.expander(title, icon=":material/help:"):
        st.markdown(body)
        for f in latex:
            st.latex(f)


def route_through_app():
    """Make sure a page runs inside app.py's navigation.

    Streamlit treats a folder named ``pages/`` next to the entry point as a legacy multipage
    app until ``st.navigation`` has run once in the server process. A deep link such as
    ``/discover`` opened as the very first request would run the page file alone (no page
    config, legacy sidebar). Switching the legacy mode off and rerunning executes app.py,
    whose navigation then resolves the same URL to this page.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory and not st.session_state.get("_routed_through_app"):
        # once per session: a rerun discards a pending button click, so it must not repeat
        st.session_state["_routed_through_app"] = True
        PagesManager.uses_pages_directory = False
        st.rerun()
