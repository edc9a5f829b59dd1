"""The ``python -m cgdcore discover`` command that repeats a run: shown wherever a result is, used by sweeps and
the work ceiling."""
from __future__ import annotations


#: discover() keyword -> its flag, in the order a command names them
_RUN_FLAGS = (("algo", "--algo"), ("ci_test", "--ci-test"), ("alpha", "--alpha"), ("variant", "--variant"),
              ("orientation", "--orientation"), ("max_order", "--max-order"), ("kendall_sided", "--kendall-sided"),
              ("bins", "--bins"), ("ranges", "--ranges"), ("epsilon", "--epsilon"),
              ("round_epsilon", "--round-epsilon"), ("delta", "--delta"), ("seed", "--noise-seed"))
#: local-privacy keys of discover(ldp=...) -> their flags
_LDP_FLAGS = {"mechanism": "--ldp", "epsilon": "--ldp-epsilon", "p_max": "--ldp-pmax", "seed": "--ldp-seed",
              "bins": "--ldp-bins", "debias": "--debias", "calibration": "--calibration", "n_boot": "--bootstrap"}


def command_line(dataset: str, n: int | None, params, *, data_seed: int | None = None) -> str | None:
    """The ``python -m cgdcore discover`` command that makes the same call as ``discover(dataset, **params)`` on the dataset
    spec ``dataset`` (``upload:FILE`` for a user's file) with ``n`` sampled rows; None when an option has no flag
    (reproducible from Python only). Used wherever a result shows how to reproduce it."""
    import shlex

    from ..algorithms import flag_of
    from ..discover import default_orientation

    if dataset.startswith("upload:"):
        parts = ["python -m cgdcore discover", f"--data {shlex.quote(dataset.split(':', 1)[1])}"]
    else:
        parts = ["python -m cgdcore discover", f"--dataset {shlex.quote(dataset)}"]
        parts += [f"--n {n}"] if n else []
        parts += [f"--seed {data_seed}"] if data_seed is not None else []
    for key, flag in _RUN_FLAGS:
        v = params.get(key)
        if key == "kendall_sided" and params.get("ci_test") not in (None, "kendall"):
            continue  # read by Kendall's test only (discover() passes it to no other)
        if v is not None and not (key == "variant" and v == "stable") and not (key == "orientation" and v == (
                default_orientation(params.get("algo") or "pc", params.get("variant") or "stable", params.get("ldp")))):
            parts.append(f"{flag} {shlex.quote(str(v))}")
    opts = {k: v for k, v in dict(params.get("options") or {}).items() if v is not None and not callable(v)}
    if "beta1" in opts or "beta2" in opts:
        if opts.get("beta1") != opts.get("beta2"):
            return None
        parts.append(f"--beta {opts.pop('beta1')}")
        opts.pop("beta2", None)
    for k, v in opts.items():
        flag = flag_of(k)
        if flag is None:
            return None
        parts.append(f"{flag} {shlex.quote(str(v))}")
    for k, v in dict(params.get("ldp") or {}).items():
        if v is None or v is False:
            continue
        if k == "log":
            parts.append("--ldp-log")
        elif k in _LDP_FLAGS:
            parts.append(f"{_LDP_FLAGS[k]} {shlex.quote(str(v))}")
        else:
            return None
    return " ".join(parts)
