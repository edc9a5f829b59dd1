"""Encrypted federated PC: circuits, CKKS round trips, the protocol's modes and the DP variant."""
import numpy as np
import pytest

from cgdcore import UserError
from cgdcore.privacy.ledger import Ledger
from cgdcore.data import load_dataset
from cgdcore.fhe import circuits, ckks
from cgdcore.fhe.parties import split_rows
from cgdcore.fhe.protocol import Settings, exact_cells
from cgdcore.fhe.run import federate, fhe_pc, same_decisions_note, what_each_party_sees


@pytest.fixture(scope="module")
def asia10k():
    return load_dataset("asia", n=10_000, seed=0)


def test_circuit_depth_matches_the_digest():
    # seed_fhe digest A15: paper recipe G² 24 levels, χ² 22; warm start (4 steps) G² 13 with Taylor
    assert circuits.circuit_depth("g2", warm_start=False, iterations=10) == 24
    assert circuits.circuit_depth("chi2", warm_start=False, iterations=10) == 22
    assert circuits.circuit_depth("g2", warm_start=True, iterations=4) == 13
    assert circuits.circuit_depth("g2", warm_start=True, iterations=4, log_series="atanh") == 14


def test_circuit_with_exact_reciprocal_matches_formula():
    rng = np.random.default_rng(0)
    tab = rng.integers(1, 50, size=(3, 2, 2)).astype(float)
    A = tab.ravel()
    B = np.broadcast_to(tab.sum(2, keepdims=True), tab.shape).ravel()
    C = np.broadcast_to(tab.sum(1, keepdims=True), tab.shape).ravel()
    E = np.broadcast_to(tab.sum((1, 2), keepdims=True), tab.shape).ravel()
    from cgdcore.citests.chisq import chisq_from_table

    g_ref, _ = chisq_from_table(tab, "log-likelihood")
    x_ref, _ = chisq_from_table(tab, "pearson")
    assert 2 * exact_cells("g2", A, B, C, E).sum() == pytest.approx(g_ref, rel=1e-12)
    assert exact_cells("chi2", A, B, C, E).sum() == pytest.approx(x_ref, rel=1e-12)
    n = tab.sum()
    s = [v / n for v in (A, B, C, E)]
    r0 = 0.9 / (s[1] * s[2] * s[3])  # near-exact guesses: NR converges in a few steps
    chi = circuits.cell_values("chi2", *s, r0=r0, iterations=6).sum() * n
    assert chi == pytest.approx(x_ref, rel=1e-9)
    r0 = 0.9 / (s[0] * s[3] + s[1] * s[2])
    g = 2 * n * circuits.cell_values("g2", *s, r0=r0, iterations=6, taylor_terms=12, log_series="atanh").sum()
    assert g == pytest.approx(g_ref, rel=1e-3)


def test_newton_raphson_diverges_past_two():
    x = np.array([0.5])
    assert circuits.reciprocal(x, np.array([1.9 / 0.5]), 10)[0] == pytest.approx(2.0, rel=1e-6)
    assert abs(circuits.reciprocal(x, np.array([2.1 / 0.5]), 10)[0]) > 1e3


def test_ckks_counts_round_trip_and_server_cannot_decrypt():
    kh = ckks.KeyHolder(ckks.aggregation_params())
    pub = kh.public_bytes()
    server = ckks.public_context(pub)
    assert not server.has_secret_key()
    counts = [np.array([3.0, 0.0, 1234.0, 17.0]), np.array([5.0, 2.0, 0.0, 1.0])]
    blobs = [ckks.encrypt(server, c) for c in counts]
    total = ckks.load(server, blobs[0]) + ckks.load(server, blobs[1])
    with pytest.raises(ValueError, match="secret"):
        total.decrypt()
    out = kh.decrypt(total.serialize())[:4]
    assert np.array_equal(np.rint(out), counts[0] + counts[1])
    assert np.max(np.abs(out - (counts[0] + counts[1]))) < 1e-3


def test_params_are_128_bit_valid():
    for p in (ckks.aggregation_params(), ckks.statistic_params(14), ckks.statistic_params(24)):
        assert p.modulus_bits <= ckks.MAX_MODULUS_BITS[p.poly_modulus_degree]
    assert ckks.statistic_params(24).scale_bits == 31  # the paper's depth forces a 31-bit scale
    with pytest.raises(UserError):
        ckks.statistic_params(60)


def test_secure_aggregation_matches_plaintext(asia10k):
    r, rep, _ = fhe_pc(asia10k, owners=3, settings=Settings(mode="aggregate"), max_order=1)
    p, _, _ = fhe_pc(asia10k, owners=3, settings=Settings(mode="plaintext"), max_order=1)
    assert rep["agreement"] == 1.0
    assert all(lv["max_count_error"] < 0.01 for lv in rep["levels"])
    assert np.array_equal(r.cpdag, p.cpdag)
    assert rep["shd_vs_plaintext"] == 0


def test_plaintext_federation_skeleton_equals_pooled_pc(asia10k):
    from cgdcore.discover import discover

    pooled = discover(asia10k, algo="pc", ci_test="g2", max_order=2)
    fed = discover(asia10k, algo="fhe-pc", options={"mode": "plaintext"}, max_order=2)
    # causal-learn's dof adjustment differs from the full dof only when cells are empty; Asia at 10k
    # can differ in a test or two, so compare skeletons and allow one edge
    assert np.sum(pooled.result.skeleton != fed.result.skeleton) <= 2


def test_emulation_reproduces_the_papers_loss(asia10k):
    _, paper, _ = fhe_pc(asia10k, owners=2, settings=Settings(mode="emulate"), max_order=2)
    _, warm, _ = fhe_pc(asia10k, owners=2, settings=Settings(mode="emulate", warm_start=True, iterations=4,
                                                               log_series="atanh"), max_order=2)
    assert paper["agreement"] < 0.95  # 10 NR steps from r0 = 1 leave small cells unconverged
    assert warm["agreement"] >= 0.99


def test_warm_start_encrypted_agrees_with_plaintext_and_emulation(asia10k):
    # orders 0 and 1: every step of the warm circuit and the masking, on two levels of different widths (a third
    # level costs another deep-circuit batch and checks nothing new)
    r, rep, _ = fhe_pc(asia10k, owners=3, settings=Settings(mode="warm"), max_order=1)
    assert rep["agreement"] >= 0.99
    assert rep["overshoot"] == 0
    assert [lv["order"] for lv in rep["levels"]] == [0, 1]
    _, emu, _ = fhe_pc(asia10k, owners=3, settings=Settings(mode="emulate", warm_start=True, iterations=4,
                                                              log_series="atanh"), max_order=1)
    # stated tolerance: per level, encrypted and emulated decisions agree on ≥ 98% of the tests
    for a, b in zip(rep["levels"], emu["levels"]):
        if a["tests"] == b["tests"]:
            same = np.mean((a["p"] >= 0.05) == (b["p"] >= 0.05))
            assert same >= 0.98
    assert rep["bytes"]["public_context"] > 0 and rep["ckks_params"]["security_bits"] == 128
    # the key holder decrypts masked cells: noise of width ~2^16 in every slot, yet each test's sum is the statistic
    m = Settings(mode="warm").resolved().divisor(10_000)  # the public constant the counts are divided by
    for lv in rep["levels"]:
        view, width = lv["key_holder_view"], lv["mask_width"]
        assert width == 2.0 ** 16 and view.size == lv["slots"]
        assert np.std(view) > 0.4 * width  # single cells are hidden (true contributions are O(1) or less)
        cells = view.size // lv["tests"]  # Asia is binary: every test of a level has 2·2·2^order cells
        assert cells == 4 * 2 ** lv["order"]
        g2 = 2 * m * view.reshape(lv["tests"], cells).sum(axis=1)  # G² = 2 Σ cells (the default statistic)
        assert np.allclose(g2, lv["stats"], atol=1e-3)


def test_zero_sum_masks_hide_cells_and_keep_each_tests_sum():
    from cgdcore.fhe.protocol import make_layout, zero_sum_masks

    arities = (2, 3, 4, 2)
    lay = make_layout([(0, 1, ()), (0, 2, (3,)), (1, 2, (0, 3)), (2, 3, ())], arities)
    masks = np.concatenate([zero_sum_masks(lay, 2.0 ** 16, np.random.default_rng(s)) for s in range(200)])
    per_test = np.add.reduceat(masks[: lay.slots], lay.offsets[:-1])
    assert np.max(np.abs(per_test)) < 1e-9 * 2 ** 16
    assert np.max(np.abs(masks)) <= 2 * 2 ** 16
    # uniform on [−M, M] less its test's mean: variance M²/3·(1 − 1/C); cells of 6 to 48
    sizes = np.tile(np.diff(lay.offsets), 200)
    want = np.sqrt(np.mean((2.0 ** 16) ** 2 / 3 * (1 - 1 / np.repeat(sizes, sizes))))
    assert np.std(masks) == pytest.approx(want, rel=0.03)


def test_dp_once_is_one_release_of_epsilon_with_a_full_draw_per_owner(asia10k):
    """The key holder knows its own share, so each owner's own noise must be a full draw (the old
    k-divisible shares left the others' rows behind k − 1 shares: ≥ 2.56ε at k = 3, unbounded at k = 2)."""
    r, rep, ledger = fhe_pc(asia10k, owners=4, dp="once", epsilon=1.0, max_order=1, seed=3)
    assert len(ledger.releases) == 1 and ledger.releases[0].partition == ""
    s = ledger.summary()
    assert s["epsilon"] == 1.0 and s["used"]["epsilon"] == pytest.approx(1.0) and s["guarantee"] is True
    assert "even knowing its own noise" in what_each_party_sees("aggregate", "once")["key holder"]


def test_dp_once_noise_per_cell_is_k_discrete_laplace_draws(asia10k):
    """The decrypted aggregate minus the true joint: integers (up to CKKS's tiny error), variance k·2e^-a/(1-e^-a)²
    for k owners at a = ε/2 (each owner's own full draw)."""
    from cgdcore.fhe.protocol import Federation, Settings

    parties = federate(asia10k, owners=3, split="iid", seed=0)
    true = sum(o.full_joint() for o in parties).ravel()
    kept = true > 20  # cells the clamp at 0 cannot touch
    d = []
    for seed in range(20):
        fed = Federation(parties, asia10k.n, tuple(asia10k.arities), Settings(mode="aggregate").resolved(),
                         dp="once", epsilon=2.0, ledger=Ledger(budget=2.0, delta=1e-6),
                         rng=np.random.default_rng(seed))
        fed.prepare_dp_once()
        d.append((fed._agg_total.joint.ravel() - true)[kept])
    d = np.concatenate(d)
    assert np.abs(d - np.round(d)).max() < 1e-3 and len(d) > 100
    a = 1.0  # ε/2
    one = 2 * np.exp(-a) / (1 - np.exp(-a)) ** 2
    assert d.var() == pytest.approx(3 * one, rel=0.2)  # three full draws, not one split three ways


def test_per_count_dp_noises_each_distinct_count_once(asia10k):
    """The marginals were broadcast to every cell and each copy noised anew, a true cost of
    ε(1 + |X|)(1 + |Y|) per test; now every distinct count is noised once: four releases of ε per test."""
    r, rep, ledger = fhe_pc(asia10k, owners=2, dp="per-count", epsilon=0.5, max_order=1, seed=1)
    tests = sum(lv["tests"] for lv in rep["levels"])
    assert len(ledger.releases) == 2 * 4 * tests
    assert ledger.summary()["guarantee"] is True
    # uncapped: the bound is stated at the most counts any run could send, above what this run used
    assert ledger.summary()["epsilon"] >= ledger.used()[0]
    assert ledger.totals()["parallel"]["epsilon"] <= 0.5 * 4 * tests + 1e-9
    from cgdcore.fhe.protocol import count_vectors, make_layout

    lay = make_layout([(0, 1, (2,))], asia10k.arities)
    calls = []

    def noise(size):
        calls.append(size)
        return np.zeros(size, dtype=np.int64)

    count_vectors(federate(asia10k, owners=2, split="iid", seed=0)[0], lay, noise=noise)
    kx, ky, kz = (asia10k.arities[i] for i in (0, 1, 2))
    assert calls == [kz * kx * ky, kz * kx, kz * ky, kz]  # each distinct count drawn once


def test_the_owners_split_follows_its_own_seed_and_never_the_noise_seed(asia10k):
    """Who holds which row is the federation's setting (split_seed, as --split-seed and the Encrypted page's data
    seed give it); the DP noise's seed, fixed or fresh, does not move a row between owners."""
    def rows(**kw):
        _, rep, _ = fhe_pc(asia10k, owners=3, split="skewed", dp="per-count", epsilon=0.5, max_order=0,
                           reference=False, **kw)
        return rep["owner_rows"]

    assert rows(seed=1) == rows(seed=2) == rows(seed=None) == rows(seed=None, split_seed=0)
    assert rows(seed=1, split_seed=5) == rows(seed=None, split_seed=5) != rows(seed=1)
    skewed = [o.n for o in federate(asia10k, owners=3, split="skewed", seed=5)]
    assert rows(seed=3, split_seed=5) == skewed


@pytest.mark.parametrize("split", ["iid", "skewed"])
def test_a_dp_runs_report_names_what_comes_from_the_exact_data(asia10k, split):
    """Beside a DP variant's guarantee, the report's numbers from the exact data are named in its diagnostics: the
    comparisons with plaintext, the timings and memory, and the skewed split's row counts (drawn from the first
    variable's values; the iid split's are a function of n). The test count adds up over the orders."""
    from cgdcore.discover import discover

    r = discover(asia10k, algo="fhe-pc", max_order=1, epsilon=1.0,
                 options={"dp": "per-count", "owners": 3, "split": split})
    what = r.to_json()["fhe"]["diagnostics"]["what"]
    assert "'seconds'" in what and "'fhe.seconds'" in what and "'memory_added_mb'" in what
    assert ("'owner_rows'" in what) is (split == "skewed")
    assert r.result.n_ci_tests == sum(r.result.tests_per_order) == sum(lv["tests"] for lv in r.fhe.report["levels"])


def test_parallel_budget_cap():
    led = Ledger(budget=1.0, delta=1e-6)
    for i in range(3):
        led.record("laplace", 1.0, partition=f"p{i}")
    assert not led.can_afford(0.5, partition="p0")
    assert not led.can_afford(0.5)  # a whole-data release adds to every part


def test_splits_and_bad_input(asia10k):
    rng = np.random.default_rng(0)
    codes = np.asarray(asia10k.data, dtype=np.int64)
    parts = split_rows(asia10k.n, 4, "skewed", codes, rng)
    assert sorted(np.concatenate(parts).tolist()) == list(range(asia10k.n))
    with pytest.raises(UserError):
        split_rows(10, 30, "iid", codes, rng)
    with pytest.raises(UserError):
        fhe_pc(asia10k, settings=Settings(mode="nope"))
    with pytest.raises(UserError):
        fhe_pc(asia10k, dp="once")  # no ε
    with pytest.raises(UserError):
        fhe_pc(asia10k, dp="once", epsilon=0.0)
    child = load_dataset("child", n=500, seed=0)
    with pytest.raises(UserError, match="joint histogram"):
        fhe_pc(child, dp="once", epsilon=1.0)


def test_memory_is_measured_per_run_not_the_process_high_water_mark(asia10k):
    """The Encrypted page showed the process's peak RSS, which remembers earlier runs and whatever the
    process holds. A run now reports only the memory it added over its start."""
    held = np.ones(400 * 2**20 // 8)  # 400 MB the process holds before the run (an earlier run, a cache)
    _, rep, _ = fhe_pc(asia10k, owners=2, settings=Settings(mode="aggregate"), max_order=1)
    assert rep["memory_added_mb"] is not None and 0 <= rep["memory_added_mb"] < 300
    assert "peak_memory_mb" not in rep
    del held


@pytest.mark.parametrize("exact", [True, False])
def test_run_memory_sees_a_peak_inside_the_run(monkeypatch, exact):
    from cgdcore.fhe import run

    if not exact:  # no /proc/self/clear_refs: a sampling thread finds the peak
        monkeypatch.setattr(run, "_reset_high_water_mark", lambda: False)
    m = run.RunMemory().start()
    if m.baseline is None:
        pytest.skip("resident memory cannot be read on this system")
    big = np.ones(200 * 2**20 // 8)  # 200 MB, touched
    import time

    # the sampler looks every 10 ms, but on a loaded machine its thread can wait longer than that for a core (it
    # once saw only 142 of the 200 MB: a look while the array was being filled): the array stays until it has looked
    # again, within a bound
    deadline = time.monotonic() + 5.0
    while not exact and m.peak - m.baseline < 150 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    del big
    added = m.stop()
    assert 150 <= added <= 400 and m.exact == exact


def test_a_graph_that_differs_despite_equal_decisions_is_explained():
    """Encrypted: "CI decisions = plaintext 100.0%" beside "SHD vs plaintext graph 2" read as a contradiction; the
    page then says why (the max-p separating set over approximate p-values), and only then."""
    note = same_decisions_note({"agreement": 1.0, "shd_vs_plaintext": 2})
    assert note and "differ by 2" in note and "largest p-value" in note
    for cmp in ({"agreement": 0.999, "shd_vs_plaintext": 2}, {"agreement": 1.0, "shd_vs_plaintext": 0},
                {"agreement": 1.0, "shd_vs_plaintext": None}, {}):
        assert same_decisions_note(cmp) is None


def test_what_the_key_holder_sees_is_not_overstated():
    """The key holder is one of the owners: in secure aggregation it subtracts its own tables from the decrypted
    sums, which leaves the other owners' total (with two owners, the other owner's exact tables); no mode without
    a DP variant is described as if its output were protected."""
    holder = what_each_party_sees("aggregate", None)["key holder"]
    assert "not any single owner" not in holder
    assert "other owners' total" in holder and "the other owner's exact tables" in holder
    for mode in ("aggregate", "warm", "paper", "emulate"):
        assert "no differential privacy" in what_each_party_sees(mode, None)["key holder"], mode


def test_server_masks_do_not_follow_the_runs_seed(asia10k):
    """The masks hide each per-cell contribution from the key holder only if it cannot recompute them: they come
    from the server's own fresh entropy, not from the run's (public) seed."""
    from cgdcore.fhe.protocol import Federation, Settings, make_layout, zero_sum_masks

    parties = federate(asia10k, owners=2, split="iid", seed=0)
    lay = make_layout([(0, 1, ()), (2, 3, (0,))], tuple(asia10k.arities))
    masks = [zero_sum_masks(lay, 2.0 ** 16, Federation(parties, asia10k.n, tuple(asia10k.arities),
                                                       Settings(mode="warm").resolved(),
                                                       rng=np.random.default_rng(0))._server_rng) for _ in range(2)]
    assert not np.allclose(masks[0], masks[1])


def test_dp_noise_is_fresh_unless_a_seed_is_fixed(asia10k):
    """Without a seed the DP noise comes from fresh entropy (as the run's report says), not from a public
    default; a fixed seed repeats the noise, and then every party's ε-DP statement says it is a reproducible demo."""
    from cgdcore.fhe.run import fhe_summary

    def stats(seed):
        r, rep, _ = fhe_pc(asia10k, owners=2, dp="per-count", epsilon=0.5, max_order=0, seed=seed, reference=False)
        return rep["levels"][0]["stats"], fhe_summary(rep, r.params)["sees"]

    (a, sees_fresh), (b, _) = stats(None), stats(None)
    assert not np.allclose(a, b)
    (c, sees_fixed), (d, _) = stats(5), stats(5)
    assert np.array_equal(c, d)
    assert "reproducible demo" in sees_fixed["server"] and "reproducible demo" not in sees_fresh["server"]
    for holder in ("owners", "key holder"):
        assert "reproducible demo" in what_each_party_sees("aggregate", "once", fixed_seed=True)[holder]
        assert "reproducible demo" not in what_each_party_sees("aggregate", "once")[holder]
