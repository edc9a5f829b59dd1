"""Datasets for causal discovery: benchmark networks, real data, synthetic SEMs and user CSVs.

Importing this package loads numpy only; pandas is imported inside the functions that need it.

- :mod:`cgdcore.data.bif`: BIF parser (bnlearn dialect) and vectorised ancestral sampler.
- :mod:`cgdcore.data.sem`: random ER / scale-free DAGs and linear SEM data (NOTEARS conventions).
- :mod:`cgdcore.data.tabular`: CSV loading and validation, discretisation.
- :mod:`cgdcore.data.registry`: ``list_datasets()`` and ``load_dataset(spec, n, seed)``.
"""
from cgdcore.data.bif import BayesNet, exact_joint, exact_marginals, parse_bif, read_bif, sample
from cgdcore.data.dataset import Dataset
from cgdcore.data.registry import DatasetInfo, list_datasets, load_dataset, load_network, parse_spec
from cgdcore.data.sem import random_dag, random_weights, simulate_linear_sem
from cgdcore.data.tabular import check_discrete_usable, dataset_from_frame, discretise, load_csv

__all__ = [
    "BayesNet", "Dataset", "DatasetInfo", "check_discrete_usable", "dataset_from_frame", "discretise",
    "exact_joint", "exact_marginals", "list_datasets", "load_csv", "load_dataset", "load_network",
    "parse_bif", "parse_spec", "random_dag", "random_weights", "read_bif", "sample", "simulate_linear_sem",
]
