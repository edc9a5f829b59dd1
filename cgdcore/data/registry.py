"""The dataset registry: benchmark networks, real data (Sachs, Adult) and synthetic linear SEMs.

A dataset is named by a *spec*: a base name optionally followed by ``:`` and comma-separated
``key=value`` options, e.g. ``"asia"``, ``"sachs-cont:truth=bnlearn,rows=all"`` or
``"synthetic:graph=sf,d=20,degree=2,noise=gumbel,graph_seed=3"``. ``load_dataset(spec, n, seed)``
returns a :class:`~cgdcore.data.dataset.Dataset`; ``list_datasets()`` describes what is available.

All files are read from the package's ``assets/`` folder (attribution in ``assets/README.md``).
Parsed networks and real tables are cached for the life of the process; sampled network data
is cached in a small LRU keyed by ``(name, n, seed)`` (deterministic, so safe to share).
"""
from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cgdcore import UserError
from cgdcore.data.bif import BayesNet, read_bif, sample
from cgdcore.data.dataset import Dataset
from cgdcore.data.sem import NOISES, random_dag, random_weights, simulate_linear_sem

__all__ = ["DatasetInfo", "list_datasets", "load_dataset", "load_network", "parse_spec",
           "NETWORKS", "OPTION_CHOICES", "ASSETS", "MAX_N", "find_cycle"]

ASSETS = Path(__file__).resolve().parents[2] / "assets"
MAX_N = 2_000_000
DEFAULT_N_NETWORK = 10_000
DEFAULT_N_SYNTHETIC = 1_000

_BNLEARN = "bnlearn Bayesian Network Repository (M. Scutari, https://www.bnlearn.com/bnrepository/)"
_CC_BY_SA = "CC BY-SA 3.0"

#: network -> (one-line description, original reference as cited by the bnlearn repository)
NETWORKS: dict[str, tuple[str, str]] = {
    "earthquake": ("Burglary/earthquake alarm toy network",
                   "Korb & Nicholson, Bayesian Artificial Intelligence, 2nd ed., CRC Press 2010"),
    "cancer": ("Lung-cancer toy network (pollution, smoking, x-ray, dyspnoea)",
               "Korb & Nicholson, Bayesian Artificial Intelligence, 2nd ed., CRC Press 2010"),
    "asia": ("Chest-clinic (visit to Asia) network",
             "Lauritzen & Spiegelhalter, J. R. Stat. Soc. B 50(2), 1988"),
    "survey": ("Transport-usage survey network",
               "Scutari & Denis, Bayesian Networks with Examples in R, Chapman & Hall 2014"),
    "sachs": ("Protein-signalling network, discretised to LOW/AVG/HIGH",
              "Sachs et al., Science 308(5721), 2005"),
    "child": ("Diagnosis of congenital heart disease in newborns (blue babies)",
              "Spiegelhalter & Cowell, Bayesian Statistics 4, 1992"),
    "insurance": ("Car-insurance risk estimation",
                  "Binder, Koller, Russell & Kanazawa, Machine Learning 29, 1997"),
    "alarm": ("ALARM patient-monitoring system",
              "Beinlich, Suermondt, Chavez & Cooper, AIME 1989"),
    "water": ("Waste-water treatment plant",
              "Jensen, Kjærulff, Olesen & Pedersen, Judex Datasystemer technical report, 1989"),
    "hailfinder": ("Severe-weather forecasting (north-eastern Colorado)",
                   "Abramson et al., Int. J. Forecasting 12(1), 1996"),
    "hepar2": ("Diagnosis of liver disorders",
               "Oniśko, PhD thesis, Polish Academy of Sciences, 2003"),
    "win95pts": ("Windows 95 printer troubleshooting", "Microsoft Research (no publication listed by bnlearn)"),
    "andes": ("Student modelling for coached physics problem solving",
              "Conati, Gertner, VanLehn & Druzdzel, User Modeling 1997"),
}

_FAITHFULNESS = {
    "asia": "Asia's 'either' node is a deterministic OR of 'tub' and 'lung', which violates "
            "faithfulness: some true edges cannot be recovered by any CI-test method.",
    "insurance": "Insurance contains deterministic CPT rows (zero probabilities), which violate "
                 "faithfulness: some true edges cannot be recovered by any CI-test method.",
}

# Sachs: CSV column (cdt) -> variable name in bnlearn's sachs.bif
SACHS_NAME_MAP = {"praf": "Raf", "pmek": "Mek", "plcg": "Plcg", "PIP2": "PIP2", "PIP3": "PIP3",
                  "p44/42": "Erk", "pakts473": "Akt", "PKA": "PKA", "PKC": "PKC", "P38": "P38",
                  "pjnk": "Jnk"}
_SACHS_OBS_ROWS = 853
_SACHS_SOURCE = ("Sachs, Perez, Pe'er, Lauffenburger & Nolan, 'Causal protein-signaling networks derived "
                 "from multiparameter single-cell data', Science 308(5721), 2005; file as shipped with the "
                 "cdt (Causal Discovery Toolbox) package")
_ADULT_COLUMNS = ("age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
                  "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
                  "hours-per-week", "native-country", "income")
_ADULT_NUMERIC = ("age", "capital-gain", "capital-loss", "hours-per-week")
#: Public ranges of Adult's numeric columns, from the extraction rules and the Current Population Survey's
#: reporting limits (adult.names: AAGE > 16, HRSWK > 0; age top-coded at 90, hours at 99, capital gains at
#: 99,999), not from the rows. Capital loss has no documented cap: 0 to 10,000 is declared.
ADULT_RANGES = {"age": (17.0, 90.0), "capital-gain": (0.0, 99_999.0), "capital-loss": (0.0, 10_000.0),
                "hours-per-week": (1.0, 99.0)}
#: Public range of every Sachs intensity: the measurements are reported as positive values from 1 up; 10,000
#: intensity units is declared as the top (a round figure, not read off the rows; larger values are clipped).
SACHS_RANGE = (1.0, 10_000.0)
_ADULT_SOURCE = "Kohavi & Becker, Adult (census income), UCI Machine Learning Repository, 1996"


@dataclass(frozen=True)
class DatasetInfo:
    """What ``list_datasets`` says about one dataset.

    ``n_rows`` is None for datasets sampled at any n; ``truth`` names the ground truth or is None;
    ``options`` maps each spec option to its default.
    """

    name: str
    kind: str
    n_vars: int
    n_rows: int | None
    truth: str | None
    description: str
    source: str
    licence: str
    options: dict = field(default_factory=dict)


# ----------------------------------------------------------------------------- spec parsing

def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,key=value"`` into the base name and an options dict (strings)."""
    if not isinstance(spec, str) or not spec.strip():
        raise UserError(f"a dataset name is required; choose one of: {', '.join(_ALL_NAMES)}")
    base, _, rest = spec.strip().partition(":")
    base = base.strip().lower()
    opts: dict[str, str] = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            key, value = key.strip().lower(), value.strip()
            if not eq or not key or not value:
                raise UserError(f"bad option {item.strip()!r} in dataset spec {spec!r}; write key=value, "
                                f"e.g. 'synthetic:graph=sf,d=20'")
            if key in opts:
                raise UserError(f"option {key!r} is given twice in {spec!r}")
            opts[key] = value
    return base, opts


def _check_options(base: str, opts: dict[str, str], allowed: dict) -> dict[str, str]:
    unknown = sorted(set(opts) - set(allowed))
    if unknown:
        valid = ", ".join(f"{k} (default {v})" for k, v in allowed.items()) or "none"
        raise UserError(f"unknown option(s) {', '.join(unknown)} for dataset {base!r}; valid options: {valid}")
    return {**{k: str(v) for k, v in allowed.items()}, **opts}


def _choice(base: str, key: str, value: str, choices) -> str:
    v = value.lower()
    if v not in choices:
        raise UserError(f"{base}: {key}={value!r} is not valid; choose one of: {', '.join(choices)}")
    return v


def _number(base: str, key: str, value: str, kind=int, lo=None, hi=None):
    try:
        x = kind(value)
    except ValueError:
        raise UserError(f"{base}: {key}={value!r} is not a {'whole ' if kind is int else ''}number") from None
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        raise UserError(f"{base}: {key}={value} is out of range; use a value from {lo} to {hi}")
    return x


def _check_n(n) -> int | None:
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise UserError(f"n must be a whole number of rows, got {n!r}")
    if not 2 <= n <= MAX_N:
        raise UserError(f"n={n:,} is out of range; use from 2 to {MAX_N:,} rows")
    return int(n)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise UserError(f"seed must be a non-negative whole number, got {seed!r}")
    return int(seed)


def _subsample(x: np.ndarray, n: int | None, seed: int, what: str, hint: str = "") -> np.ndarray:
    """A seeded subsample of rows without replacement (original order kept); all rows if n is None."""
    if n is None or n == len(x):
        return x
    if n > len(x):
        raise UserError(f"{what} has {len(x):,} rows; n={n:,} is more{hint}")
    idx = np.sort(np.random.default_rng(seed).choice(len(x), size=n, replace=False))
    return x[idx]


# ----------------------------------------------------------------------------- caches

@functools.lru_cache(maxsize=None)
def load_network(name: str) -> BayesNet:
    """The parsed BIF network ``assets/networks/<name>.bif.gz`` (cached)."""
    if name not in NETWORKS:
        raise UserError(f"unknown network {name!r}; choose one of: {', '.join(NETWORKS)}")
    return read_bif(ASSETS / "networks" / f"{name}.bif.gz")


class _SampleCache:
    """A thread-safe LRU of sampled arrays, bounded by entry count and total bytes."""

    def __init__(self, max_items: int = 16, max_bytes: int = 512 * 2**20):
        self.max_items, self.max_bytes = max_items, max_bytes
        self._d: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, make):
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                return self._d[key]
        value = make()
        value.setflags(write=False)
        with self._lock:
            self._d[key] = value
            while len(self._d) > self.max_items or (
                    len(self._d) > 1 and sum(v.nbytes for v in self._d.values()) > self.max_bytes):
                self._d.popitem(last=False)
        return value

    def clear(self):
        with self._lock:
            self._d.clear()


def _sample_budget() -> int:
    """Bytes of sampled arrays kept for reuse: CGD_CACHE_MB (MiB), the app's cache budget, when set to a positive
    number — the app's caches hold datasets built on these same arrays — else 512 MiB."""
    from cgdcore.environment import env_number

    mb = env_number("CGD_CACHE_MB", 512.0)
    return int((mb if mb > 0 else 512.0) * 2**20)


_samples = _SampleCache(max_bytes=_sample_budget())


@functools.lru_cache(maxsize=None)
def _sachs_table() -> tuple[tuple[str, ...], np.ndarray, list[tuple[str, str]]]:
    import pandas as pd

    df = pd.read_csv(ASSETS / "sachs" / "cyto_full_data.csv.gz")
    edges = pd.read_csv(ASSETS / "sachs" / "cyto_full_target.csv")
    x = df.to_numpy(dtype=np.float64)
    x.setflags(write=False)
    return tuple(df.columns), x, [(str(a), str(b)) for a, b in edges.itertuples(index=False)]


@functools.lru_cache(maxsize=None)
def _adult_table() -> Dataset:
    import pandas as pd

    from cgdcore.data.tabular import dataset_from_frame

    kw = dict(header=None, names=list(_ADULT_COLUMNS), skipinitialspace=True, na_values=["?"],
              keep_default_na=False, index_col=False)
    train = pd.read_csv(ASSETS / "adult" / "adult.data.gz", **kw)
    test = pd.read_csv(ASSETS / "adult" / "adult.test.gz", skiprows=1, **kw)  # line 1: "|1x3 Cross validator"
    test["income"] = test["income"].str.rstrip(".")
    df = pd.concat([train, test], ignore_index=True).drop(columns=["fnlwgt", "education-num"])
    note = (f"UCI train ({len(train):,} rows) and test ({len(test):,} rows) files combined; fnlwgt (a "
            f"sampling weight) and education-num (a copy of education) dropped")
    ds = dataset_from_frame(df, name="adult", missing="drop", numeric=_ADULT_NUMERIC,
                            source=_ADULT_SOURCE, licence="CC BY 4.0", notes=(note,))
    ds.data.setflags(write=False)
    return ds


# ----------------------------------------------------------------------------- loaders

# Default truth: bnlearn's sachs.bif DAG. The cdt consensus graph contains a directed cycle
# (plcg -> PIP2 -> PIP3 -> plcg), so it is not a DAG; it stays available as truth=consensus.
_SACHS_OPTIONS = {"rows": "observational", "truth": "bnlearn"}
#: the valid values of every enumerated spec option (numeric options are absent)
OPTION_CHOICES: dict[str, tuple[str, ...]] = {"rows": ("observational", "all"), "truth": ("bnlearn", "consensus"),
                                              "graph": ("er", "sf"), "noise": NOISES}
_SYNTH_OPTIONS = {"graph": "er", "d": 10, "degree": 2, "noise": "gauss", "graph_seed": 0}


def _load_network(base: str, opts: dict, n: int | None, seed: int) -> Dataset:
    _check_options(base, opts, {})
    bn = load_network(base)
    n = DEFAULT_N_NETWORK if n is None else n
    data = _samples.get((base, n, seed), lambda: sample(bn, n, np.random.default_rng(seed)))
    desc, ref = NETWORKS[base]
    notes = [f"{n:,} rows sampled from the network by forward sampling (seed {seed})"]
    if base in _FAITHFULNESS:
        notes.append(_FAITHFULNESS[base])
    return Dataset(name=base, variables=bn.variables, data=data, states=bn.states, truth=bn.adjacency(),
                   truth_name=f"bnlearn {base}.bif ({bn.n_arcs} arcs)",
                   source=f"{_BNLEARN}; original: {ref}", licence=_CC_BY_SA, notes=tuple(notes))


def find_cycle(adj: np.ndarray) -> list[int]:
    """Nodes of one directed cycle of ``adj`` (in cycle order), or [] if ``adj`` is a DAG."""
    d = adj.shape[0]
    state = [0] * d  # 0 new, 1 on the DFS stack, 2 done
    for root in range(d):
        if state[root]:
            continue
        stack, path = [(root, iter(np.flatnonzero(adj[root])))], [root]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state[child] == 1:
                return [int(v) for v in path[path.index(child):]]
            elif state[child] == 0:
                state[child] = 1
                stack.append((child, iter(np.flatnonzero(adj[child]))))
                path.append(int(child))
    return []


def _load_sachs(base: str, opts: dict, n: int | None, seed: int) -> Dataset:
    o = _check_options(base, opts, _SACHS_OPTIONS)
    rows = _choice(base, "rows", o["rows"], OPTION_CHOICES["rows"])
    truth = _choice(base, "truth", o["truth"], OPTION_CHOICES["truth"])
    cols, x, consensus = _sachs_table()
    full = x[:_SACHS_OBS_ROWS] if rows == "observational" else x
    hint = "; use rows=all (7,466 rows) or a smaller n" if rows == "observational" else ""
    data = _subsample(full, n, seed, f"sachs-cont (rows={rows})", hint)
    index = {c: i for i, c in enumerate(cols)}
    cycle: list[int] = []
    adj = np.zeros((len(cols), len(cols)), dtype=bool)
    if truth == "consensus":
        for a, b in consensus:
            adj[index[a], index[b]] = True
        truth_name = f"consensus ({int(adj.sum())} edges, cdt)"
        cycle = find_cycle(adj)
    else:
        bn = load_network("sachs")
        to_csv = {v: k for k, v in SACHS_NAME_MAP.items()}
        badj = bn.adjacency()
        for i, j in zip(*np.nonzero(badj)):
            adj[index[to_csv[bn.variables[i]]], index[to_csv[bn.variables[j]]]] = True
        truth_name = f"bnlearn sachs.bif ({int(adj.sum())} arcs)"
    what = "the observational cd3cd28 condition (853 rows)" if rows == "observational" else \
        "all 9 conditions (7,466 rows; 8 of them interventional)"
    notes = [f"raw intensities, {what}"]
    if truth == "consensus" and cycle:
        loop = " -> ".join(cols[i] for i in [*cycle, cycle[0]])
        notes.append(f"the consensus graph is not a DAG: it contains the directed cycle {loop}; "
                     f"DAG/CPDAG-based comparisons need truth=bnlearn")
    if n is not None and n < len(full):
        notes.append(f"random subsample of {n:,} rows without replacement (seed {seed})")
    return Dataset(name=f"sachs-cont:truth={truth},rows={rows}", variables=cols, data=data,
                   states=(None,) * len(cols), truth=adj, truth_name=truth_name, source=_SACHS_SOURCE,
                   licence="data: Sachs et al. 2005; file from cdt (MIT licence)", notes=tuple(notes),
                   ranges={c: SACHS_RANGE for c in cols})


def _load_adult(base: str, opts: dict, n: int | None, seed: int) -> Dataset:
    _check_options(base, opts, {})
    ds = _adult_table()
    data = _subsample(ds.data, n, seed, "adult (after dropping rows with missing values)")
    notes = ds.notes
    if n is not None and n < ds.n:
        notes = notes + (f"random subsample of {n:,} rows without replacement (seed {seed})",)
    return Dataset(name="adult", variables=ds.variables, data=data, states=ds.states, truth=None,
                   truth_name=None, source=ds.source, licence=ds.licence, notes=notes, ranges=dict(ADULT_RANGES))


def _synthetic_params(base: str, opts: dict) -> dict:
    o = _check_options(base, opts, _SYNTH_OPTIONS)
    graph = _choice(base, "graph", o["graph"], OPTION_CHOICES["graph"])
    d = _number(base, "d", o["d"], int, 2, 200)
    degree = _number(base, "degree", o["degree"], float, 0, (d - 1) / 2)
    noise = _choice(base, "noise", o["noise"], OPTION_CHOICES["noise"])
    graph_seed = _number(base, "graph_seed", o["graph_seed"], int, 0, 2**63 - 1)
    if graph == "sf" and degree < 1:
        raise UserError(f"{base}: scale-free graphs need degree >= 1 (edges per new node), got {degree:g}")
    return dict(graph=graph, d=d, degree=degree, noise=noise, graph_seed=graph_seed)


def _load_synthetic(base: str, opts: dict, n: int | None, seed: int) -> Dataset:
    p = _synthetic_params(base, opts)
    g_rng = np.random.default_rng(p["graph_seed"])
    b = random_dag(p["d"], int(round(p["degree"] * p["d"])), p["graph"], g_rng)
    w = random_weights(b, g_rng)
    n = DEFAULT_N_SYNTHETIC if n is None else n
    x = simulate_linear_sem(w, n, p["noise"], np.random.default_rng(seed))
    x.setflags(write=False)
    label = f"{p['graph'].upper()}-{p['degree']:g}"
    spec = (f"synthetic:graph={p['graph']},d={p['d']},degree={p['degree']:g},noise={p['noise']},"
            f"graph_seed={p['graph_seed']}")
    notes = (f"linear SEM X = XW + noise ({p['noise']}, scale 1), weights uniform on ±[0.5, 2]; "
             f"{n:,} rows (seed {seed})",
             "variances grow along the causal order (varsortability); standardise to remove that cue")
    names = tuple(f"X{i + 1}" for i in range(p["d"]))
    return Dataset(name=spec, variables=names, data=x, states=(None,) * p["d"], truth=b,
                   truth_name=f"{label} DAG ({int(b.sum())} edges, graph_seed={p['graph_seed']})",
                   source="synthetic, NOTEARS conventions (Zheng et al., NeurIPS 2018)", licence="generated",
                   notes=notes, ranges=_sem_ranges(w, p["noise"], names))


#: (mean, second central moment) of each unit-scale noise (cgdcore.data.sem.simulate_linear_sem)
_NOISE_MOMENTS = {"gauss": (0.0, 1.0), "exp": (1.0, 1.0), "gumbel": (0.5772156649, np.pi ** 2 / 6),
                  "uniform": (0.0, 1.0 / 3.0)}


def _sem_ranges(w: np.ndarray, noise: str, names) -> dict[str, tuple[float, float]]:
    """Public ranges of a synthetic SEM's columns: mean ± 6 s.d. of the SEM itself (X = XW + Z: mean
    (I − W)^{-T}·E[Z], covariance (I − W)^{-T} Var(Z) (I − W)^{-1}), from its public weights and noise, never
    from the rows."""
    m, v = _NOISE_MOMENTS[noise]
    inv = np.linalg.inv(np.eye(w.shape[0]) - w)
    mean = inv.T @ np.full(w.shape[0], m)
    sd = np.sqrt(np.diag(inv.T @ (v * inv)))
    return {n: (float(mu - 6 * s), float(mu + 6 * s)) for n, mu, s in zip(names, mean, sd)}


_LOADERS = {**{name: _load_network for name in NETWORKS}, "sachs-cont": _load_sachs,
            "adult": _load_adult, "synthetic": _load_synthetic}
_ALL_NAMES = tuple(_LOADERS)


def load_dataset(spec: str, n: int | None = None, seed: int = 0) -> Dataset:
    """Load a registered dataset by spec (see module docstring).

    ``n``: rows to sample (networks: default 10,000; synthetic: default 1,000) or to subsample
    without replacement (sachs-cont, adult: default all rows); 2 <= n <= 2,000,000.
    ``seed``: the seed of the rows (sampling or subsampling). Same arguments, same data.
    """
    n = _check_n(n)
    seed = _check_seed(seed)
    base, opts = parse_spec(spec)
    loader = _LOADERS.get(base)
    if loader is None:
        raise UserError(f"unknown dataset {base!r}; choose one of: {', '.join(_ALL_NAMES)}")
    return loader(base, opts, n, seed)


def list_datasets() -> list[DatasetInfo]:
    """Every registered dataset with its size, ground truth, source and spec options."""
    out = []
    for name, (desc, ref) in NETWORKS.items():
        bn = load_network(name)
        if name in _FAITHFULNESS:
            desc += " (deterministic nodes: faithfulness violated)"
        out.append(DatasetInfo(name, "discrete", bn.d, None, f"bnlearn {name}.bif ({bn.n_arcs} arcs)",
                               desc, f"{_BNLEARN}; original: {ref}", _CC_BY_SA, {}))
    out.append(DatasetInfo("sachs-cont", "continuous", 11, _SACHS_OBS_ROWS, "bnlearn sachs.bif (17 arcs)",
                           "Real protein-signalling flow-cytometry data (raw intensities); rows=all adds "
                           "8 interventional conditions (7,466 rows); truth=consensus uses cdt's 18-edge "
                           "consensus graph (not a DAG: it has a directed cycle)",
                           _SACHS_SOURCE, "data: Sachs et al. 2005; file from cdt (MIT licence)",
                           dict(_SACHS_OPTIONS)))
    out.append(DatasetInfo("adult", "mixed", 13, 45_222, None,
                           "UCI census income: 4 numeric and 9 categorical columns incl. sex, race and "
                           "income; rows with missing values dropped; no ground truth",
                           _ADULT_SOURCE, "CC BY 4.0", {}))
    out.append(DatasetInfo("synthetic", "continuous", int(_SYNTH_OPTIONS["d"]), None,
                           "the generated DAG",
                           "Linear SEM on a random ER or scale-free DAG (NOTEARS conventions); the graph "
                           "and weights depend on graph_seed, the rows on seed",
                           "synthetic, NOTEARS conventions (Zheng et al., NeurIPS 2018)", "generated",
                           dict(_SYNTH_OPTIONS)))
    return out
