"""The headless chromium the browser tests and bench/load.py drive: its switches and a page script."""

#: Debian's chromium without a sandbox, GPU or background traffic (nothing is downloaded at run time)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]

#: for the tests' browser only, on top of :data:`CHROMIUM_ARGS`: V8 without its optimising tiers (Maglev, TurboFan;
#: the interpreter and the baseline compiler remain), which compiled, in the background, code that a test's page
#: runs for a few seconds. Twenty page loads of the app in one tab: chromium 18.8–20.2 → 15.2–16.9 CPU-s (4 and 7
#: runs). What a page shows and does is the same; bench/load.py keeps the browser a user has.
LEAN_ARGS = ["--js-flags=--max-opt=1"]

#: a page script that switches off CSS animations and transitions, and hides the toolbar's running icon: without a
#: GPU, chromium redraws a running app's spinners and fading elements frame after frame, at more CPU than the server
#: under test. The running icon is a JavaScript animation (Streamlit swaps its picture every 200 ms while a script
#: runs): shown, chromium took 0.032 of a core for as long as a run lasted; hidden, 0.005–0.007 (6 s into an Andes
#: run, twice each). What the tests check (elements, text, events, downloads; the toolbar's Stop button stays) does
#: not depend on them; a screenshot shows the final frame.
STILL = """document.addEventListener('DOMContentLoaded', () => { const s = document.createElement('style');
s.textContent = '*, *::before, *::after { animation: none !important; transition: none !important; } '
    + '[data-testid="stStatusWidgetRunningIcon"] { display: none !important; }';
document.head.appendChild(s); });"""
