"""The held-out label check (selbayes/evaluation/_label_check.py): its false-alarm rate under
calibration is at most alpha (simulation from calibrated predictions), a swapped label that
a confident predictor contradicts is named, bad input is refused; and the Gaussian fit runs
it on its inner cross-validation (swapped labels of a sparse strong design are named, the
probabilities are the inner folds' written out here)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from selbayes import HierarchicalGaussianClassifier
from selbayes.estimators import LABEL_NOISE_SHARES
from selbayes.evaluation import SuspectLabelWarning
from selbayes.evaluation._label_check import held_out_label_check

from ..estimators._data import sparse_strong


def _calibrated(rng, n, G, concentration):
    """n cases' predictions p ~ Dirichlet(concentration) and labels drawn from them: a
    calibrated predictor by construction."""
    p = rng.dirichlet(np.full(G, concentration), size=n)
    y = (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    return np.log(p), np.minimum(y, G - 1)


def _tight(rng, n, G, a):
    """n cases whose prediction gives a to each of G - 1 classes and the rest to one (which
    class is drawn at random), labels drawn from the predictions: calibrated, and the bound
    P(p_own <= a) <= (G - 1) a holds with equality."""
    p = np.full((n, G), a)
    p[np.arange(n), rng.integers(G, size=n)] = 1 - (G - 1) * a
    y = (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    return np.log(p), np.minimum(y, G - 1)


@pytest.mark.slow        # hundreds of simulated fits (4 s each): a level check, make slow
@pytest.mark.parametrize("G", [2, 4])
def test_a_calibrated_predictor_raises_a_false_alarm_in_at_most_alpha_of_fits(G):
    """Reference: the bound P(p_own <= a) <= (G - 1) a under calibration, with Bonferroni over
    n cases. Simulated fits of 60 cases from calibrated predictors:
    - sharp predictions (Dirichlet 0.2): the share of fits with a flag is at most 0.05
      (3 binomial SE allowed);
    - the bound attained (every case's other classes at a): with (G - 1) a just below
      0.05 / n a case is flagged exactly when its label is one of the small classes, so the
      share of fits with a flag is 1 - (1 - (G - 1) a)^n (about 0.045); just above the bar,
      no fit is flagged. A missing (G - 1) factor or a missing division by n fails one of
      the two."""
    rng = np.random.default_rng(G)
    fits, n, alpha = 2000, 60, 0.05
    se = np.sqrt(alpha * (1 - alpha) / fits)

    def share_flagged(draw):
        return np.mean([held_out_label_check(*draw(), warn=False)["suspect_label"].any()
                        for _ in range(fits)])

    assert share_flagged(lambda: _calibrated(rng, n, G, 0.2)) <= alpha + 3 * se
    below = 0.9 * alpha / n / (G - 1)
    expected = 1 - (1 - (G - 1) * below) ** n
    assert abs(share_flagged(lambda: _tight(rng, n, G, below)) - expected) <= 3 * se
    assert share_flagged(lambda: _tight(rng, n, G, 1.1 * alpha / n / (G - 1))) == 0.0


def test_a_label_the_predictor_contradicts_is_named_with_its_sample_id():
    """Reference by construction: 40 cases predicted with probability 0.95 for their own
    class, one whose label says the class given 1e-6."""
    lp = np.log(np.tile([0.95, 0.05], (40, 1)))
    y = np.zeros(40, dtype=int)
    lp[7] = np.log([1 - 1e-6, 1e-6])
    y[7] = 1
    names = [f"patient_{i}" for i in range(40)]
    with pytest.warns(SuspectLabelWarning,
                      match=r"1 of 40 training cases.*patient_7 \(p = 1\.0e-06\)"):
        t = held_out_label_check(lp, y, case_names=names, source="a test")
    assert t["suspect_label"].tolist() == [i == 7 for i in range(40)]
    np.testing.assert_allclose(t["held_out_proba"].iloc[:3], 0.95)
    assert t["sample"].iloc[7] == "patient_7"
    # 0.05 is not implausible for 40 cases (the bar is 0.05 / 40): no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", SuspectLabelWarning)
        held_out_label_check(lp[:7], y[:7])


@pytest.mark.parametrize("bad, match", [
    (dict(log_proba=np.zeros((3, 1))), "shape"),
    (dict(y_index=np.array([0, 1])), "shape"),
    (dict(y_index=np.array([0, 1, 2])), "class indices 0..1"),
    (dict(y_index=np.array([0.0, 1.0, 0.0])), "class indices"),
    (dict(log_proba=np.array([[0.0, np.nan]] * 3)), "log probabilities"),
    (dict(log_proba=np.array([[0.5, -1.0]] * 3)), "log probabilities"),
    (dict(alpha=0.0), "alpha"),
])
def test_bad_input_is_refused_by_name(bad, match):
    args = dict(log_proba=np.log(np.full((3, 2), 0.5)), y_index=np.array([0, 1, 0]))
    args.update(bad)
    with pytest.raises(ValueError, match=match):
        held_out_label_check(args.pop("log_proba"), args.pop("y_index"), **args)


def test_the_gaussian_fit_names_swapped_labels_from_its_inner_folds():
    """Eight strong markers (effect 3.5 SD), 60 cases, two labels exchanged (cases 5 and 40):
    the plug-in fit's check names both, and its held-out probabilities are those of the inner
    cross-validation's chosen candidate without label noise, read from k_choice_ here. The
    same data with the true labels raise no SuspectLabelWarning."""
    X, y = sparse_strong(3, n=60, p=400, markers=8, effect=3.5)
    X = pd.DataFrame(X, index=[f"s{i}" for i in range(60)])
    swapped = y.copy()
    swapped[[5, 40]] = y[[40, 5]]
    kw = dict(k_grid=(2, 5, 20), method="plugin", draws=200, progressbar=False, random_state=0)
    with pytest.warns(SuspectLabelWarning, match=r"2 of 60 training cases.*s(5|40) \(p = .*"
                                                  r"s(5|40) \(p = "):
        clf = HierarchicalGaussianClassifier(**kw).fit(X, swapped)
    table = clf.loo_checks_
    assert sorted(table.index[table["suspect_label"]]) == [5, 40]
    choice = clf.k_choice_
    lp = choice.extra["share_case_log_proba"][choice._chosen_row()][LABEL_NOISE_SHARES.index(0.0)]
    np.testing.assert_allclose(table["held_out_proba"], np.exp(lp[np.arange(60), swapped]))
    assert {"pareto_k", "held_out_proba", "suspect_label", "sample"} <= set(table.columns)

    with warnings.catch_warnings():
        warnings.simplefilter("error", SuspectLabelWarning)
        clean = HierarchicalGaussianClassifier(**kw).fit(X, y)
    assert not clean.loo_checks_["suspect_label"].any()


def test_a_fixed_k_still_checks_labels_and_only_a_fit_without_inner_cv_does_not():
    """A fixed k with the default label_noise="cv" still runs the inner cross-validation
    (for the label-noise share), so the check runs; fixed k and label noise run none: no
    held-out probabilities, no label columns."""
    X, y = sparse_strong(0, n=40, p=100)
    kw = dict(k=5, method="plugin", draws=200, progressbar=False, random_state=0)
    fixed_k = HierarchicalGaussianClassifier(**kw).fit(X, y)
    assert not fixed_k.loo_checks_["suspect_label"].any()
    none = HierarchicalGaussianClassifier(label_noise=0.1, **kw).fit(X, y)
    assert none.k_choice_ is None
    assert none.loo_checks_ is None or "suspect_label" not in none.loo_checks_
