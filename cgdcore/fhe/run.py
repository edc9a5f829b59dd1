"""``fhe-pc``: PC whose skeleton CI statistics are computed by a federation under CKKS.

The one PC engine runs unchanged; :class:`FederatedPolicy` answers its queries. At the start of
every level (the engine's ``begin_order`` hook) the policy has the federation evaluate *all*
tests of the level in one encrypted batch (seed 003 §III-C5), then answers each query from the
decrypted batch, and offers the engine the max-p separating set per edge (§IV-B). The
skeleton of stable PC does not depend on the order of the queries, so batching changes nothing
but the separating sets chosen. Orientation (v-structures, Meek) runs in plaintext (§III-A).
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Callable

import numpy as np

from cgdcore import UserError
from cgdcore.fhe.parties import Owner, split_rows
from cgdcore.fhe.protocol import DP_VARIANTS, Federation, Settings, level_tests
from cgdcore.pc import Decision, Policy


class FederatedPolicy(Policy):
    """CI decisions from the federation's batched, level-wise statistics (p ≥ α: independent)."""

    def __init__(self, federation: Federation, alpha: float):
        self.fed = federation
        self.alpha = float(alpha)
        self._decisions: dict[tuple, Decision] = {}
        self._best: dict[tuple[int, int], tuple[float, tuple[int, ...]]] = {}
        self.evaluated = 0

    def begin_order(self, order, adjacency):
        tests = level_tests([sorted(a) for a in adjacency], order)
        if not tests:
            return
        info = self.fed.evaluate(tests, order)
        a = self.alpha
        indep = info["p"] >= a
        info["agreement"] = float(np.mean(indep == (info["p_plaintext"] >= a)))
        info["flips"] = int(np.sum(indep != (info["p_plaintext"] >= a)))
        self.evaluated += len(tests)
        for (x, y, S), st, p, ind in zip(tests, info["stats"], info["p"], indep):
            self._decisions[(x, y, S)] = Decision(bool(ind), float(st), float(p))
            if ind and p > self._best.get((x, y), (-1.0, ()))[0]:
                self._best[(x, y)] = (float(p), S)

    def decide(self, x, y, S, order):
        return self._decisions[(min(x, y), max(x, y), tuple(S))]

    def best_sepset(self, i: int, j: int, first: tuple[int, ...]) -> tuple[int, ...]:
        return self._best.get((i, j), (0.0, first))[1]


def federate(dataset, *, owners: int, split: str, seed: int) -> list[Owner]:
    """Split the rows among the owners (reproducibly from ``seed``: the federation's public setting, not noise)."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 3]))
    codes = np.asarray(dataset.data, dtype=np.int64)
    parts = split_rows(dataset.n, owners, split, codes, rng)
    return [Owner(i, codes[p], tuple(dataset.arities)) for i, p in enumerate(parts)]


def fhe_pc(dataset, *, owners: int = 3, split: str = "iid", settings: Settings | None = None, alpha: float = 0.05,
           max_order: int | None = None, dp: str | None = None, epsilon: float | None = None, delta: float = 1e-6,
           seed: int | None = 0, split_seed: int = 0, key_holder: int = 0,
           progress: Callable[[str], None] | None = None, pc_progress=None, reference: bool = True):
    """Run the federated protocol and PC; returns (pc Result, report, ledger or None).

    ``split_seed`` seeds the owners' split of the rows (who holds which row: the federation's setting, as the
    data's own seed is). ``seed`` seeds the DP variant's noise only (None: fresh operating-system entropy; a
    fixed seed makes the run a reproducible demo, not private against anyone who knows it). ``reference``: also
    run the plaintext protocol on the same split, so the report can give the SHD between the encrypted run's graph
    and the plaintext one.
    """
    from cgdcore.privacy.ledger import Ledger, validate_epsilon
    from cgdcore.metrics import shd_between
    from cgdcore.pc import pc

    settings = (settings or Settings()).resolved()
    if not dataset.is_discrete:
        raise UserError("fhe-pc counts contingency tables: the data must be discrete (bin numeric columns first).")
    if not 0 <= key_holder < owners:
        raise UserError(f"the key holder must be one of the {owners} owners (1 to {owners}).")
    ledger = None
    if dp is not None:
        if dp not in DP_VARIANTS:
            raise UserError(f"unknown DP variant {dp!r}; choose one of {', '.join(DP_VARIANTS)}.")
        if epsilon is None:
            raise UserError("the DP variant needs --epsilon (the Laplace noise's ε).")
        epsilon = validate_epsilon(epsilon, "ε of the DP variant")
        # "once" spends ε in total (a hard cap) in one release of pure ε-DP: basic composition, δ = 0; the paper's
        # per-count ε is uncapped: its guarantee is stated at the largest number of noisy counts any run could
        # send (four per test per owner), by advanced composition at the run's δ
        from cgdcore.pc import max_ci_queries

        if dp == "once":
            ledger = Ledger(budget=epsilon, delta=delta, rule="basic")
        else:
            ledger = Ledger(delta=delta, worst_case=((epsilon, 4 * max_ci_queries(dataset.d, max_order)),))
        if dp == "per-count" and settings.mode != "plaintext":
            settings = replace(settings, mode="plaintext")
        if dp == "once" and settings.mode != "aggregate":
            settings = replace(settings, mode="aggregate")
    elif epsilon is not None:
        raise UserError("--epsilon applies to fhe-pc only with a DP variant (--fhe-dp once|per-count).")
    t0 = time.perf_counter()
    memory = RunMemory().start()  # before the owners' shares and the keys are made: they are this run's memory
    try:  # a run that ends early (an error, or cancelled) stops the memory sampler too
        parties = federate(dataset, owners=owners, split=split, seed=split_seed)
        # the DP noise: fresh operating-system entropy unless a seed is given (then a reproducible demo)
        rng = np.random.default_rng(np.random.SeedSequence() if seed is None else np.random.SeedSequence([int(seed), 4]))
        fed = Federation(parties, dataset.n, tuple(dataset.arities), settings, key_holder=key_holder, dp=dp,
                         epsilon=epsilon, ledger=ledger, rng=rng, progress=progress)
        if dp == "once":
            fed.prepare_dp_once()
        policy = FederatedPolicy(fed, alpha)
        params = {"ci_test": settings.statistic, "alpha": alpha, "owners": owners, "split": split,
                  "split_seed": split_seed,
                  "mode": settings.mode, "iterations": settings.iterations, "r0": settings.r0,
                  "warm_start": settings.warm_start, "warm_c": settings.warm_c, "taylor_terms": settings.taylor_terms,
                  "dp": dp, "key_holder": key_holder + 1, "sepset": "max-p (batched level)"}
        result = pc(policy, dataset.variables, max_order=max_order, params=params, progress=pc_progress)
        # the tests each level evaluated in its batch (the PC loop then reads only those it still needs): the count
        # and its split per order are the federation's, so that they add up
        batched = {lv["order"]: lv["tests"] for lv in fed.report["levels"]}
        result = replace(result, n_ci_tests=policy.evaluated,
                         tests_per_order=tuple(batched.get(o, 0) for o in range(len(result.tests_per_order))))
    finally:
        added = memory.stop()
    report = fed.report
    report["seconds"]["total"] = time.perf_counter() - t0
    report["memory_added_mb"] = added
    report["owner_rows"] = [o.n for o in parties]
    report["owners"] = owners
    report["noise_seed_fixed"] = dp is not None and seed is not None
    decided = sum(lv["tests"] for lv in report["levels"])
    report["agreement"] = (sum(lv["agreement"] * lv["tests"] for lv in report["levels"]) / decided) if decided else 1.0
    report["overshoot"] = sum(lv.get("overshoot_slots", 0) for lv in report["levels"])
    if reference and (settings.mode != "plaintext" or dp is not None):
        ref_fed = Federation(parties, dataset.n, tuple(dataset.arities), replace(settings, mode="plaintext"))
        ref = pc(FederatedPolicy(ref_fed, alpha), dataset.variables, max_order=max_order)
        report["plaintext_cpdag"] = ref.cpdag
        report["shd_vs_plaintext"] = shd_between(result.cpdag, ref.cpdag)
    return result, report, ledger


class RunMemory:
    """Memory one run needed: the peak resident set size (RSS) during the run minus the RSS at its start, in MB.

    The process's own high-water mark (VmHWM) is not a per-run number: it keeps the largest RSS since the process
    started, and the app's process also holds caches and earlier runs' memory. Here the mark is reset at the start
    (Linux ``/proc/self/clear_refs``, value 5) and read at the end; where that is not possible a thread samples the
    RSS every 10 ms instead (a peak shorter than that can be missed). Other work in the same process at the same
    time (another session of the app) is counted too.
    """

    def __init__(self, interval: float = 0.01):
        self.interval = interval
        self.baseline: float | None = None
        self.peak: float | None = None
        self.exact = False
        self._thread = None
        self._stop = None

    def start(self) -> "RunMemory":
        # no full garbage collection first: in a process holding many objects (the app's server, a test session)
        # it held the interpreter lock for up to ~0.3 s, five times per Demo hospitals scenario; the Encrypted
        # page's runs start in a fresh process, which has no earlier garbage to count
        self.baseline = self.peak = _rss_mb()
        if self.baseline is None:
            return self
        self.exact = _reset_high_water_mark()
        if not self.exact:
            import threading

            self._stop = threading.Event()

            def sample():
                while not self._stop.wait(self.interval):
                    v = _rss_mb()
                    if v is not None and v > self.peak:
                        self.peak = v

            self._thread = threading.Thread(target=sample, daemon=True, name="rss-sampler")
            self._thread.start()
        return self

    def stop(self) -> float | None:
        """MB added at the run's peak over its start (None where RSS cannot be read)."""
        if self.baseline is None:
            return None
        if self.exact:
            hwm = _high_water_mark_mb()
            self.peak = max(self.peak, hwm) if hwm is not None else self.peak
        else:
            self._stop.set()
            self._thread.join()
        now = _rss_mb()
        if now is not None:
            self.peak = max(self.peak, now)
        return max(0.0, self.peak - self.baseline)


def _reset_high_water_mark() -> bool:
    try:  # Linux ≥ 4.0: writing 5 resets this process's peak RSS (VmHWM) to its current RSS
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def _status_mb(field: str) -> float | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def _high_water_mark_mb() -> float | None:
    return _status_mb("VmHWM")


def _rss_mb() -> float | None:
    v = _status_mb("VmRSS")
    if v is not None:
        return v
    try:
        import psutil

        return psutil.Process().memory_info().rss / 2**20
    except Exception:  # noqa: BLE001 - no way to read memory here: say nothing rather than guess
        return None


def comparison(summary: dict) -> dict:
    """Agreement with plaintext (overall, per level) and the SHD to the plaintext graph, wherever
    :func:`fhe_summary` put them: in ``diagnostics`` for a DP run, beside the result otherwise."""
    return summary.get("diagnostics") or summary


def same_decisions_note(compare: dict) -> str | None:
    """Why a run whose every CI decision agrees with plaintext PC can still learn another graph (None when that is
    not the case): a level keeps, for each edge it removes, the separating set with the largest p-value among those
    that removed it ("max-p (batched level)"), and the encrypted p-values are approximate."""
    shd = compare.get("shd_vs_plaintext")
    if compare.get("agreement") != 1.0 or not shd:
        return None
    return (f"Every decision agrees, yet the graphs differ by {shd}: for each edge a level removes, the run keeps the "
            "separating set with the largest p-value among those that removed it, and the encrypted p-values are "
            "approximate, so it can keep another set than plaintext PC does, and the orientations follow the "
            "separating sets.")


def what_each_party_sees(mode: str, dp: str | None, fixed_seed: bool = False) -> dict[str, str]:
    """Who learns what in each mode (seed 003 §III-B threat model: honest-but-curious server). ``fixed_seed``: the
    DP noise came from a fixed seed, so its ε-DP statements hold only against parties who do not know it."""
    from cgdcore.privacy import FIXED_SEED_NOTE

    demo = f" — {FIXED_SEED_NOTE}" if fixed_seed else ""
    if dp == "once":
        return {"owners": "their own rows; each adds a full discrete-Laplace draw to every cell of its joint "
                          "histogram and encrypts it; what comes back is ε-DP with respect to the other owners' rows"
                          + demo,
                "server": "ciphertexts only (public context: public and relinearisation keys, no secret key)",
                "key holder": "the noisy joint histogram and everything computed from it: ε-DP with respect to "
                              "every other owner's rows even knowing its own noise (each owner's own draw covers "
                              "its rows)" + demo}
    if dp == "per-count":
        return {"owners": "their own rows; they add discrete Laplace noise to every distinct count they send",
                "server": "every owner's noisy counts for every test, in the clear (as in the paper): ε per count "
                          "vector, four vectors per test, composed per owner" + demo,
                "key holder": "nothing beyond the server (no encryption in the paper's DP variant)"}
    if mode == "plaintext":
        return {"owners": "their own rows", "server": "every owner's exact local counts for every test",
                "key holder": "no keys: nothing is encrypted (the reference)"}
    if mode == "emulate":
        return {"owners": "their own rows", "server": "—  (a noise-free numpy emulation of the circuit; nothing is "
                "encrypted)", "key holder": "the approximate statistics of the pooled counts (no differential "
                "privacy)"}
    if mode == "aggregate":
        return {"owners": "their own rows; encrypt their local tables",
                "server": "ciphertexts only (no secret key); adds them",
                # the key holder is an owner: the decrypted sums minus its own tables are the others' total
                "key holder": "the summed contingency tables of every test; minus its own, that is the other owners' "
                              "total — with two owners, the other owner's exact tables; no differential privacy"}
    return {"owners": "their own rows; encrypt their local counts" + (" and a guess of each reciprocal" if mode == "warm"
                                                                     else ""),
            "server": "ciphertexts only (no secret key); evaluates the χ²/G² circuit on them",
            "key holder": "one statistic per test, computed from the pooled counts: the server hides each per-cell "
                          "contribution under a random mask, and each test's masks sum to zero; the statistics are "
                          "not noised (no differential privacy)"}


def no_dp_note(mode: str) -> str:
    """What a run without a DP variant promises about its output: nothing (the Encrypted page's notice)."""
    seen = {"aggregate": "contingency tables the key holder decrypts", "emulate": "emulated statistics",
            "plaintext": "counts the server sees"}.get(mode, "statistics the key holder decrypts")
    encrypted = mode in ("aggregate", "warm", "paper")
    return (f"**No privacy guarantee.** Without a DP variant the {seen} and the learned graph are computed from the "
            "owners' exact counts, with no privacy noise: the learned graph itself is not private. "
            + ("Encryption keeps the counts from the server; it does not limit what the output reveals about a "
               "person. " if encrypted else "")
            + "Choose a DP variant for a differential-privacy guarantee.")


#: the owners' row counts of a skewed split, beside a DP variant's guarantee: the simulation deals each state of the
#: first variable's rows by its own Dirichlet draw, so one record's value can change every owner's count
SKEWED_ROWS_NOTE = ("'owner_rows' of the skewed split come from the first variable's values (the simulation deals "
                    "each state's rows to the owners)")


def fhe_summary(report: dict, params: dict) -> dict[str, Any]:
    """The JSON-safe part of a run's report (the ``fhe`` key of ``discover --json``). With a DP variant the
    comparisons with plaintext (agreement, flips, SHD) are computed from the exact counts: they go under
    ``diagnostics``, labelled, and not beside the private result; its ``what`` names the other numbers of the
    report that come from the exact data — the timings and memory, and, for the skewed split, the owners' row
    counts, which this simulation draws from the first variable's values (the iid split's are a function of n)."""
    dp = params.get("dp") is not None
    levels = [{"order": lv["order"], "tests": lv["tests"], "slots": lv["slots"],
               **({} if dp else {"agreement": lv.get("agreement"), "flips": lv.get("flips")}),
               **({"max_r0x": lv["max_r0x"], "overshoot_slots": lv["overshoot_slots"]} if "max_r0x" in lv else {}),
               **({"mask_width": lv["mask_width"]} if "mask_width" in lv else {})}
              for lv in report["levels"]]
    compare = {"agreement": report.get("agreement"), "shd_vs_plaintext": report.get("shd_vs_plaintext"),
               "levels": [{"order": lv["order"], "tests": lv["tests"], "agreement": lv.get("agreement"),
                           "flips": lv.get("flips")} for lv in report["levels"]]}
    if dp:
        from cgdcore.privacy import DIAGNOSTICS_NOTE, TIMING_NOTE

        what = ("the comparisons with plaintext PC on the exact counts (agreement, flips, SHD); "
                + (SKEWED_ROWS_NOTE + "; " if params.get("split") == "skewed" else "")
                + TIMING_NOTE + ", as are 'fhe.seconds' and 'memory_added_mb'")
        extra = {"diagnostics": {"note": DIAGNOSTICS_NOTE, **compare, "what": what}}
    else:
        extra = {"agreement": compare["agreement"], "shd_vs_plaintext": compare["shd_vs_plaintext"]}
    return {"mode": params.get("mode"), "owners": report.get("owners"), "owner_rows": report.get("owner_rows"),
            "levels": levels, **extra,
            "seconds": {k: round(v, 4) for k, v in report["seconds"].items()},
            "bytes": report["bytes"], "ciphertexts": report.get("ciphertexts", 0),
            "ckks": report.get("ckks"), "ckks_params": report.get("ckks_params"),
            "memory_added_mb": report.get("memory_added_mb"),
            "sees": what_each_party_sees(params.get("mode"), params.get("dp"),
                                         fixed_seed=bool(report.get("noise_seed_fixed")))}
