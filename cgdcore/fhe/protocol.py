"""Federated PC under CKKS encryption (seed 003, Alg. 2 and §III-C), one API for every mode.

One PC level at a time (the paper's SIMD batching, §III-C5): the coordinator lists every test
(x, y | S) of the level, each owner counts its rows for all of them, and the level is evaluated
in one pass over packed slots — one slot per (test, cell (z, x, y)), four aligned vectors
N_xyz, N_x+z, N_+yz, N_++z (divided by a public constant: n as in the paper, or sqrt(n)). The key holder gets one number per test,
turns it into a p-value (χ² tail, dof = (|X|−1)(|Y|−1)Π|S| as in pcalg; the paper's dof omits
Π|S|, erratum A14.7) and PC continues in plaintext. Per edge the separating set kept is the
independent test with the largest p-value (paper §IV-B).

Modes (``MODES``):

* ``plaintext`` — owners' counts added in the clear, exact statistic (the reference);
* ``emulate`` — the same approximate circuit (Newton–Raphson reciprocal, Taylor log) in float64
  numpy, no encryption noise: instant, shows what the approximations alone cost;
* ``aggregate`` — secure aggregation: owners encrypt N_xyz, the server adds ciphertexts, the key
  holder decrypts the *totals* and computes the exact statistic (so it sees the tables);
* ``paper`` — encrypted statistic as in the paper: 10 iterations from the public guess r0 = 1
  (every input is ≤ 1 after dividing by n), 3 Taylor terms; its depth forces a 31-bit scale;
* ``warm`` — encrypted statistic with a warm start: every owner also sends an encrypted per-slot
  guess w_i·c / d̂_i from its own counts (d̂_i: the owner's estimate of the reciprocal's input);
  the server adds the guesses (additions only), and 4 iterations suffice (depth 13, 40-bit scale).
  It converges while r0·x < 2 in every slot; owners whose data are unlike the others' (a skewed
  split) can overshoot — the run reports max r0·x as a simulation diagnostic.

DP variants (``DP_VARIANTS``), with exact discrete Laplace noise on the integer counts (P[z] ∝ e^{−|z|ε/2}:
a count vector moves by ℓ1 ≤ 2 when one row is replaced; cgdcore.privacy.discrete):

* ``once`` — every owner adds a *full* noise draw to each cell of its own joint histogram, once; the
  noisy histograms are securely aggregated and the key holder decrypts only their sum, from which every
  later table is post-processing. A row belongs to one owner, whose own noise already makes its
  histogram ε-DP, so the aggregate is ε-DP against every other party — the key holder, who knows its
  own share, included — and against any coalition without that owner (the price: k draws of noise in
  the sum instead of one). Recorded as one release of ε on the whole data.
* ``per-count`` (as in paper, §III-D) — each owner noises every distinct count of every test once
  (N_xyz, N_x+z, N_+yz, N_++z; the marginals are broadcast to the cells only after noising, so no count
  is released twice), sent in the clear; four releases of ε per test per owner, composed per owner
  (owners hold disjoint rows).
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from cgdcore import UserError
from cgdcore.cancel import checkpoint
from cgdcore.fhe import circuits, ckks
from cgdcore.fhe.parties import MAX_JOINT_CELLS, Owner, joint_cells, split_rows

MODES = ("plaintext", "emulate", "aggregate", "paper", "warm")
ENCRYPTED_MODES = ("aggregate", "paper", "warm")
DP_VARIANTS = ("once", "per-count")
DEFAULT_ITERATIONS = {"paper": 10, "warm": 4, "emulate": 10}
HISTOGRAM_SENSITIVITY = 2.0  # L1 change of a count vector when one row is replaced


@dataclass(frozen=True)
class Settings:
    """How the statistic is computed (see the module docstring)."""

    mode: str = "warm"
    statistic: str = "g2"
    iterations: int | None = None  # Newton–Raphson steps (None: the mode's default)
    r0: float = 1.0  # public initial guess (paper: "the reciprocal of the maximum input")
    warm_start: bool | None = None  # owners send encrypted guesses (default: mode == "warm")
    warm_c: float = 0.7
    taylor_terms: int = 3
    log_series: str | None = None  # G² only: "taylor" (paper) or "atanh" (default for warm)

    def resolved(self) -> "Settings":
        if self.mode not in MODES:
            raise UserError(f"unknown mode {self.mode!r}; choose one of {', '.join(MODES)}.")
        if self.statistic not in circuits.STATISTICS:
            raise UserError(f"the encrypted CI test must be 'g2' or 'chi2' (got {self.statistic!r}).")
        it = self.iterations if self.iterations is not None else DEFAULT_ITERATIONS.get(self.mode, 10)
        if int(it) != it or not 1 <= it <= 30:
            raise UserError(f"Newton–Raphson iterations must be a whole number from 1 to 30 (got {it}).")
        if int(self.taylor_terms) != self.taylor_terms or not 1 <= self.taylor_terms <= 12:
            raise UserError(f"Taylor terms must be a whole number from 1 to 12 (got {self.taylor_terms}).")
        if not (0 < self.r0 <= 2) or not math.isfinite(self.r0):
            raise UserError(f"the public initial guess r0 must be in (0, 2] (inputs are ≤ 1); got {self.r0}.")
        if not (0 < self.warm_c < 2):
            raise UserError(f"the warm-start factor c must be in (0, 2) (got {self.warm_c}).")
        warm = self.mode == "warm" if self.warm_start is None else bool(self.warm_start)
        series = self.log_series or ("atanh" if self.mode == "warm" else "taylor")
        if series not in circuits.LOG_SERIES:
            raise UserError(f"unknown log series {series!r}; choose one of {', '.join(circuits.LOG_SERIES)}.")
        return replace(self, iterations=int(it), warm_start=warm, taylor_terms=int(self.taylor_terms),
                       log_series=series)

    def divisor(self, n: int) -> float:
        """The public constant the owners divide their counts by before encrypting. The paper
        divides by n so that every input is ≤ 1 and r0 = 1 is a valid guess. A warm start needs
        no such bound and divides by sqrt(n) instead, which keeps small cells' products (B·C·E
        ~ n^-3 after dividing by n) well above the CKKS noise floor."""
        return float(n) if not self.warm_start else math.sqrt(n)

    @property
    def depth(self) -> int:
        return circuits.circuit_depth(self.statistic, warm_start=bool(self.warm_start),
                                      iterations=int(self.iterations), taylor_terms=self.taylor_terms,
                                      log_series=self.log_series or "taylor")


# ---------------------------------------------------------------------------- layout
def level_tests(adjacency, order: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """Every test of a stable PC level: for each edge x–y, S ⊆ adj(x)\\{y} and S ⊆ adj(y)\\{x}."""
    tests = set()
    for x, adj in enumerate(adjacency):
        for y in adj:
            if x < y:
                for side in (x, y):
                    cand = sorted(set(adjacency[side]) - {x, y})
                    tests.update((x, y, S) for S in itertools.combinations(cand, order))
    return sorted(tests)


@dataclass
class Layout:
    tests: list[tuple[int, int, tuple[int, ...]]]
    offsets: np.ndarray  # start slot of each test
    dof: np.ndarray

    @property
    def slots(self) -> int:
        return int(self.offsets[-1]) if len(self.offsets) else 0


def make_layout(tests, arities) -> Layout:
    sizes = [arities[x] * arities[y] * int(np.prod([arities[s] for s in S], dtype=np.int64)) for x, y, S in tests]
    dof = [(arities[x] - 1) * (arities[y] - 1) * int(np.prod([arities[s] for s in S], dtype=np.int64))
           for x, y, S in tests]
    return Layout(list(tests), np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), np.asarray(dof, float))


def _fill_cells(out: np.ndarray, sl: slice, tab: np.ndarray, noise=None) -> None:
    """Write one test's N_xyz, N_x+z, N_+yz, N_++z (each broadcast to the cells) into ``out[:, sl]``;
    ``tab`` has shape (Z, |X|, |Y|). ``noise(size)`` (integers), when given, is added to each distinct
    count once, before the marginals are broadcast."""
    parts = [tab, tab.sum(axis=2, keepdims=True), tab.sum(axis=1, keepdims=True), tab.sum(axis=(1, 2), keepdims=True)]
    for k, part in enumerate(parts):
        if noise is not None:
            part = part + noise(part.size).reshape(part.shape)
        out[k, sl] = np.broadcast_to(part, tab.shape).ravel()


def count_vectors(owner: Owner, layout: Layout, noise=None) -> np.ndarray:
    """(4, slots): the owner's N_xyz, N_x+z, N_+yz, N_++z for every cell of every test (Alg. 2, l. 10),
    each distinct count plus ``noise`` when given (the per-count DP variant)."""
    out = np.empty((4, layout.slots))
    for t, (x, y, S) in enumerate(layout.tests):
        checkpoint()
        tab = owner.table(tuple(S) + (x, y))
        _fill_cells(out, slice(layout.offsets[t], layout.offsets[t + 1]),
                    tab.reshape(-1, tab.shape[-2], tab.shape[-1]), noise)
    return out


def exact_cells(stat: str, A, B, C, E) -> np.ndarray:
    """Exact per-cell contributions from the four aligned vectors (empty cells contribute 0)."""
    A, B, C, E = (np.maximum(np.asarray(v, float), 0.0) for v in (A, B, C, E))
    out = np.zeros_like(A)
    ok = (B > 0) & (C > 0) & (E > 0)
    if stat == "chi2":
        out[ok] = (A[ok] * E[ok] - B[ok] * C[ok]) ** 2 / (B[ok] * C[ok] * E[ok])
    else:
        ok &= A > 0
        out[ok] = A[ok] * np.log(A[ok] * E[ok] / (B[ok] * C[ok]))
    return out


def warm_guess(local: np.ndarray, settings: "Settings", n: int, n_owner: int) -> np.ndarray:
    """An owner's guess for 1/x from its own counts, weighted by its share w of the rows:
    w·c / x̂, where x̂ is the reciprocal's input evaluated at upper estimates of the global
    counts, (N_i + 1 + sqrt(N_i + 1)) / w (about one Poisson standard deviation above the
    scaled local count). Over-estimating x keeps r0·x below 2, where Newton–Raphson converges,
    in every slot on representative (iid) splits; skewed splits can still overshoot."""
    w = n_owner / n
    est = (local + 1.0 + np.sqrt(local + 1.0)) / (w * settings.divisor(n))
    x = circuits.reciprocal_input(settings.statistic, settings.log_series, *est)
    return w * settings.warm_c / x


def p_values(stats: np.ndarray, dof: np.ndarray) -> np.ndarray:
    from scipy.special import chdtrc

    return np.clip(chdtrc(dof, np.maximum(stats, 0.0)), 0.0, 1.0)


# ---------------------------------------------------------------------------- the protocol
@dataclass
class Federation:
    """Owners, the key holder among them, and the server; evaluates one PC level at a time."""

    owners: list[Owner]
    n: int
    arities: tuple[int, ...]
    settings: Settings
    key_holder: int = 0
    dp: str | None = None
    epsilon: float | None = None
    ledger: Any = None
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    progress: Callable[[str], None] | None = None
    report: dict = field(default_factory=dict)

    def __post_init__(self):
        self.report = {"levels": [], "seconds": {"keygen": 0.0, "count": 0.0, "encrypt": 0.0, "compute": 0.0,
                                                 "decrypt": 0.0},
                       "bytes": {"public_context": 0, "upload_per_owner": [0] * len(self.owners), "results": 0},
                       "ciphertexts": 0}
        self._keys = None
        self._server_ctx = None
        self._owner_ctx = None
        self._agg_total = None  # DP "once": the decrypted noisy joint
        # the server's own secret randomness for the masks: fresh operating-system entropy, never derived from the
        # run's seed (a party who knew that seed could recompute the masks and read every per-cell contribution)
        self._server_rng = np.random.default_rng(np.random.SeedSequence())

    # -- keys
    def _setup(self, params: ckks.CKKSParams):
        if self._keys is not None:
            return
        t = time.perf_counter()
        self._say(f"generating the CKKS keys (N = {params.poly_modulus_degree}, {params.depth} levels)")
        checkpoint()  # each step below is one library call of 1.5–2 s at N = 32768
        self._keys = ckks.KeyHolder(params)
        checkpoint()
        pub = self._keys.public_bytes()
        checkpoint()
        # the other owners (who encrypt) and the server (who evaluates) hold the same public context, without the
        # secret key; parsed once here, where all parties run in one process
        self._owner_ctx = self._server_ctx = ckks.public_context(pub)
        self.report["seconds"]["keygen"] += time.perf_counter() - t
        self.report["bytes"]["public_context"] = len(pub)
        self.report["ckks"] = params.describe()
        self.report["ckks_params"] = {"poly_modulus_degree": params.poly_modulus_degree,
                                      "coeff_mod_bit_sizes": list(params.coeff_mod_bit_sizes),
                                      "scale_bits": params.scale_bits, "security_bits": 128}

    def _tick(self, what: str, t0: float) -> float:
        t = time.perf_counter()
        self.report["seconds"][what] += t - t0
        return t

    def _say(self, msg: str):
        if self.progress is not None:
            self.progress(msg)

    # -- DP "once": noisy joint histogram, securely aggregated
    def prepare_dp_once(self):
        cells = joint_cells(self.arities)
        if cells > MAX_JOINT_CELLS:
            raise UserError(f"the DP variant noises every cell of the full joint histogram, and this dataset has "
                            f"{cells:,.0f} cells (limit {MAX_JOINT_CELLS:,}); choose a network with fewer or "
                            "smaller variables (Asia, Cancer, Sachs, Survey …) or the 'per-count' variant.")
        params = ckks.aggregation_params()
        self._setup(params)
        self.ledger.record("discrete Laplace, one full draw per owner", self.epsilon, group="histogram",
                           what=f"the noisy joint histogram ({cells:,} cells), securely aggregated from "
                                f"{len(self.owners)} owners")
        for o in self.owners:
            t = time.perf_counter()
            noisy = o.full_joint().ravel() + self._noise().draw(cells)
            t = self._tick("count", t)
            blobs = [ckks.encrypt(self._owner_ctx, chunk) for chunk in _chunks(noisy, params.slots)]
            t = self._tick("encrypt", t)
            self.report["bytes"]["upload_per_owner"][o.index] += sum(map(len, blobs))
            self.report["ciphertexts"] += len(blobs)
            sums = [ckks.load(self._server_ctx, b) for b in blobs]
            if o.index == 0:
                acc = sums
            else:
                acc = [a + s for a, s in zip(acc, sums)]
            self._tick("compute", t)
        t = time.perf_counter()
        out = [a.serialize() for a in acc]
        self.report["bytes"]["results"] += sum(map(len, out))
        total = np.concatenate([self._keys.decrypt(b) for b in out])[:cells]
        self._tick("decrypt", t)
        noisy_joint = np.maximum(total, 0.0).reshape(self.arities)  # post-processing: clamp at 0
        self._agg_total = Owner(-1, np.empty((0, len(self.arities)), np.int64), self.arities, noisy_joint)

    # -- one level
    def evaluate(self, tests, order: int) -> dict[str, np.ndarray]:
        """Statistics and p-values of every test of one level, plus the plaintext reference."""
        s = self.settings
        lay = make_layout(tests, self.arities)
        t0 = time.perf_counter()
        if self._agg_total is not None:  # DP once: every table is post-processing of the noisy joint
            total = count_vectors(self._agg_total, lay)
            locals_ = None
        else:
            locals_ = [count_vectors(o, lay) for o in self.owners]
            total = np.sum(locals_, axis=0)
        self._tick("count", t0)
        n = self.n
        m = s.divisor(n)
        exact = _per_test(exact_cells(s.statistic, *total), lay, s.statistic)
        info: dict[str, Any] = {"order": order, "tests": len(tests), "slots": lay.slots}
        if self.dp == "per-count":
            cells = self._per_count(locals_, lay, order)
        elif self._agg_total is not None or s.mode == "plaintext":
            cells = None
        elif s.mode == "emulate":
            r0 = (np.sum([warm_guess(v, s, n, o.n) for v, o in zip(locals_, self.owners)], axis=0)
                  if s.warm_start else s.r0)
            info["max_r0x"], info["overshoot_slots"] = _max_r0x(r0, total / m, s)
            with np.errstate(over="ignore", invalid="ignore"):  # a diverged slot is reported, not warned
                cells = circuits.cell_values(s.statistic, *(total / m), r0=r0, iterations=s.iterations,
                                             taylor_terms=s.taylor_terms, log_series=s.log_series) * m
        else:
            cells = self._encrypted(locals_, lay, info)
        stats = exact if cells is None else _per_test(cells, lay, s.statistic)
        stats = np.where(np.isfinite(stats), stats, np.inf)
        p = p_values(stats, lay.dof)
        # simulation-side reference (what plaintext PC on the true counts would decide)
        if self._agg_total is None and self.dp is None:
            ref_stat = exact
        else:  # DP: the reference is plaintext PC on the true counts
            true_total = np.sum([count_vectors(o, lay) for o in self.owners], axis=0)
            ref_stat = _per_test(exact_cells(s.statistic, *true_total), lay, s.statistic)
        p_ref = p_values(ref_stat, lay.dof)
        info["stats"], info["p"], info["p_plaintext"] = stats, p, p_ref
        info["dof"] = lay.dof
        self.report["levels"].append(info)
        return info

    def _noise(self):
        """Exact discrete Laplace for integer count vectors of ℓ1 sensitivity 2 at this run's ε."""
        from cgdcore.privacy.discrete import NoiseStream

        if getattr(self, "_stream", None) is None:
            self._stream = NoiseStream(self.rng, self.epsilon, int(HISTOGRAM_SENSITIVITY))
        return self._stream

    def _per_count(self, locals_, lay, order):
        """The paper's DP variant: every distinct count of each owner's four vectors per test noised once, sent
        in the clear; four releases of ε per test per owner."""
        noisy = np.zeros((4, lay.slots))
        stream = self._noise()
        for o in self.owners:
            for t in range(len(lay.tests)):
                for name in ("N_xyz", "N_x+z", "N_+yz", "N_++z"):
                    self.ledger.record("discrete Laplace", self.epsilon, order=order, group=f"order {order}",
                                       what=f"owner {o.index + 1}: {name} of test {t}",
                                       partition=f"owner {o.index + 1}")
            noisy += count_vectors(o, lay, noise=stream.draw)
        return exact_cells(self.settings.statistic, *noisy)

    def _encrypted(self, locals_, lay, info):
        s = self.settings
        n = self.n
        m = s.divisor(n)
        if s.mode == "aggregate":
            params = ckks.aggregation_params()
        else:
            params = ckks.statistic_params(s.depth)
        self._setup(params)
        info["ckks"] = params.describe()
        out = np.zeros(lay.slots)
        guesses = None
        if s.mode != "aggregate" and s.warm_start:
            guesses = [warm_guess(v, s, n, o.n) for v, o in zip(locals_, self.owners)]
        if s.mode != "aggregate":
            info["max_r0x"], info["overshoot_slots"] = _max_r0x(
                np.sum(guesses, axis=0) if guesses is not None else s.r0, np.sum(locals_, axis=0) / m, s)
        masks = None
        if s.mode != "aggregate":
            width = mask_width(params)
            masks = zero_sum_masks(lay, width, self._server_rng)
            info["mask_width"] = width
        n_chunks = -(-lay.slots // params.slots)
        view = []  # exactly what the key holder decrypts (kept for the report and the tests)
        for c, sl in enumerate(_chunk_slices(lay.slots, params.slots)):
            self._say(f"order {info['order']}: ciphertext batch {c + 1}/{n_chunks} ({sl.stop - sl.start:,} slots)")
            # owners: encrypt their vectors for this batch and send them
            sent = []
            for o, v in zip(self.owners, locals_):
                checkpoint()
                t = time.perf_counter()
                vecs = [v[0, sl]] if s.mode == "aggregate" else [v[k, sl] / m for k in range(4)]
                if guesses is not None:
                    vecs.append(guesses[o.index][sl])
                blobs = [_checked(ckks.encrypt, self._owner_ctx, x) for x in vecs]
                self._tick("encrypt", t)
                self.report["bytes"]["upload_per_owner"][o.index] += sum(map(len, blobs))
                self.report["ciphertexts"] += len(blobs)
                sent.append(blobs)
            # server: add the owners' ciphertexts, evaluate the circuit (public context only)
            checkpoint()
            t = time.perf_counter()
            agg = None
            for blobs in sent:
                cts = [ckks.load(self._server_ctx, b) for b in blobs]
                agg = cts if agg is None else [a + b for a, b in zip(agg, cts)]
            if s.mode == "aggregate":
                result = agg[0]
            else:
                A, B, C, E = agg[:4]
                r0 = agg[4] if guesses is not None else s.r0
                result = circuits.cell_values(s.statistic, A, B, C, E, r0=r0, iterations=s.iterations,
                                              taylor_terms=s.taylor_terms, log_series=s.log_series)
                result = result + masks[sl].tolist()  # plaintext add: no depth; hides single cells
            blob = result.serialize()
            self.report["bytes"]["results"] += len(blob)
            t = self._tick("compute", t)
            # key holder: decrypt
            vals = self._keys.decrypt(blob)[: sl.stop - sl.start]
            view.append(vals)
            if s.mode == "aggregate":
                true_counts = np.sum([v[0, sl] for v in locals_], axis=0)  # simulation diagnostic only
                counts = np.rint(vals)
                info["max_count_error"] = max(info.get("max_count_error", 0.0),
                                              float(np.max(np.abs(vals - true_counts), initial=0)))
                out[sl] = counts
            else:
                out[sl] = vals * m
            self._tick("decrypt", t)
        info["key_holder_view"] = np.concatenate(view) if view else np.zeros(0)
        if s.mode == "aggregate":
            return self._cells_from_joint_counts(out, lay)
        return out

    def _cells_from_joint_counts(self, counts, lay):
        """The key holder derives the marginals from the decrypted N_xyz and computes exactly."""
        vec = np.empty((4, lay.slots))
        for t, (x, y, _) in enumerate(lay.tests):
            sl = slice(lay.offsets[t], lay.offsets[t + 1])
            _fill_cells(vec, sl, counts[sl].reshape(-1, self.arities[x], self.arities[y]))
        return exact_cells(self.settings.statistic, *vec)


def mask_width(params: ckks.CKKSParams) -> float:
    """Half-width M of the server's masks: the decrypted slots must stay below q_0 / (2·scale)
    = 2^(60 − s − 1); M = 2^(60 − s − 4) leaves the sum of a mask and a cell value 8× room."""
    return float(2.0 ** (params.coeff_mod_bit_sizes[0] - params.scale_bits - 4))


def zero_sum_masks(lay: Layout, width: float, rng: np.random.Generator) -> np.ndarray:
    """One mask per slot, uniform on [−M, M] minus its test's mean, so each test's masks sum to 0.

    The server adds them (a plaintext addition, no multiplicative depth) to the encrypted
    per-cell contributions before they go to the key holder, who then sees every cell hidden by
    noise of width about 2M (M ≈ 2^16 against cell values of order 1 after the 1/m scaling)
    while each test's sum, the statistic, is unchanged: the key holder learns one statistic per
    test, not the cells (a zero-sum additive mask, as in secure-aggregation protocols; it
    assumes the server and the key holder do not collude)."""
    u = rng.uniform(-width, width, lay.slots)
    if not lay.slots:
        return u
    sizes = np.diff(lay.offsets)
    means = np.add.reduceat(u, lay.offsets[:-1]) / sizes
    return u - np.repeat(means, sizes)


def _per_test(cells, lay: Layout, stat: str) -> np.ndarray:
    """Σ over each test's cells; G² = 2 Σ O ln(O/E) (cells hold counts-scale contributions)."""
    if not lay.slots:
        return np.zeros(0)
    return np.add.reduceat(cells, lay.offsets[:-1]) * (2.0 if stat == "g2" else 1.0)


def _max_r0x(r0, scaled, settings: Settings) -> tuple[float, int]:
    """Simulation diagnostics: the largest r0·x over the slots, and how many slots have r0·x ≥ 2
    (where Newton–Raphson diverges)."""
    x = circuits.reciprocal_input(settings.statistic, settings.log_series, *scaled)
    return float(np.max(r0 * x, initial=0.0)), int(np.sum(r0 * x >= 2.0))


def _checked(fn, *args):
    """``fn(*args)`` after a cancel checkpoint (one ciphertext operation at a time)."""
    checkpoint()
    return fn(*args)


def _chunk_slices(total: int, size: int):
    for start in range(0, total, size):
        yield slice(start, min(total, start + size))


def _chunks(vec, size):
    for sl in _chunk_slices(len(vec), size):
        yield vec[sl]
