"""Differential privacy: measurements that carry their own costs, and the ledger that filters them.

* :mod:`cgdcore.privacy.ledger` — the budget filter with one composition rule fixed before the run;
  the guarantee a run states is a filter statement.
* :mod:`cgdcore.privacy.mechanisms` — Laplace, AboveThreshold, sieve-and-examine, exponential: one
  implementation each, used by the app, the CLI, the sweeps and the privacy tests alike.
* :mod:`cgdcore.privacy.discrete` — exact discrete Laplace noise on an integer lattice (floating-point
  safe); :mod:`cgdcore.privacy.snapping` — Mironov's snapping mechanism (the Learn page's lesson).

Randomness. Noise comes from numpy's PCG64 generator, which is fast and statistically sound but not
cryptographically secure: :func:`noise_generator` seeds it from fresh operating-system entropy by
default and never reports that seed. A fixed noise seed makes a run a reproducible demo — it is not
private against anyone who knows the seed, and every report of such a run says so.
"""
from __future__ import annotations

import numpy as np

__all__ = ["noise_generator", "noise_info", "FIXED_SEED_NOTE", "PRNG_NOTE", "DIAGNOSTICS_NOTE", "TIMING_NOTE",
           "PUBLIC_CATEGORIES_NOTE"]

#: How every number computed from the exact data beside a private result is labelled (JSON ``diagnostics``,
#: the app's diagnostics sections): it teaches what the noise did, and it is not part of any release.
DIAGNOSTICS_NOTE = "computed from the exact data, not covered by ε"

#: What a private run's time (JSON ``seconds``; an encrypted run's timings and memory too) is: it measures work on the
#: exact data, whose amount can depend on a record (which counting path a table takes, for one), so it is a side
#: channel that no mechanism covers, reported as a diagnostic.
TIMING_NOTE = ("'seconds' is the wall-clock time of computations on the exact data: a timing side channel, not "
               "covered by ε")

FIXED_SEED_NOTE = ("reproducible demo: the noise seed is fixed, so this run is not private against anyone who knows "
                   "the seed")
PRNG_NOTE = ("noise comes from numpy's PCG64 generator, seeded from operating-system entropy; it is not a "
             "cryptographically secure generator")


#: What a private run on categories read from the data file can claim, central (ε-DP) and local (ε-LDP) alike: a
#: category only one record has is in the domain because of that record, so a neighbour without it could never
#: produce that category at all (an infinite likelihood ratio); the guarantee assumes the schema was public.
PUBLIC_CATEGORIES_NOTE = ("each column's categories (their number and order) are taken as public, a schema fixed "
                          "before the data were seen; categories read from the file itself are not covered by ε (a "
                          "category only one record has would reveal that record)")


def noise_info(seed: int | None) -> dict:
    """How a run's noise was seeded, for its report: fresh entropy (nothing kept) or a reproducible demo."""
    if seed is None:
        return {"seed": None, "reproducible": False, "note": PRNG_NOTE}
    return {"seed": int(seed), "reproducible": True, "note": FIXED_SEED_NOTE}


def noise_generator(seed: int | None) -> tuple[np.random.Generator, dict]:
    """(generator, description) for a run's privacy noise: fresh OS entropy when ``seed`` is None (the
    seed is not kept), a reproducible stream otherwise (marked as a demo)."""
    rng = np.random.default_rng(np.random.SeedSequence() if seed is None else seed)
    return rng, noise_info(seed)
