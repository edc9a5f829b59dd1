"""Datasets for causal discovery: benchmark networks, real data, synthetic SEMs and user CSVs.

Importing this package loads numpy only; each name below loads its module when first used (a CSV run does not load
the BIF sampler, a network run not the CSV reader), and pandas is imported inside the functions that need it.

- :mod:`cgdcore.data.bif`: BIF parser (bnlearn dialect) and vectorised ancestral sampler.
- :mod:`cgdcore.data.sem`: random ER / scale-free DAGs and linear SEM data (NOTEARS conventions).
- :mod:`cgdcore.data.tabular`: CSV loading and validation, discretisation.
- :mod:`cgdcore.data.registry`: ``list_datasets()`` and ``load_dataset(spec, n, seed)``.
"""

from cgdcore import lazy_attributes
from cgdcore.data.dataset import Dataset

#: public name -> the submodule that defines it
_HOMES = {
    **dict.fromkeys(("BayesNet", "exact_joint", "exact_marginals", "parse_bif", "read_bif", "sample"), "bif"),
    **dict.fromkeys(("DatasetInfo", "list_datasets", "load_dataset", "load_network", "parse_spec"), "registry"),
    **dict.fromkeys(("random_dag", "random_weights", "simulate_linear_sem"), "sem"),
    **dict.fromkeys(("check_discrete_usable", "dataset_from_frame", "discretise", "load_csv"), "tabular"),
}

__all__ = sorted(["Dataset", *_HOMES])


__getattr__ = lazy_attributes(__name__, _HOMES, globals())


def __dir__():
    return sorted({*globals(), *__all__})
