"""``discover --json`` stays the same object, key for key and value for value, for representative runs of every
family: recorded from main before Discovery's family details became typed fields (data/discover_json_main.json).
Only what measures time or memory is left out of the comparison (``seconds``; the encrypted run's timings, bytes
on the wire and memory), and checked for presence and type instead. Since recorded, the local runs' privacy objects
have gained ``noise`` (how the privatisation was seeded, as central runs have it), and the encrypted runs' params
``split_seed`` (the owners' split's own seed, 0 as before), both added to the record by hand; the private runs'
``diagnostics`` were re-recorded when they came to name the trace's answer-only fields and the time a run took (a
score-based run's lost its CI-decision counts, which it never had), and the encrypted DP run's ``tests_per_order``
when it came to count the tests each level evaluated, as ``n_ci_tests`` does (10 + 13 = 23), and its privacy
object when its one release of ε came to be stated as pure ε-DP (the basic rule, δ = 0). The Priv-PC run names
``--delta 0.001``, the default it was recorded at (the family's default is now 1e-6), so it is the same run. The
zCDP runs' (Gauss-PC, CURATE-score) ``per_order`` rows gained ``rho``, the Σρ their filter composes, by hand."""
import json
import re
from pathlib import Path

import pytest

from conftest import cli

GOLDEN = json.loads((Path(__file__).parent / "data" / "discover_json_main.json").read_text(encoding="utf-8"))
VOLATILE_FHE = ("seconds", "bytes", "memory_added_mb")


def without_measurements(js: dict) -> dict:
    """The JSON object minus wall-clock seconds and the encrypted run's timings, sizes and memory."""
    assert isinstance(js.pop("seconds"), float)
    if "fhe" in js:
        fhe = dict(js["fhe"])
        for key in VOLATILE_FHE:
            assert key in fhe, key
            del fhe[key]
        js["fhe"] = fhe
    return js


@pytest.mark.parametrize("name", list(GOLDEN))
def test_discover_json_is_the_one_recorded_on_main(name):
    run = GOLDEN[name]
    r = cli("discover", *run["argv"], "--json")
    assert r.returncode == 0, r.stderr
    now = without_measurements(json.loads(r.stdout))
    assert_same(now, run["json"], name)


def assert_same(now, then, where: str) -> None:
    """Same keys in the same order, same strings, ints and booleans; floats equal to 1e-9 relative (a change of
    the last digits by another but equal formula is not a change of the contract)."""
    if isinstance(then, dict):
        assert isinstance(now, dict) and list(now) == list(then), (where, list(now), list(then))
        for k in then:
            assert_same(now[k], then[k], f"{where}/{k}")
    elif isinstance(then, list):
        assert isinstance(now, list) and len(now) == len(then), where
        for i, (a, b) in enumerate(zip(now, then)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(then, float) and isinstance(now, float):
        assert now == pytest.approx(then, rel=1e-9, abs=1e-12), (where, now, then)
    elif isinstance(then, str) and isinstance(now, str):
        assert _digits_blurred(now) == _digits_blurred(then), (where, now, then)
    else:
        assert type(now) is type(then) and now == then, (where, now, then)


def _digits_blurred(text: str) -> str:
    """Numbers in a sentence to 6 significant digits, and rounding residues (below 1e-12) to 0: a stop reason
    that quotes a plan's leftover of 2e-16, say."""
    def blur(m):
        v = float(m.group())
        return "0" if abs(v) < 1e-12 else f"{v:.6g}"

    return re.sub(r"\d+\.\d+(?:e[-+]?\d+)?", blur, text)
