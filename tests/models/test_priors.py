"""The prior classes: one base (from_dict / to_dict / validation), one keyword ``priors=``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from selbayes.models import GaussianPriors, MixturePrior, NaiveBayesPrior, PriorBase


@pytest.mark.parametrize("cls", [GaussianPriors, NaiveBayesPrior, MixturePrior])
def test_round_trip_and_validation_share_one_base(cls):
    assert issubclass(cls, PriorBase)
    prior = cls()
    assert cls.from_dict(prior.to_dict()) == prior
    assert cls.from_dict(None) == prior
    assert cls.from_dict(prior) is prior
    first = next(iter(prior.to_dict()))
    with pytest.raises(ValueError, match="unknown prior setting"):
        cls.from_dict({"no_such_field": 1.0})
    with pytest.raises(ValueError, match=rf"\.{first} must be"):
        cls.from_dict({first: -1.0})
    with pytest.raises(TypeError, match="a dict or None"):
        cls.from_dict([1.0])


def test_old_homes_re_export_the_same_classes():
    from selbayes.models._mixture import MixturePrior as M2
    from selbayes.models._naive_bayes import NaiveBayesPrior as N2
    from selbayes.models._naive_bayes_quadrature import NaiveBayesPrior as N3

    assert M2 is MixturePrior and N2 is NaiveBayesPrior and N3 is NaiveBayesPrior


def test_same_prior_same_field_names():
    # alpha ~ InverseGamma(shape, scale) in both binary models: the naive Bayes names work
    # for the mixture too.
    nb = NaiveBayesPrior(alpha_shape=0.7, alpha_scale=3.0)
    mix = MixturePrior.from_dict({"alpha_shape": 0.7, "alpha_scale": 3.0})
    assert (mix.alpha_shape, mix.alpha_scale) == (nb.alpha_shape, nb.alpha_scale)
    # the same prior has the same field names in both binary models
    shared = {"alpha_shape", "alpha_scale", "f0", "f1"}
    assert shared <= set(mix.to_dict()) and shared <= set(nb.to_dict())
    # the thesis' short names of earlier releases are still accepted
    assert MixturePrior.from_dict({"a": 0.7, "b": 3.0, "a0": 2.0, "b0": 1.0}) == MixturePrior(
        alpha_shape=0.7, alpha_scale=3.0, alpha0_shape=2.0, alpha0_scale=1.0)
    assert {"f0", "f1"} <= set(nb.to_dict()) & set(mix.to_dict())


def _binary():
    from selbayes.datasets import binary_naive_bayes

    d = binary_naive_bayes(None, 20, alpha=30.0, class_counts=(15, 15), random_state=0)
    return d.X, d.y


def test_every_classifier_takes_priors():
    from selbayes import (
        BinaryMixtureClassifier,
        BinaryNaiveBayesClassifier,
        HierarchicalGaussianClassifier,
    )

    for cls in (HierarchicalGaussianClassifier, BinaryNaiveBayesClassifier,
                BinaryMixtureClassifier):
        assert "priors" in cls().get_params()


def test_mixture_prior_keyword_is_deprecated_but_works():
    from selbayes import BinaryMixtureClassifier

    X, y = _binary()
    kw = dict(k=3, draws=20, tune=5, chains=1, random_state=0)
    new = BinaryMixtureClassifier(priors={"b": 2.0}, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        new.fit(X, y)
    old = BinaryMixtureClassifier(prior={"b": 2.0}, **kw)
    with pytest.warns(FutureWarning, match="renamed priors="):
        old.fit(X, y)
    np.testing.assert_array_equal(old.predict_proba(X), new.predict_proba(X))
    assert old._model_id() == new._model_id()
    with pytest.raises(ValueError, match="give the prior once"):
        BinaryMixtureClassifier(prior={"b": 2.0}, priors={"b": 2.0}, **kw).fit(X, y)


def test_effect_prior_fills_in_its_family_and_never_overrides_a_request():
    import pytest

    from selbayes.models import GaussianPriors, effect_prior_of, with_effect_prior

    assert with_effect_prior(None, "t") == GaussianPriors(mu_t_df=2.0)
    assert with_effect_prior({"mu_t_df": 5.0}, "t").mu_t_df == 5.0
    assert with_effect_prior(None, "normal") == GaussianPriors()
    tg = with_effect_prior({"mu_t_df": 3.0}, "two_groups")
    assert (tg.pi0_a, tg.pi0_b, tg.mu_t_df) == (1.0, 1.0, 3.0)
    assert effect_prior_of(tg) == "two_groups" and effect_prior_of({"mu_t_df": 1}) == "t"
    with pytest.raises(ValueError, match="effect_prior='t'"):
        with_effect_prior({"mu_t_df": 2.0}, "normal")
    with pytest.raises(ValueError, match="two_groups"):
        with_effect_prior({"pi0_a": 1.0, "pi0_b": 1.0}, "t")
    with pytest.raises(ValueError, match="effect_prior must be one of"):
        with_effect_prior(None, "laplace")


def test_estimator_default_is_the_t_prior_with_its_df_chosen_and_exact_model_the_papers():
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators import EXACT_MODEL
    from selbayes.models import T_DF_GRID, GaussianPriors

    default = HierarchicalGaussianClassifier()._prior_object()
    assert default.mu_t_df is None and tuple(default.mu_t_df_grid) == T_DF_GRID
    assert HierarchicalGaussianClassifier(effect_prior="t")._prior_object().mu_t_df == 2.0
    assert HierarchicalGaussianClassifier(**EXACT_MODEL)._prior_object() == GaussianPriors()


@pytest.mark.parametrize("setting, match", [
    ({"alpha_x": 1e-5}, r"alpha_x must be in \[0\.01, 1e\+06\]"),
    ({"alpha_x": 1e12}, r"alpha_x must be in \[0\.01, 1e\+06\]"),
    ({"mu_t_df": 0.03}, r"mu_t_df must be >= 0\.1"),
    ({"mu_t_df_grid": (0.03, 1.0)}, r"mu_t_df_grid must be >= 0\.1"),
])
def test_settings_whose_factor_cannot_be_computed_are_refused(setting, match):
    """alpha_x = 1e-5 asked the selection factor's grid for 4 to 435 GB (a MemoryError, or
    the process killed); mu_t_df = 0.03 overflowed in the t prior's quadrature. The ends of
    the range still fit (alpha_x 0.01 and 1e6 in under a second)."""
    from selbayes.adjustment import fstat_log_omit_prob

    with pytest.raises(ValueError, match=match):
        GaussianPriors(**setting)
    for alpha_x in (0.01, 1e6):
        GaussianPriors(alpha_x=alpha_x)
        assert np.isfinite(fstat_log_omit_prob(np.array([-3.0, 0.0, 5.0]), [20, 20], 3.0,
                                               alpha_x)).all()
