"""The algorithm registry: every option declared once, and every consumer reads the declaration."""
import pytest

from cgdcore import UserError
from cgdcore.algorithms import PARAMS, REGISTRY, check_options, names
from cgdcore.cli import build_parser, main
from cgdcore.data import load_dataset
from cgdcore.discover import ALGO_DEFAULTS, PRIVATE_ALGORITHMS, discover
from cgdcore.experiments.runner import RunConfig, command_for
from cgdcore.experiments.spec import parse_algo


def _discover_flags() -> set[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return {s for a in sub.choices["discover"]._actions for s in a.option_strings}


def test_every_flagged_option_is_a_discover_flag_and_every_option_has_a_user():
    flags = _discover_flags()
    for p in PARAMS.values():
        assert p.flag is None or p.flag in flags, p.key
        assert any(p.key in s.params for s in REGISTRY.values()), f"{p.key} is declared but no algorithm takes it"
    assert set(PRIVATE_ALGORITHMS) == {"laplace-pc", "gauss-pc", "svt-pc", "priv-pc", "em-pc", "curate"}
    assert names(budget="round") == ("svt-pc", "priv-pc", "em-pc")
    assert ALGO_DEFAULTS["priv-pc"] == {"alpha": 0.10, "delta": 1e-3}


@pytest.mark.parametrize("algo,options,needle", [
    ("priv-pc", {"tweak": 0.7}, "between 0 and 0.5"),
    ("priv-pc", {"subsample_ratio": 0.5}, "between 1 and 20"),
    ("priv-pc", {"tweak": "x"}, "between 0 and 0.5"),
    ("svt-pc", {"tweak": 0.1}, "applies to priv-pc"),
    ("pc", {"sampler": "plain"}, "pc does not take it"),
    ("gauss-pc", {"scale": "p"}, "gauss-pc does not take it"),
    ("curate", {"leakage": "loose"}, "one of sound, paper"),
    ("noleaks", {"iterations": 0}, "between 1 and"),
    ("noleaks", {"clip": 0}, "> 0"),
    ("fhe-pc", {"owners": 2.5}, "whole number"),
    ("curate-score", {"bogus": 1}, "unknown option 'bogus'"),
])
def test_options_are_checked_against_their_declarations(algo, options, needle):
    with pytest.raises(UserError, match=needle):
        check_options(algo, options)


def test_valid_options_are_converted_to_their_kind():
    assert check_options("fhe-pc", {"owners": "4", "dp": "once"}) == {"owners": 4, "dp": "once"}
    assert check_options("curate", {"beta1": "0.3"}) == {"beta1": 0.3}


@pytest.mark.parametrize("algo", [a for a in REGISTRY if REGISTRY[a].family == "private-pc"])
def test_every_declared_option_of_a_private_pc_algorithm_is_consumed(algo):
    """Each declared option, given at its default (or first choice), runs: the builder takes what the spec
    declares (an option the builder ignored would be rejected as not applying)."""
    ds = load_dataset("asia", n=3000, seed=0)
    spec = REGISTRY[algo]
    opts = {}
    for k in spec.params:
        p = PARAMS[k]
        if k == "c1":
            continue  # only with the paper statistic, checked below
        opts[k] = p.default if p.default is not None else (p.choices[0] if p.choices else p.low)
    if spec.budget == "zcdp":
        opts["composition"] = "zcdp"
    r = discover(ds, algo=algo, epsilon=5.0, seed=0, options=opts, max_order=1)
    assert r.privacy is not None and r.privacy["guarantee"] is (algo != "em-pc")  # EM-PC: voided, see build
    if "c1" in spec.params:
        r = discover(ds, algo=algo, epsilon=5.0, seed=0, options={"statistic": "paper", "c1": 4.5}, max_order=1)
        assert r.params["c1"] == 4.5


def test_sweep_labels_use_the_declarations_and_rerun_commands_use_their_flags():
    with pytest.raises(UserError, match="between 1 and 20"):
        parse_algo("priv-pc[subsample_ratio=40]")
    spec = parse_algo("priv-pc[tweak=0.05;scale=p]")
    assert dict(spec.options) == {"tweak": 0.05, "scale": "p"}
    cfg = RunConfig("asia", 2000, 0, spec.label, 5.0, "total", 0, 1, "stable", None, None, None)
    cmd = command_for(cfg)
    assert "--tweak 0.05" in cmd and "--scale p" in cmd
    argv = cmd.split()[3:]  # after "python -m cgdcore"
    assert main(argv + ["--json"]) == 0
