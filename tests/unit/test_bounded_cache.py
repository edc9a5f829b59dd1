"""The server's cache bounded in bytes and entries (ui.bounded_cache) and its use by the pages' loaders (ui.common)."""
import threading
from dataclasses import dataclass

import numpy as np
import pytest

from ui.bounded_cache import DEFAULT_MB, ByteBoundedLRU, budget_bytes, size_of
from conftest import Lazy

pd = Lazy("pandas")

KB = 1024


def test_size_counts_buffers_once_and_follows_references():
    a = np.zeros(100_000)  # 800,000 bytes
    assert 800_000 <= size_of(a) < 800_000 + 1 * KB
    # a view holds its owner's buffer: an array and two views of it are one buffer
    assert size_of(a[:10]) >= 800_000
    assert size_of([a, a[:10], a.T]) < 800_000 + 2 * KB
    assert size_of([a, a.copy()]) >= 1_600_000
    frame = pd.DataFrame({"x": np.arange(50_000, dtype=np.int64), "s": ["abc"] * 50_000})
    assert size_of(frame) >= frame.memory_usage(deep=True).sum() >= 400_000 + 50_000 * 3  # deep: the strings count

    @dataclass
    class Holder:
        data: np.ndarray
        meta: dict

    h = Holder(np.ones((300, 300)), {"again": None})
    h.meta["again"] = h.data  # referenced twice, counted once
    assert 720_000 <= size_of(h) < 720_000 + 4 * KB
    assert size_of({"k": bytes(10_000)}) >= 10_000


def test_size_of_a_dataset_and_a_result_covers_their_arrays():
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover

    ds = load_dataset("asia", n=20_000, seed=0)
    assert size_of(ds) >= ds.data.nbytes
    res = discover(ds, algo="pc")
    assert size_of(res) >= size_of(ds)  # a result carries its dataset


def test_least_recently_used_goes_first_when_the_bytes_run_out():
    cache = ByteBoundedLRU(1_000 * KB)
    blocks = {k: np.zeros(400 * KB, np.uint8) for k in "abc"}
    cache.put("x", "a", blocks["a"])
    cache.put("x", "b", blocks["b"])
    assert cache.get("x", "a") is blocks["a"]  # a is now more recent than b
    cache.put("x", "c", blocks["c"])
    assert cache.get("x", "b") is None and cache.get("x", "a") is blocks["a"] and cache.get("x", "c") is blocks["c"]
    assert cache.nbytes <= cache.max_bytes and len(cache) == 2 and cache.evictions == 1
    # the budget is across namespaces: a large entry elsewhere pushes out the oldest here
    cache.put("y", "big", np.zeros(700 * KB, np.uint8))
    assert cache.get("x", "a") is None and cache.nbytes <= cache.max_bytes
    # a value larger than the whole budget is not kept and evicts nothing
    before = len(cache)
    cache.put("y", "huge", np.zeros(2_000 * KB, np.uint8))
    assert cache.get("y", "huge") is None and len(cache) == before
    # replacing an entry replaces its bytes
    cache.clear()
    cache.put("x", "a", np.zeros(100 * KB, np.uint8))
    cache.put("x", "a", np.zeros(300 * KB, np.uint8))
    assert 300 * KB <= cache.nbytes < 301 * KB


def test_entry_limits_and_time_to_live_per_namespace():
    now = [0.0]
    cache = ByteBoundedLRU(10**9, clock=lambda: now[0])
    cache.limit("upload", 2, ttl=60)
    for k in range(3):
        cache.put("upload:s1", k, k)
    cache.put("upload:s2", 0, "other session")
    assert cache.get("upload:s1", 0) is None and cache.get("upload:s1", 2) == 2  # two per session
    assert cache.get("upload:s2", 0) == "other session"
    cache.put("free", "k", 1)  # a namespace without limits keeps its entries
    now[0] = 61.0
    assert cache.get("upload:s1", 2) is None and cache.get("free", "k") == 1
    assert cache.namespace_bytes("upload:s1") == 0


def test_overlapping_requests_compute_once_and_failures_are_not_kept():
    cache = ByteBoundedLRU(10**9)
    calls, gate = [], threading.Event()

    def slow():
        calls.append(1)
        gate.wait(5)
        return np.arange(10)

    out = []
    threads = [threading.Thread(target=lambda: out.append(cache.get_or_compute("r", "k", slow))) for _ in range(4)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(10)
    assert len(calls) == 1 and len(out) == 4 and all(o is out[0] for o in out)

    def boom():
        raise ValueError("bad input")

    with pytest.raises(ValueError):
        cache.get_or_compute("r", "bad", boom)
    assert cache.get_or_compute("r", "bad", lambda: "retried") == "retried"


def test_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("CGD_CACHE_MB", "64")
    assert budget_bytes() == 64 * 2**20
    for bad in ("", "lots", "-1", "0"):
        monkeypatch.setenv("CGD_CACHE_MB", bad)
        assert budget_bytes() == int(DEFAULT_MB * 2**20)


def test_the_pages_loaders_share_one_byte_budget(monkeypatch):
    """ui.common's loaders and runners store in one ByteBoundedLRU: Alarm samples of 740 kB under a 1 MB budget keep
    only the most recent, and a discovery result counts its bytes too."""
    from ui import common

    monkeypatch.setenv("CGD_CACHE_MB", "1")
    common.memory.clear()
    try:
        first = common.load_dataset("alarm", 20_000, 0)
        assert common.load_dataset("alarm", 20_000, 0) is first  # a hit
        second = common.load_dataset("alarm", 20_000, 1)
        store = common.memory()
        assert store.max_bytes == 2**20 and store.nbytes <= 2**20
        assert store.get("dataset", ("alarm", 20_000, 0)) is None
        assert store.get("dataset", ("alarm", 20_000, 1)) is second
        small = common.load_dataset("cancer", 2_000, 0)
        res = common.run_discovery(("t", "cancer"), small, algo="pc")
        assert common.run_discovery(("t", "cancer"), small, algo="pc") is res
        assert store.nbytes <= 2**20 and store.namespace_bytes("discovery") >= size_of(res)
    finally:
        common.memory.clear()


def test_the_sample_cache_under_the_datasets_follows_the_same_budget(monkeypatch):
    """The pages' datasets are built on arrays the registry also keeps (cgdcore.data.registry): that cache reads
    CGD_CACHE_MB too, or an evicted dataset's rows would stay in memory there."""
    from cgdcore.data.registry import _sample_budget

    monkeypatch.setenv("CGD_CACHE_MB", "64")
    assert _sample_budget() == 64 * 2**20
    monkeypatch.delenv("CGD_CACHE_MB")
    assert _sample_budget() == 512 * 2**20


def test_cache_keys_stand_for_their_content():
    """Keys of the pages' runs may hold dicts, lists and arrays: equal content, equal key; any difference, another."""
    from ui.common import _frozen

    a = np.zeros(5000)
    b = a.copy()
    b[2500] = 1.0  # differs where an abbreviated repr shows "..."
    assert _frozen(("k", {"x": [1, 2], "y": a})) == _frozen(("k", {"y": a.copy(), "x": [1, 2]}))
    assert _frozen(("k", {"y": a})) != _frozen(("k", {"y": b}))
    hash(_frozen(("k", {"opts": {"nested": [1, {2, 3}]}, "arr": a})))
