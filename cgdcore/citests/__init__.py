"""Conditional-independence tests over a shared sufficient-statistics cache.

Usage::

    from cgdcore.citests import suffstats_for, make_ci_test
    stats = suffstats_for(data, arities)          # shared across runs on equal data
    test = make_ci_test("kendall", stats, sided="two")
    res = test(0, 1, (2, 3))                      # CIResult(statistic, p_value, dof)

Tests: ``kendall`` (Priv-PC's conditional Kendall τ), ``chi2`` (Pearson χ²), ``g2`` (G-test),
``fisherz`` (partial correlation). Sensitivities of the private statistics live in
:mod:`cgdcore.citests.sensitivity`. Only numpy is imported here; scipy is imported on the
first χ²/G p-value.
"""
from __future__ import annotations

from typing import Callable, Sequence

from cgdcore import UserError, lazy_attributes
from cgdcore.citests.budget import RESULT_ENTRY_BYTES, shares
from cgdcore.citests.chisq import chi2_test, chisq_from_table, g2_test
from cgdcore.citests.contingency import SuffStats, clear_suffstats_cache, fingerprint, suffstats_for
from cgdcore.citests.result import CIResult

#: names of the Kendall, Fisher-z and sensitivity modules, each loaded when first used (a G-test run needs none)
_HOMES = {
    **dict.fromkeys(("fisherz_test", "partial_correlation"), "fisherz"),
    **dict.fromkeys(("concordance_minus_discordance", "kendall_public_z_from_table", "kendall_test",
                     "kendall_z_from_table", "normal_p_value"), "kendall"),
    **dict.fromkeys(("CURATE_VARIANTS", "KENDALL_C1", "KENDALL_PUBLIC_C", "curate_constant", "curate_p_sensitivity",
                     "g2_sensitivity", "kendall_p_sensitivity", "kendall_public_z_sensitivity",
                     "kendall_z_sensitivity", "p_sensitivity", "subsampled_p_sensitivity"), "sensitivity"),
}


__getattr__ = lazy_attributes(__name__, _HOMES, globals())


__all__ = [
    "CIResult",
    "CITest",
    "CI_TESTS",
    "CI_TEST_DESCRIPTIONS",
    "DISCRETE_TESTS",
    "make_ci_test",
    "shared_ci_test",
    "SuffStats",
    "suffstats_for",
    "clear_suffstats_cache",
    "fingerprint",
    "kendall_test",
    "chi2_test",
    "g2_test",
    "fisherz_test",
    "kendall_z_from_table",
    "kendall_public_z_from_table",
    "concordance_minus_discordance",
    "chisq_from_table",
    "partial_correlation",
    "normal_p_value",
    "KENDALL_C1",
    "KENDALL_PUBLIC_C",
    "CURATE_VARIANTS",
    "kendall_z_sensitivity",
    "kendall_p_sensitivity",
    "kendall_public_z_sensitivity",
    "p_sensitivity",
    "subsampled_p_sensitivity",
    "curate_constant",
    "curate_p_sensitivity",
    "g2_sensitivity",
]

CI_TESTS: tuple[str, ...] = ("kendall", "chi2", "g2", "fisherz")
DISCRETE_TESTS: frozenset[str] = frozenset({"kendall", "chi2", "g2"})

CI_TEST_DESCRIPTIONS: dict[str, str] = {
    "kendall": "Conditional Kendall's τ (Priv-PC): τ-a per stratum of S, inverse-variance weighted z; "
    "discrete ordinal data; bounded sensitivity, so it can be made private.",
    "chi2": "Pearson χ² test summed over the strata of S, dof adjusted for empty rows/columns; discrete data.",
    "g2": "G-test (log-likelihood ratio, G = 2 Σ O ln(O/E)) summed over strata; discrete data; "
    "the classic PC test for Bayesian-network data.",
    "fisherz": "Fisher-z test of zero partial correlation; assumes linear-Gaussian data "
    "(discrete codes are treated as numbers).",
}


class CITest:
    """A CI test bound to one dataset: ``test(x, y, S) -> CIResult``.

    Results are deterministic, so they are cached per instance keyed by
    (min(x, y), max(x, y), sorted S), up to ``max_bytes`` (default: a CI test's share of CGD_CORE_CACHE_MB, each
    entry charged RESULT_ENTRY_BYTES; when full, the cache starts over). ``n_calls`` counts calls, ``n_computed``
    cache misses.
    """

    def __init__(
        self,
        name: str,
        stats: SuffStats,
        fn: Callable[..., CIResult],
        sided: str | None = None,
        max_bytes: int | None = None,
    ):
        self.name = name
        self.stats = stats
        self.sided = sided
        self.description = CI_TEST_DESCRIPTIONS[name]
        self._fn = fn
        self._cache: dict[tuple[int, int, tuple[int, ...]], CIResult] = {}
        self._memo: dict[tuple, object] = {}
        self.n_calls = 0
        self.n_computed = 0
        self.max_entries = (shares()["results"] if max_bytes is None else int(max_bytes)) // RESULT_ENTRY_BYTES

    def __call__(self, x: int, y: int, S: Sequence[int] = ()) -> CIResult:
        self.n_calls += 1
        s = tuple(sorted(S))
        key = (x, y, s) if x < y else (y, x, s)
        res = self._cache.get(key)
        if res is None:
            x, y, s = self.stats.key(x, y, s)
            res = self._fn(self.stats, x, y, s)
            self.n_computed += 1
            if len(self._cache) + len(self._memo) >= self.max_entries:
                self._cache.clear()
            self._cache[key] = res
        return res

    def memo(self, key: tuple, compute: Callable[[], object]) -> object:
        """A deterministic quantity derived from this test's data (e.g. EM-PC's flip distance),
        computed once per ``key`` and kept as long as the test (bounded like the results)."""
        try:
            return self._memo[key]
        except KeyError:
            pass
        value = compute()
        if len(self._cache) + len(self._memo) >= self.max_entries:
            self._memo.clear()
        self._memo[key] = value
        return value

    def clear_cache(self) -> None:
        self._cache.clear()
        self._memo.clear()

    @property
    def nbytes(self) -> int:
        """Bytes charged for the cached results and memoised values (RESULT_ENTRY_BYTES each)."""
        return (len(self._cache) + len(self._memo)) * RESULT_ENTRY_BYTES

    def __repr__(self) -> str:
        side = f", sided={self.sided!r}" if self.sided else ""
        return f"CITest({self.name!r}{side}, {self.stats!r})"


def shared_ci_test(name: str, stats: SuffStats, **opts) -> CITest:
    """The CI test ``name`` over ``stats``, one instance per (stats, name, options).

    Results are deterministic, so every run on the same data (other algorithms, other ε,
    other seeds, other sessions) reuses them; only the noise of private runs is fresh. The
    instances live on ``stats``, which :func:`suffstats_for` shares by content in a bounded LRU.
    """
    key = (name, tuple(sorted(opts.items())))
    tests = stats.shared_tests
    test = tests.get(key)
    if test is None:
        test = tests.setdefault(key, make_ci_test(name, stats, **opts))
    return test


def make_ci_test(name: str, stats: SuffStats, **opts) -> CITest:
    """Build the CI test ``name`` ∈ CI_TESTS over ``stats``.

    Options for ``kendall``: ``sided="two"|"one"`` (default "two"; "one" is Priv-PC's
    reference-code p = 1 − Φ(|z|)) and ``normaliser="strata"|"public"`` (default "strata", Priv-PC's
    statistic; "public" is the provably bounded statistic the private algorithms use). Discrete tests need discrete data (a SuffStats built
    with arities).
    """
    if not isinstance(name, str) or name not in CI_TESTS:
        raise UserError(f"unknown CI test {name!r}; choose one of: {', '.join(CI_TESTS)}.")
    if not isinstance(stats, SuffStats):
        raise TypeError(f"stats must be a SuffStats (see suffstats_for); got {type(stats).__name__}")
    if name in DISCRETE_TESTS and not stats.is_discrete:
        raise UserError(
            f"the {name!r} test needs discrete data; discretise the numeric columns first "
            "(or use the 'fisherz' test for numeric data)."
        )
    allowed = {"sided", "normaliser"} if name == "kendall" else set()
    extra = set(opts) - allowed
    if extra:
        ok = ", ".join(sorted(allowed)) or "none"
        raise UserError(f"unknown option(s) {sorted(extra)} for the {name!r} test (allowed: {ok}).")
    if name == "kendall":
        from cgdcore.citests.kendall import kendall_test

        sided = opts.get("sided", "two")
        if sided not in ("two", "one"):
            raise UserError(f"sided must be 'two' or 'one' (Priv-PC's reference code); got {sided!r}.")
        normaliser = opts.get("normaliser", "strata")
        if normaliser not in ("strata", "public"):
            raise UserError(f"the Kendall normaliser must be 'strata' (Priv-PC's) or 'public' (the private runs' "
                            f"sqrt(9n/4)); got {normaliser!r}.")

        def fn(st, x, y, s, _sided=sided, _norm=normaliser):
            return kendall_test(st, x, y, s, sided=_sided, normaliser=_norm, checked=True)

        test = CITest(name, stats, fn, sided=sided)
        test.normaliser = normaliser
        return test
    if name in ("chi2", "g2"):  # CITest validates each query once (stats.key), so skip the second check
        from cgdcore.citests.chisq import chisq_test_of_key

        pearson = name == "chi2"

        def fn(st, x, y, s, _pearson=pearson):
            return chisq_test_of_key(st, x, y, s, _pearson)

        return CITest(name, stats, fn)
    from cgdcore.citests.fisherz import fisherz_test

    fn = {"fisherz": fisherz_test}[name]
    return CITest(name, stats, fn, sided="two" if name == "fisherz" else None)
