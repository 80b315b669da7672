"""evaluate(): the BEE and its RMS beside resubstitution, CV and the expected error rate."""

import numpy as np
import pytest
from scipy import special, stats
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier

from selbayes.error_estimation import (
    ErrorEvaluation,
    GaussianPrior,
    evaluate,
    gaussian_bee_result,
)


def _data(seed=0, n=(25, 30), D=3, labels=("healthy", "tumour")):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0, 1, (n[0], D)), rng.normal(0.8, 1, (n[1], D))])
    y = np.repeat(np.array(labels), n)
    return X, y


def test_lda_matches_direct_computation():
    X, y = _data()
    lda = LinearDiscriminantAnalysis().fit(X, y)
    splitter = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=3)
    ev = evaluate(lda, X, y, cv=splitter)
    assert isinstance(ev, ErrorEvaluation)
    yb = (y == lda.classes_[1]).astype(int)
    ref = gaussian_bee_result(lda.coef_[0], lda.intercept_[0], X, yb, prior="flat")
    assert ev.bee == pytest.approx(ref.estimate, rel=1e-13)
    assert ev.bee_rms == pytest.approx(np.sqrt(ref.mse), rel=1e-12)
    assert ev.resubstitution == pytest.approx(np.mean(lda.predict(X) != y))
    cv_ref = 1 - cross_val_score(LinearDiscriminantAnalysis(), X, y, cv=splitter).mean()
    assert ev.cross_validation == pytest.approx(cv_ref, rel=1e-12)
    assert ev.expected_error == pytest.approx(np.mean(1 - lda.predict_proba(X).max(1)))
    # (5.8): every other estimate's conditional MSE = MSE_BEE + squared distance to the BEE
    for est, rms in [(ev.resubstitution, ev.resubstitution_rms),
                     (ev.cross_validation, ev.cross_validation_rms),
                     (ev.expected_error, ev.expected_error_rms)]:
        assert rms**2 == pytest.approx(ev.bee_rms**2 + (ev.bee - est) ** 2, rel=1e-12)
        assert rms >= ev.bee_rms
    assert (ev.n0, ev.n1) == (25, 30)
    assert "BEE" in str(ev) and set(ev.as_dict()) >= {"bee", "bee_rms", "cross_validation"}


def test_class_order_follows_classes_and_default_cv_is_seeded():
    X, y = _data(labels=("b", "a"))   # classes_ = ['a', 'b']: class 1 is 'b' (the first block)
    lda = LinearDiscriminantAnalysis().fit(X, y)
    ev = evaluate(lda, X, y, random_state=5, class_prob=0.5)
    yb = (y == "b").astype(int)
    ref = gaussian_bee_result(lda.coef_[0], lda.intercept_[0], X, yb, class_prob=0.5)
    assert ev.bee == pytest.approx(ref.estimate, rel=1e-13)
    assert (ev.n0, ev.n1) == (30, 25)
    assert evaluate(lda, X, y, random_state=5).cross_validation == ev.cross_validation


def test_logistic_regression_and_proper_prior():
    X, y = _data(seed=2)
    clf = LogisticRegression().fit(X, y)
    prior = GaussianPrior("general", nu=1.0, m=0.0, kappa=5.0, S=np.eye(3))
    ev = evaluate(clf, X, y, prior=prior, cv=None)
    assert np.isnan(ev.cross_validation) and np.isnan(ev.cross_validation_rms)
    # The reference: the BEE of the same linear rule under the same proper prior, computed
    # directly (deterministic closed form, so only rounding separates the two: rel 1e-13/1e-12
    # as in test_lda_matches_direct_computation).
    yb = (y == clf.classes_[1]).astype(int)
    ref = gaussian_bee_result(clf.coef_[0], clf.intercept_[0], X, yb, prior=prior)
    assert ev.bee == pytest.approx(ref.estimate, rel=1e-13)
    assert ev.bee_rms == pytest.approx(np.sqrt(ref.mse), rel=1e-12)
    assert ev.expected_error == pytest.approx(np.mean(1 - clf.predict_proba(X).max(1)))
    assert ev.resubstitution == pytest.approx(np.mean(clf.predict(X) != y))
    # Power: the prior matters here. The flat-prior BEE and RMS differ from the proper-prior
    # ones by ~0.03 and ~0.004 (kappa = 5 pseudo-cases shrink both class means to 0), 1e9
    # times the tolerance above, so an evaluate() that dropped or replaced the prior fails.
    flat = gaussian_bee_result(clf.coef_[0], clf.intercept_[0], X, yb, prior="flat")
    assert abs(flat.estimate - ref.estimate) > 1e-3
    assert abs(np.sqrt(flat.mse) - np.sqrt(ref.mse)) > 1e-4


def test_nonlinear_classifier_needs_a_linear_rule():
    X, y = _data(seed=3)
    knn = KNeighborsClassifier().fit(X, y)
    with pytest.raises(TypeError, match="linear_rule"):
        evaluate(knn, X, y)
    lda = LinearDiscriminantAnalysis().fit(X, y)
    with pytest.warns(RuntimeWarning, match="disagrees"):
        ev = evaluate(knn, X, y, linear_rule=(lda.coef_, lda.intercept_), cv=None)
    assert np.isfinite(ev.bee)


class _SelectedLDA:
    """Minimal stand-in for a classifier that selects features internally (selection_.indices)."""

    def __init__(self, idx):
        self.idx = np.asarray(idx)

    def fit(self, X, y):
        self.lda_ = LinearDiscriminantAnalysis().fit(X[:, self.idx], y)
        self.classes_ = self.lda_.classes_
        self.coef_, self.intercept_ = self.lda_.coef_, self.lda_.intercept_
        self.selection_ = type("Sel", (), {"indices": self.idx})()
        return self

    def predict(self, X):
        return self.lda_.predict(X[:, self.idx])

    def predict_proba(self, X):
        return self.lda_.predict_proba(X[:, self.idx])


def test_feature_subsets():
    X, y = _data(seed=4, D=5)
    idx = [3, 0]
    clf = _SelectedLDA(idx).fit(X, y)
    yb = (y == clf.classes_[1]).astype(int)
    ref = gaussian_bee_result(clf.coef_[0], clf.intercept_[0], X[:, idx], yb)
    ev = evaluate(clf, X, y, cv=None)                       # found via selection_.indices
    assert ev.bee == pytest.approx(ref.estimate, rel=1e-13)
    ev2 = evaluate(clf, X, y, features=idx, cv=None)
    assert ev2.bee == ev.bee
    full = np.zeros(5)
    full[idx] = clf.coef_[0]
    ev3 = evaluate(clf, X, y, linear_rule=(full, clf.intercept_), features=idx, cv=None)
    assert ev3.bee == pytest.approx(ev.bee, rel=1e-13)
    full[1] = 0.1
    with pytest.raises(ValueError, match="outside features"):
        evaluate(clf, X, y, linear_rule=(full, clf.intercept_), features=idx, cv=None)
    with pytest.raises(ValueError, match="features"):
        evaluate(clf, X, y, linear_rule=(np.ones(3), 0.0), cv=None)
    # a column twice (also as its negative index) was "class 0 posterior is improper"
    for twice in ([3, 3], [3, -2]):
        with pytest.raises(ValueError, match=r"features names column\(s\) \[3\] more than "
                                             r"once"):
            evaluate(clf, X, y, features=twice, cv=None)


def test_int_cv_takes_the_packages_folds():
    """cv=K, cv_repeats=R: the folds of selbayes.evaluation.repeated_stratified_folds (the one
    fold maker), seeded from random_state; a different seed gives different folds."""
    from selbayes.evaluation import repeated_stratified_folds

    X, y = _data(seed=2)
    lda = LinearDiscriminantAnalysis().fit(X, y)
    ev = evaluate(lda, X, y, cv=4, cv_repeats=3, random_state=7)
    seed = int(np.random.default_rng(7).integers(2**31 - 1))
    y_index = np.unique(y, return_inverse=True)[1]
    folds = [s for _, splits in repeated_stratified_folds(y_index, 4, 3, seed) for s in splits]
    assert len(folds) == 12
    for _, test in folds:               # stratified: each class's share in every test fold
        assert abs(np.mean(y[test] == "healthy") - np.mean(y == "healthy")) < 0.15
    ref = 1 - cross_val_score(LinearDiscriminantAnalysis(), X, y, cv=folds).mean()
    assert ev.cross_validation == pytest.approx(ref, rel=1e-12)
    again = evaluate(lda, X, y, cv=4, cv_repeats=3, random_state=7)
    assert again.cross_validation == ev.cross_validation


def test_bad_inputs():
    X, y = _data(seed=5)
    lda = LinearDiscriminantAnalysis().fit(X, y)
    with pytest.raises(ValueError, match="not in classifier.classes_"):
        evaluate(lda, X, np.where(y == "healthy", "other", y))
    with pytest.raises(ValueError, match="rows"):
        evaluate(lda, X, y[:-1])
    with pytest.raises(ValueError, match="cv"):
        evaluate(lda, X, y, cv=1)
    with pytest.raises(ValueError, match="cv_repeats"):
        evaluate(lda, X, y, cv=3, cv_repeats=0)
    with pytest.raises(TypeError, match="linear_rule"):
        evaluate(lda, X, y, linear_rule=5)
    X3 = np.vstack([X, X[:10] + 3])
    y3 = np.concatenate([y, np.repeat("third", 10)])
    lda3 = LinearDiscriminantAnalysis().fit(X3, y3)
    with pytest.raises(ValueError, match="binary"):
        evaluate(lda3, X3, y3)


def test_bee_tracks_true_error_over_prior_draws():
    """Over distributions drawn from the prior, evaluate()'s BEE is unbiased for the true error
    of sklearn's LDA and its RMS matches the realised error (integration check, T = 300)."""
    rng = np.random.default_rng(77)
    D, n, T = 2, 40, 300
    # Table 2 low-information prior shape: S = 0.03 (kappa - D - 1) I
    prior = GaussianPrior("general", nu=2 * D, m=0.0, kappa=3 * D, S=0.03 * (2 * D - 1) * np.eye(D))
    nu, m, kappa, S, _ = prior.resolved(D)
    diffs, mses = [], []
    for _ in range(T):
        th = []
        for shift in (0.0, -0.2):
            Sig = stats.invwishart(df=kappa, scale=S).rvs(random_state=rng).reshape(D, D)
            mu = rng.multivariate_normal(m + shift, Sig / nu)
            th.append((mu, Sig))
        n0 = rng.binomial(n, 0.5)
        X = np.vstack([rng.multivariate_normal(*th[0], size=n0),
                       rng.multivariate_normal(*th[1], size=n - n0)])
        y = np.repeat([0, 1], [n0, n - n0])
        lda = LinearDiscriminantAnalysis().fit(X, y)
        w, b = lda.coef_[0], lda.intercept_[0]
        eps = sum(0.5 * special.ndtr((-1) ** k * (w @ mu + b) / np.sqrt(w @ Sig @ w))
                  for k, (mu, Sig) in enumerate(th))
        p1 = GaussianPrior("general", nu=nu, m=-0.2, kappa=kappa, S=S)
        ev = evaluate(lda, X, y, prior=(prior, p1), class_prob=0.5, cv=None)
        diffs.append(eps - ev.bee)
        mses.append(ev.bee_rms**2)
    d, z = np.array(diffs), np.array(diffs) ** 2 - np.array(mses)
    assert abs(d.mean()) <= 4 * d.std() / np.sqrt(T)
    assert abs(z.mean()) <= 4 * z.std() / np.sqrt(T)


def test_a_notebook_users_inputs_are_named_not_misread():
    """An unfitted classifier is named as such (its missing classes_ read as labels that must
    be 0/1); a DataFrame the classifier was fitted on gives no 'valid feature names' warning
    and the results of the array; y in another order than X's index is warned of."""
    import warnings

    import pandas as pd
    from sklearn.exceptions import NotFittedError

    X, y = _data()
    with pytest.raises(NotFittedError, match="LogisticRegression is not fitted: evaluate "):
        evaluate(LogisticRegression(), X, y)
    frame = pd.DataFrame(X, columns=["g1", "g2", "g3"], index=[f"s{i}" for i in range(55)])
    labels = pd.Series(y, index=frame.index)
    lr = LogisticRegression().fit(frame, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = evaluate(lr, frame, labels, random_state=0)
    want = evaluate(LogisticRegression().fit(X, y), X, y, random_state=0)
    assert got.as_dict() == pytest.approx(want.as_dict())
    with pytest.warns(UserWarning, match="y's index holds the samples of X's index in another "
                                         "order"):
        evaluate(lr, frame, labels.iloc[::-1], random_state=0)


# -------------------------------------------------------------------- bad input is named
@pytest.mark.parametrize("kwargs, exc, match", [
    ({"cv_repeats": True}, ValueError, "cv_repeats must be a positive int"),
    ({"random_state": -1}, ValueError, "random_state must be None, an int >= 0"),
    ({"random_state": True}, ValueError, "random_state must be None, an int >= 0"),
    ({"features": ["a"]}, ValueError, "features must be integer column indices"),
    ({"features": [0.5]}, ValueError, "features must be integer column indices"),
    ({"linear_rule": ([1.0, 1.0, 1.0], "x")}, TypeError,
     "linear_rule: the weights and the bias must be numeric"),
    ({"linear_rule": ([np.nan, 1.0, 1.0], 0.0)}, ValueError,
     "linear_rule: the weights and the bias must be finite"),
])
def test_evaluate_names_bad_settings(kwargs, exc, match):
    X, y = _data()
    clf = LinearDiscriminantAnalysis().fit(X, y)
    with pytest.raises(exc, match=match):
        evaluate(clf, X, y, **kwargs)
