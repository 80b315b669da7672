"""One setting, one meaning: the parameters the public estimators share are declared, validated,
defaulted and documented alike (``sampler``, ``tune``, ``progressbar``, ``random_state``,
``priors``, ...), and the mixture's old spelling of its algorithm (``sampler="pymc_nuts"`` /
``"reference"``) still works for one release with a ``FutureWarning``.

The checks read the estimators' own declarations (``_parameter_constraints``, the constructor
signature, the numpydoc ``Parameters`` section), so a new estimator or a new shared parameter is
covered without editing this file.
"""

import inspect
import re
import warnings

import numpy as np
import pytest

import selbayes.estimators as estimators
from selbayes.estimators import SelectionClassifier
from selbayes.estimators._base import RANDOM_STATE_CONSTRAINT, SAMPLER_CONSTRAINT
from selbayes.estimators._params import _describe, _satisfied
from selbayes.models import MixturePrior, PriorBase

ESTIMATORS = [getattr(estimators, name) for name in estimators.__all__
              if isinstance(getattr(estimators, name), type)
              and issubclass(getattr(estimators, name), SelectionClassifier)
              and getattr(estimators, name) is not SelectionClassifier]

#: Shared names whose constraint or default may differ, and why (said in the docstrings too).
K_REASON = "the Gaussian classifier also chooses k itself by inner cross-validation ('auto')"
DEPRECATED = {"prior"}       # the mixture's old name of priors=, removed next release
#: ``method``: how the posterior is computed. Every model that has it offers "mcmc"; each adds
#: its own deterministic route, with its own default: the naive Bayes quadrature is exact (the
#: default), the Gaussian plug-in fixes the hyperparameters at their mode (opt-in, for large k).
METHOD_REASON = "each model's deterministic alternative to MCMC is its own"
CORRECTION_REASON = ("the Gaussian classifier can also choose the correction itself by inner "
                     "cross-validation ('auto')")


def _signature_defaults(cls) -> dict:
    return {name: p.default for name, p in inspect.signature(cls.__init__).parameters.items()
            if name != "self"}


def _shared_names() -> set:
    """Parameters of at least two estimators."""
    seen: dict = {}
    for cls in ESTIMATORS:
        for name in _signature_defaults(cls):
            seen[name] = seen.get(name, 0) + 1
    return {name for name, count in seen.items() if count >= 2} - DEPRECATED


def _normalised(constraints) -> list:
    """Constraints in words; a prior dataclass reads as "the model's prior", so that priors= of
    each model compares equal."""
    if constraints == "no_validation":
        return ["no_validation"]
    return ["the model's prior" if isinstance(c, type) and issubclass(c, PriorBase)
            else _describe(c) for c in constraints]


def _doc_params(cls) -> dict:
    """``{name: (type line, description)}`` from a numpydoc ``Parameters`` section; a line
    naming several parameters ("draws, tune, chains : int") documents each of them."""
    doc = inspect.cleandoc(cls.__doc__)
    section = doc.split("Parameters\n----------\n", 1)[1]
    section = re.split(r"\n\S[^\n]*\n-{3,}\n", section, maxsplit=1)[0]
    out: dict = {}
    current: list = []
    for line in section.splitlines():
        m = re.match(r"^(\w[\w, ]*?) : (.*)$", line)
        if m:
            current = [n.strip() for n in m.group(1).split(",")]
            for n in current:
                out[n] = [m.group(2).strip(), ""]
        elif line.startswith("    ") and current:
            for n in current:
                out[n][1] += " " + line.strip()
    return {n: (t, d.strip()) for n, (t, d) in out.items()}


def test_the_public_estimators_are_found():
    names = {cls.__name__ for cls in ESTIMATORS}
    assert names == {"HierarchicalGaussianClassifier", "BinaryNaiveBayesClassifier",
                     "BinaryMixtureClassifier"}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_parameter_is_validated(cls):
    """No parameter escapes validation (a missing entry or "no_validation" would let a bad value
    reach the sampler)."""
    constraints = cls._parameter_constraints
    assert set(constraints) == set(_signature_defaults(cls))
    assert [n for n, c in constraints.items() if c == "no_validation"] == []


def test_shared_parameters_have_identical_constraints():
    assert {"sampler", "tune", "progressbar", "random_state", "priors", "draws", "chains",
            "max_predict_draws"} <= _shared_names()
    for name in sorted(_shared_names()):
        having = [cls for cls in ESTIMATORS if name in cls._parameter_constraints]
        described = {cls.__name__: _normalised(cls._parameter_constraints[name])
                     for cls in having}
        if name == "k":         # K_REASON: the base rule, plus "auto" in the Gaussian
            for cls in having:
                ok = [any(_satisfied(c, v) for c in cls._parameter_constraints["k"])
                      for v in (1, 7, "all", None, 0, "most")]
                assert ok == [True] * 4 + [False] * 2, cls
            continue
        if name == "correct_selection":     # CORRECTION_REASON: a bool, plus "auto" in one
            for cls in having:
                ok = [any(_satisfied(c, v) for c in cls._parameter_constraints[name])
                      for v in (True, False, "yes")]
                assert ok == [True, True, False], cls
                auto = any(_satisfied(c, "auto") for c in cls._parameter_constraints[name])
                assert auto is (cls.__name__ == "HierarchicalGaussianClassifier"), cls
            continue
        if name == "method":    # METHOD_REASON: "mcmc" everywhere, plus the model's own route
            for cls in having:
                assert any(_satisfied(c, "mcmc") for c in cls._parameter_constraints[name])
            continue
        assert len({tuple(d) for d in described.values()}) == 1, (name, described)
    # the shared definitions are the ones in use (not copies that could drift)
    for cls in ESTIMATORS:
        assert cls._parameter_constraints["random_state"] is RANDOM_STATE_CONSTRAINT
        assert cls._parameter_constraints["sampler"] is SAMPLER_CONSTRAINT


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_priors_constraint_names_the_models_own_prior(cls):
    prior = cls()._prior_object()
    assert cls._parameter_constraints["priors"] == [type(prior), dict, None]


def test_shared_parameters_have_identical_defaults():
    defaults = {cls.__name__: _signature_defaults(cls) for cls in ESTIMATORS}
    for name in sorted(_shared_names() - {"k", "method"}):      # K_REASON, METHOD_REASON
        values = {cls: d[name] for cls, d in defaults.items() if name in d}
        assert len({repr(v) for v in values.values()}) == 1, (name, values)
    assert defaults["BinaryMixtureClassifier"]["tune"] == 1000
    assert defaults["BinaryMixtureClassifier"]["progressbar"] is True


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_docstrings_document_every_parameter_with_its_default(cls):
    docs = _doc_params(cls)
    defaults = _signature_defaults(cls)
    assert set(defaults) - DEPRECATED <= set(docs), set(defaults) - set(docs)
    for name, (type_line, _) in docs.items():
        m = re.search(r"default (.+)$", type_line)
        if m and "," not in m.group(1):            # "draws, tune : int, default 1000, 1000"
            text = m.group(1).strip().strip('"')
            assert text == str(defaults[name]).strip('"'), (name, type_line, defaults[name])


def test_docstrings_give_shared_settings_one_meaning():
    docs = {cls.__name__: _doc_params(cls) for cls in ESTIMATORS}
    for name, d in docs.items():
        assert d["sampler"][1].startswith("NUTS implementation"), (name, d["sampler"])
        assert set(re.findall(r'"(\w+)"', d["sampler"][0])) == {
            "auto", "nutpie", "pymc", "numpyro", "blackjax"}, (name, d["sampler"])
        assert d["random_state"][0].startswith("int"), (name, d["random_state"])
        assert d["progressbar"][0] == "bool, default True", (name, d["progressbar"])
        assert d["tune"][0].startswith("int"), (name, d["tune"])
        prior_class = type(getattr(estimators, name)()._prior_object()).__name__
        assert d["priors"][0].startswith(f"{prior_class} or dict"), (name, d["priors"])


# ------------------------------------------------------------------ the same errors everywhere
_X = np.tile(np.eye(2, dtype=np.int64), (6, 3))        # 12 x 6 binary; validation comes first
_Y = np.tile([0, 1], 6)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_unknown_prior_setting_has_one_message(cls):
    with pytest.raises(ValueError, match=r"^unknown prior setting\(s\) \['nonsense'\]; known: "):
        cls(priors={"nonsense": 1.0}).fit(_X, _Y)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_wrong_prior_type_has_one_message(cls):
    wrong = 5 if cls is not estimators.BinaryNaiveBayesClassifier else MixturePrior()
    own = type(cls()._prior_object()).__name__
    with pytest.raises(ValueError, match=rf"^priors must be a {own}, a dict or None; got "):
        cls(priors=wrong).fit(_X, _Y)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("seed", [-1, 1.5, "0"])
def test_bad_random_state_has_one_message(cls, seed):
    with pytest.raises(ValueError, match=r"^random_state must be an integer >= 0 or None; got "):
        cls(random_state=seed).fit(_X, _Y)


def test_generator_seed_gaussian_refused_others_deprecated():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="^random_state must be an integer >= 0 or None"):
        estimators.HierarchicalGaussianClassifier(random_state=rng).fit(_X, _Y)
    for cls in (estimators.BinaryNaiveBayesClassifier, estimators.BinaryMixtureClassifier):
        with pytest.warns(FutureWarning, match=r"random_state=<Generator>\) is deprecated"):
            cls(random_state=rng)._validate_params()
    nb = estimators.BinaryNaiveBayesClassifier(k=2, random_state=np.random.SeedSequence(1))
    with pytest.warns(FutureWarning, match="SeedSequence"):
        nb.fit(_X, _Y)
    assert nb.predict_proba(_X).shape == (12, 2)


@pytest.mark.parametrize("cls", [estimators.HierarchicalGaussianClassifier,
                                 estimators.BinaryNaiveBayesClassifier],
                         ids=lambda c: c.__name__)
def test_nuts_estimators_accept_every_sampler_name(cls):
    for name in ("auto", "nutpie", "pymc", "numpyro", "blackjax"):
        cls(sampler=name)._validate_params()


# ------------------------------------------------------------------ the mixture's algorithm
Mixture = estimators.BinaryMixtureClassifier


@pytest.mark.parametrize("old, new", [("pymc_nuts", "nuts"), ("reference", "reference")])
def test_mixture_old_sampler_spelling_warns_and_selects_the_algorithm(old, new):
    clf = Mixture(sampler=old)
    with pytest.warns(FutureWarning, match=rf"sampler='{old}'\) is renamed algorithm='{new}'"):
        clf._validate_params()
    assert clf._algorithm() == new
    assert clf._model_id() == Mixture(algorithm=new)._model_id()


def test_mixture_sampler_means_the_nuts_implementation():
    for name in ("auto", "pymc"):          # "pymc" was also the old default algorithm: no warning
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            Mixture(sampler=name)._validate_params()
        assert Mixture(sampler=name)._algorithm() == "slice"
    with pytest.raises(ValueError, match="sampler must be 'auto' or 'pymc'; got 'nutpie'"):
        Mixture(sampler="nutpie").fit(_X, _Y)
    with pytest.raises(ValueError, match=r"^sampler must be one of"):
        Mixture(sampler="gibbs").fit(_X, _Y)
    with pytest.raises(ValueError, match=r"^algorithm must be one of"):
        Mixture(algorithm="pymc_nuts").fit(_X, _Y)
    with pytest.raises(ValueError, match="give the algorithm once"):
        Mixture(sampler="reference", algorithm="nuts").fit(_X, _Y)


def test_mixture_old_spelling_gives_the_same_draws():
    """The deprecated spelling runs the same algorithm with the same seed: identical results
    (the reference sampler: NumPy only, no compilation)."""
    from selbayes.datasets import binary_mixture

    d = binary_mixture(None, 40, class_counts=np.array([15, 15]), random_state=3)
    kw = dict(k=4, draws=30, tune=10, chains=1, random_state=5, progressbar=False)
    new = Mixture(algorithm="reference", **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        new.fit(d.X, d.y)
    old = Mixture(sampler="reference", **kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old.fit(d.X, d.y)
    assert any(issubclass(w.category, FutureWarning) and "renamed algorithm=" in str(w.message)
               for w in caught)
    assert new.sampler_used_ is None and old.sampler_used_ is None
    np.testing.assert_array_equal(old.idata_.posterior["alpha"].values,
                                  new.idata_.posterior["alpha"].values)
    np.testing.assert_array_equal(old.predict_proba(d.X), new.predict_proba(d.X))
    assert old._model_id() == new._model_id()


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_k_besides_a_threshold_warns_that_it_is_unused(cls):
    """The threshold overrides k (each docstring says so): a k other than the default given
    with it is not used, and the warning says so before any work (the fit then stops at the
    missing y). With k at its default, or no threshold, nothing is said."""
    X = np.zeros((6, 4))
    k = 3 if _signature_defaults(cls)["k"] != 3 else 2
    with pytest.warns(UserWarning, match=rf"{cls.__name__}\(k={k}, threshold=0.5\): the "
                      "threshold overrides k, so k is not used"), pytest.raises(ValueError):
        cls(k=k, threshold=0.5).fit(X, None)
    default = _signature_defaults(cls)["k"]
    same = np.str_(default) if isinstance(default, str) else np.int64(default)
    for quiet in (cls(threshold=0.5), cls(k=k), cls(k=same, threshold=0.5)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            with pytest.raises(ValueError, match="requires y"):
                quiet.fit(X, None)
