"""``discover --json`` stays the same object, key for key and value for value, for representative runs of every
family: recorded from main before Discovery's family details became typed fields (data/discover_json_main.json).
Only what measures time or memory is left out of the comparison (``seconds``; the encrypted run's timings, bytes
on the wire and memory), and checked for presence and type instead."""
import json
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
    assert json.dumps(now, ensure_ascii=False) == json.dumps(run["json"], ensure_ascii=False), name
