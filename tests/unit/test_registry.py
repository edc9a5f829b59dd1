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
    # the paper's threshold, and Gauss-PC's δ: the paper's 1e-3 is above 1/n beyond 1,000 rows (PAPER_DELTA)
    assert ALGO_DEFAULTS["priv-pc"] == {"alpha": 0.10, "delta": 1e-6}


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


# ------------------------------------------------------------------ a new algorithm = one policy + one spec
# The whole of a toy private algorithm, "marginal-pc": PC's order 0 only (marginal independence), every pair's test
# released once with Laplace noise at ε / C(d, 2), on the shared proven Kendall statistic and decision scale.
import math  # noqa: E402

from cgdcore.algorithms import AlgorithmSpec, register  # noqa: E402
from cgdcore.central.policies import PrivatePolicy  # noqa: E402
from cgdcore.privacy.mechanisms import LaplaceMechanism  # noqa: E402


class MarginalPolicy(PrivatePolicy):
    stage = "laplace"

    def __init__(self, setup):
        super().__init__(setup.test, setup.ledger_for(None), setup.rng, setup.scale, setup.sampler)
        eps = self.ledger.largest_uniform(math.comb(setup.data.d, 2), setup.total)
        self.mech = LaplaceMechanism(self.sensitivity, eps, self.rng, self.ledger, sampler=self.sampler,
                                     bound=setup.scale.bound, group="order 0")
        self.line = setup.scale.line("laplace", self.mech.noise.scale)

    def begin_order(self, order, adjacency):
        super().begin_order(order, adjacency)
        if order > 0:
            self._stop("marginal-pc tests marginal independence only")

    def decide(self, x, y, S, order):
        if not self.mech.affordable():
            return self._budget_stop(self.mech.cost)
        r = self.test(x, y, S)
        v = self.mech.release(self.scale.value(r), order=order, what=f"test {x}–{y}")
        return self._noisy_decision(r, v, self.line, self.mech.cost, self.stage)


def build_marginal(setup):
    policy = MarginalPolicy(setup)
    return policy, policy.ledger


MARGINAL = AlgorithmSpec("marginal-pc", "Marginal-PC", "private-pc", "total", "order 0 only, Laplace on each pair",
                         "a toy", alpha=0.05, delta=1e-6, ci_tests=("kendall",),
                         params=("statistic", "composition", "scale", "sampler"),
                         build="test_registry:build_marginal")


@pytest.fixture
def marginal_registered():
    register(MARGINAL)
    yield
    REGISTRY.pop("marginal-pc")


def test_a_new_private_algorithm_is_one_policy_and_one_spec(marginal_registered, capsys):
    ds = load_dataset("asia", n=20_000, seed=0)
    r = discover(ds, algo="marginal-pc", epsilon=2.0, seed=0, options={"scale": "z"})
    pv = r.privacy
    assert pv.guarantee is True and pv.used_epsilon <= 2.0 + 1e-9
    assert r.result.tests_per_order[0] == 28 and sum(r.result.tests_per_order[1:]) == 0
    assert r.metrics["skeleton_recall"] > 0.5  # it learns something: the marginally dependent pairs stay
    with pytest.raises(UserError, match="marginal-pc does not take it"):
        discover(ds, algo="marginal-pc", epsilon=2.0, options={"tweak": 0.1})
    assert main(["discover", "--dataset", "asia", "--n", "20000", "--algo", "marginal-pc", "--epsilon", "2",
                 "--json"]) == 0
    assert '"algorithm": "marginal-pc"' in capsys.readouterr().out
    assert parse_algo("marginal-pc[scale=p]").algo == "marginal-pc"


def test_an_excluded_end_of_an_options_interval_is_refused_and_said():
    """CURATE's margin β₁ must stay below 1: at 1 its lower band α(1 − β₁) is 0 and the run crashed."""
    beta = PARAMS["beta1"]
    assert beta.parse("0.95") == 0.95 and beta.parse(0) == 0.0
    for bad in ("1", 1.0, 1.5):
        with pytest.raises(UserError, match="beta1") as e:
            beta.parse(bad, "beta1")
        assert "< 1" in str(e.value)
