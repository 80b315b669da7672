"""LinearStackedClassifier (selbayes/estimators/_linear_stack.py): the Gaussian classifier
stacked with the Bayesian probit regression of all features and, behind a gate, L1 logistic
regression.

Checked against its parts fitted separately (the Gaussian model alone, the probit model on the
same inner folds, the package's stacking weights), on data where each model should win (a few
strong markers; a linear signal spread over many correlated genes), and for save, load and the
command line. The two-model stack's checks ask for ``l1_gate=None``; the L1 model is checked
against scikit-learn's fit of the same recipe, its gate against the weights and scores
written out here. The Gaussian model uses the plug-in posterior, so every fit is deterministic and
fast (one test compares an MCMC fit without checks, as the inner refits are made, with a
checked one).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from selbayes import HierarchicalGaussianClassifier
from selbayes.estimators import LinearStackedClassifier, stacking_weights
from selbayes.estimators._persistence import settings_json
from selbayes.models import fit_linear_probit

from ._command_line import assert_command_line_predicts
from ._data import sparse_strong
from ._feature_names import assert_frame_after_array_fit_warns_once_as


def _base(**kw):
    params = dict(k_grid=(2, 5, 20, 100), method="plugin", draws=200, progressbar=False,
                  random_state=0)
    params.update(kw)
    return HierarchicalGaussianClassifier(**params)


def _spread(seed, n=80, p=400):
    """A linear truth over all 400 genes of a correlated block design (10 blocks, rho 0.3),
    with weights of both signs: more genes carry it than the Gaussian model's grid keeps (at
    most 100 here), and no few of them carry it alone."""
    rng = np.random.default_rng(seed)
    shared = np.repeat(rng.normal(size=(n, 10)), p // 10, axis=1)
    X = np.sqrt(0.3) * shared + np.sqrt(0.7) * rng.normal(size=(n, p))
    w = rng.normal(size=p) * 6.0 / np.sqrt(p)
    y = (rng.random(n) < 1 / (1 + np.exp(-X @ w))).astype(int)
    return X, y


@pytest.fixture(scope="module")
def sparse():
    return sparse_strong(1, n=40, p=300, markers=3, effect=1.2)


@pytest.fixture(scope="module")
def stacked(sparse):
    return LinearStackedClassifier(_base(), inner_predictive="plugin", l1_gate=None).fit(
        *sparse)


# The tests below that check the weights against the plug-in inner scores written out here
# ask for inner_predictive="plugin"; refitting on the inner folds has its own test.


def _inner_losses(gaussian, X, y):
    """The inner test cases' -log p(true class) of a fitted Gaussian classifier's chosen
    candidate (with its chosen label-noise share) and of the probit model of all genes refitted
    on the same inner folds: (gauss, lin), each (n,). Written out here, not read from the
    stack."""
    from selbayes.estimators import LABEL_NOISE_SHARES

    choice = gaussian.k_choice_
    row = choice._chosen_row()
    c = choice.extra["label_noise_c"]
    gauss = choice.extra["share_case_losses"][row][LABEL_NOISE_SHARES.index(c)]
    lin = np.zeros(len(y))
    for tr, te in choice.extra["folds"]:
        lp = fit_linear_probit(X[tr], y[tr]).predict_log_proba(X[te])
        lin[te] = -lp[np.arange(te.size), y[te]]
    return gauss, lin


def test_it_is_its_parts_weighted_by_the_inner_cases(stacked, sparse):
    X, y = sparse
    alone = clone(_base()).fit(X, y)
    np.testing.assert_array_equal(stacked.estimator_.predict_proba(X), alone.predict_proba(X))
    gauss, lin = _inner_losses(alone, X, y)
    w = stacking_weights(-np.vstack([gauss, lin]))
    np.testing.assert_allclose(stacked.weights_, w)
    assert stacked.inner_scores_["gaussian"] == pytest.approx(gauss.mean())
    assert stacked.inner_scores_["linear"] == pytest.approx(lin.mean())
    mixture = -np.log(w[0] * np.exp(-gauss) + w[1] * np.exp(-lin))
    assert stacked.inner_scores_["stack"] == pytest.approx(mixture.mean())
    assert stacked.inner_refits_ is None            # the plug-in by choice: nothing refitted
    expected = (w[0] * alone.predict_proba(X)
                + w[1] * np.exp(fit_linear_probit(X, y).predict_log_proba(X)))
    np.testing.assert_allclose(stacked.predict_proba(X), expected, rtol=1e-10)
    np.testing.assert_array_equal(stacked.predict(X), stacked.classes_[expected.argmax(1)])


def test_the_weight_goes_where_the_model_fits():
    """A few strong markers: the Gaussian model keeps most of the weight (the probit model of
    all genes is far worse there). A linear signal spread over all genes: the probit model
    gets a share. Where the optimum of the mixture's mean log score lies follows from its
    derivative at the ends (the reference, from the inner losses written out here): the
    probit model's weight is positive exactly when mean(p_lin / p_gauss) > 1 over the inner
    cases, and below 1 exactly when mean(p_gauss / p_lin) > 1 (the two models' losses paired
    case by case: paired wrongly, the optimum here was inside the simplex)."""
    X, y = sparse_strong(2, n=60, p=400, markers=4, effect=2.0)
    few = LinearStackedClassifier(_base(), inner_predictive="plugin", l1_gate=None).fit(X, y)
    gauss, lin = _inner_losses(few.estimator_, X, y)
    if np.exp(gauss - lin).mean() <= 1:                          # the optimum at the end
        assert few.weights_[1] < 1e-6, few.weights_
    else:
        assert 1e-6 < few.weights_[1] < 1 - 1e-6, few.weights_
    assert few.weights_[0] > 0.8, few.weights_                   # the claim: "most of it"
    X, y = _spread(3)
    spread = LinearStackedClassifier(_base(), inner_predictive="plugin",
                                     l1_gate=None).fit(X, y)
    gauss, lin = _inner_losses(spread.estimator_, X, y)
    ratio = np.exp(gauss - lin)                                  # p_lin / p_gauss per case
    assert ratio.mean() > 1                                      # the probit model gets weight
    assert spread.weights_[1] > 1e-6, spread.weights_
    if (1 / ratio).mean() > 1:
        assert spread.weights_[1] < 1 - 1e-6, spread.weights_
    else:                                                        # the probit model alone
        assert spread.weights_[1] == 1.0, spread.weights_
    assert spread.inner_scores_["stack"] <= min(spread.inner_scores_["gaussian"],
                                                spread.inner_scores_["linear"]) + 1e-9


def test_a_matrix_of_another_width_is_refused_in_the_stacks_name(stacked, sparse):
    X, _ = sparse
    with pytest.raises(ValueError, match=f"X has {X.shape[1] - 1} features, but "
                                         f"LinearStackedClassifier is expecting {X.shape[1]}"):
        stacked.predict_proba(X[:3, 1:])

def test_names_and_labels_pass_through(sparse):
    X, y = sparse
    frame = pd.DataFrame(X, columns=[f"g{i}" for i in range(X.shape[1])])
    labels = np.where(y == 1, "tumour", "normal")
    clf = LinearStackedClassifier(_base(), inner_predictive="plugin").fit(frame, labels)
    assert clf.feature_names_in_[0] == "g0" and clf.n_features_in_ == X.shape[1]
    assert set(clf.predict(frame)) <= {"normal", "tumour"}
    assert clf.selected_features_.tolist() == clf.estimator_.selected_features_.tolist()
    assert clf.evaluate(frame, labels)["n"] == len(y)
    # refitted on an array of other features: no stale names (the errors' advice
    # X[clf.feature_names_in_] then picked the old genes)
    clf.fit(X[:, :-20], y)
    assert not hasattr(clf, "feature_names_in_") and clf.n_features_in_ == X.shape[1] - 20
    import selbayes

    assert selbayes.LinearStackedClassifier is LinearStackedClassifier     # the default


@pytest.mark.parametrize("estimator, error, match", [
    (HierarchicalGaussianClassifier(k=10), ValueError, "k='auto'"),
    (LogisticRegression(), TypeError, "HierarchicalGaussianClassifier"),
])
def test_refuses_what_it_cannot_stack(sparse, estimator, error, match):
    with pytest.raises(error, match=match):
        LinearStackedClassifier(estimator).fit(*sparse)



def test_data_the_inner_folds_cannot_split_get_the_stacks_advice():
    """The Gaussian model alone would say "give k as a value", which the stack refuses; the
    stack says what works (the Gaussian model with k given), for too few cases and for one
    feature; a class of one case keeps the general message."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 30))
    with pytest.raises(ValueError, match=r"class counts are \{'a': 2, 'b': 3\}.*with k given"):
        LinearStackedClassifier(_base()).fit(X, np.array(["a", "a", "b", "b", "b"]))
    HierarchicalGaussianClassifier(k=5, method="plugin").fit(X, ["a", "a", "b", "b", "b"])
    # a class of one case is fitted beside two classes of two cases or more, not beside one
    with pytest.raises(ValueError, match=r"at least 2 classes need 2 cases or more \(1 have"):
        LinearStackedClassifier(_base()).fit(X[:4], np.array(["a", "b", "b", "b"]))
    y = np.repeat([0, 1], 10)
    with pytest.raises(ValueError, match=r"X has n_features = 1.*k=\"all\""):
        LinearStackedClassifier(_base()).fit(rng.normal(size=(20, 1)), y)

def _three_classes(seed, n=45, p=200):
    """Three classes, the class means apart on 5 genes."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n // 3)
    X = rng.normal(size=(n, p))
    X[:, :5] += 1.5 * (y[:, None] == np.array([0, 1, 2, 0, 1])) - 0.5
    return X, y


@pytest.fixture(scope="module")
def three():
    X, y = _three_classes(4)
    return X, y, LinearStackedClassifier(_base(k_grid=(5, 20)), inner_predictive="plugin",
                                         l1_gate=None).fit(X, y)


def test_more_classes_stack_the_nested_dichotomies(three):
    """Three classes: the probit model is the nested dichotomies, refitted on the same inner
    folds here, and the stack is its parts weighted as stacking_weights weights them."""
    from selbayes.models import fit_nested_probit

    X, y, clf = three
    alone = clone(_base(k_grid=(5, 20))).fit(X, y)
    choice = alone.k_choice_
    gauss = choice._chosen_case_losses()
    lin = np.zeros(len(y))
    for tr, te in choice.extra["folds"]:
        lp = fit_nested_probit(X[tr], y[tr]).predict_log_proba(X[te])
        lin[te] = -lp[np.arange(te.size), y[te]]
    w = stacking_weights(-np.vstack([gauss, lin]))
    np.testing.assert_allclose(clf.weights_, w)
    expected = (w[0] * alone.predict_proba(X)
                + w[1] * np.exp(fit_nested_probit(X, y).predict_log_proba(X)))
    np.testing.assert_allclose(clf.predict_proba(X), expected, rtol=1e-10)
    assert clf.predict_proba(X).shape == (len(y), 3)


def test_more_classes_save_load_round_trip(three, tmp_path):
    X, y, clf = three
    again = LinearStackedClassifier.load(clf.save(tmp_path / "three.nc"))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    assert again.linear_.splits == clf.linear_.splits and again.linear_.trees == clf.linear_.trees


def test_five_classes_draw_the_same_trees_in_every_fit():
    """Five classes have 105 trees; 15 are drawn, from the Gaussian model's random_state, the
    same for the inner folds and the final fit, and again on a refit. (The plug-in inner
    predictions and no L1 gate: neither touches the trees, and the refits of the Gaussian
    model on the inner folds and the L1 fits made this the slowest test.)"""
    rng = np.random.default_rng(5)
    y = np.repeat(np.arange(5), 8)
    X = rng.normal(size=(40, 60)) + 0.8 * (y[:, None] == np.arange(60) % 5)

    def stack():
        return LinearStackedClassifier(_base(k_grid=(5, 20), random_state=3),
                                       inner_predictive="plugin", l1_gate=None)

    a, b = stack().fit(X, y), stack().fit(X, y)
    assert len(a.linear_.trees) == 15 and a.linear_.splits == b.linear_.splits
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_unfitted_predict_says_so(sparse):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        LinearStackedClassifier().predict_proba(sparse[0])


def _settings_as_given(clf) -> str:
    """Every setting of a stack, the wrapped estimator's as ``estimator__name``, as JSON."""
    return settings_json({k: v for k, v in clf.get_params().items() if k != "estimator"},
                         sort_keys=True)


def test_save_load_round_trip_and_the_command_line_reads_it(stacked, sparse, tmp_path):
    path = stacked.save(tmp_path / "linear_stack.nc")
    again = LinearStackedClassifier.load(path)
    X = sparse[0]
    np.testing.assert_array_equal(again.predict_proba(X), stacked.predict_proba(X))
    np.testing.assert_array_equal(again.weights_, stacked.weights_)
    assert again.inner_scores_ == stacked.inner_scores_ and again.k_ == stacked.k_
    # the settings as given, the wrapped estimator's too (its priors were saved resolved, its
    # random_state the stack's): a clone of the loaded stack is the stack that was fitted
    assert _settings_as_given(again) == _settings_as_given(stacked)
    pd.testing.assert_frame_equal(again.estimator_.loo_checks_,        # the checks, saved
                                  stacked.estimator_.loo_checks_, check_exact=False, rtol=1e-14)
    assert_command_line_predicts(path, X[:4], stacked.predict_proba(X[:4]), tmp_path)


def test_the_groups_the_inner_folds_kept_survive_save_and_load(stacked, sparse, tmp_path):
    """``estimator_.groups_`` (the codes the inner folds kept whole) is saved: given groups,
    and the fixture's (None where no near-copies were found)."""
    X, y = sparse
    grouped = LinearStackedClassifier(_base(), inner_predictive="plugin", l1_gate=None).fit(
        X, y, groups=np.arange(y.size) // 2)
    assert grouped.estimator_.groups_ is not None
    for clf, name in ((grouped, "grouped.nc"), (stacked, "plain.nc")):
        again = LinearStackedClassifier.load(clf.save(tmp_path / name))
        if clf.estimator_.groups_ is None:
            assert again.estimator_.groups_ is None
        else:
            np.testing.assert_array_equal(again.estimator_.groups_, clf.estimator_.groups_)


def test_load_refuses_another_estimators_file(sparse, tmp_path):
    path = _base(k=5).fit(*sparse).save(tmp_path / "one.nc")
    with pytest.raises(ValueError, match="does not hold a LinearStackedClassifier"):
        LinearStackedClassifier.load(path)


def _inner_log_proba(gaussian, X, y, fit_probit=fit_linear_probit):
    """Every class's inner log probabilities of a fitted Gaussian classifier's chosen candidate
    and share, and of the probit model refitted on the same inner folds, (2, n, G); the
    Gaussian part checked against its losses as written out in _inner_losses."""
    choice = gaussian.k_choice_
    gauss = choice._chosen_case_log_proba()
    if X.shape[0] == y.size and np.max(y) == 1:
        own_loss, _ = _inner_losses(gaussian, X, y)
        np.testing.assert_allclose(-gauss[np.arange(y.size), y], own_loss, rtol=1e-12)
    lin = np.empty_like(gauss)
    for tr, te in choice.extra["folds"]:
        lin[te] = fit_probit(X[tr], y[tr]).predict_log_proba(X[te])
    return np.stack([gauss, lin])


@pytest.fixture(scope="module")
def log_pooled():
    X, y = _spread(3)
    return X, y, LinearStackedClassifier(_base(), pooling="log", inner_predictive="plugin",
                                         l1_gate=None).fit(X, y)


def test_log_pool_is_its_parts_pooled_with_weights_from_the_inner_cases(log_pooled):
    from selbayes.estimators import log_pool, log_pool_weights

    X, y, clf = log_pooled
    alone = clone(_base()).fit(X, y)
    A = _inner_log_proba(alone, X, y)
    np.testing.assert_allclose(clf.inner_log_proba_, A, rtol=1e-12)
    w = log_pool_weights(A, y)
    np.testing.assert_allclose(clf.weights_, w)
    assert np.all((w >= 0) & (w <= 1)) and w.sum() > 0
    own = np.arange(y.size), y
    assert clf.inner_scores_["stack"] == pytest.approx(-log_pool(A, w)[own].mean())
    # the pool is at least as good on the inner cases as either model alone (w = (1, 0) and
    # (0, 1) are in the box)
    assert clf.inner_scores_["stack"] <= min(clf.inner_scores_["gaussian"],
                                             clf.inner_scores_["linear"]) + 1e-9
    parts = np.log(np.stack([alone.predict_proba(X),
                             np.exp(fit_linear_probit(X, y).predict_log_proba(X))]))
    np.testing.assert_allclose(clf.predict_proba(X), np.exp(log_pool(parts, w)), rtol=1e-10)
    # in log space throughout: the same pool's logs, not the logs of its probabilities
    np.testing.assert_allclose(clf.predict_log_proba(X), log_pool(parts, w), rtol=1e-10)


def test_log_pool_survives_save_and_load(log_pooled, tmp_path):
    X, y, clf = log_pooled
    again = LinearStackedClassifier.load(clf.save(tmp_path / "log_pool.nc"))
    assert again.pooling == "log"
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(again.inner_log_proba_, clf.inner_log_proba_)


def test_a_bad_pooling_is_named(sparse):
    with pytest.raises(ValueError, match="pooling"):
        LinearStackedClassifier(_base(), pooling="geometric").fit(*sparse)


def test_log_pool_of_three_classes_pools_the_nested_dichotomies():
    from selbayes.estimators import log_pool_weights
    from selbayes.models import fit_nested_probit

    X, y = _three_classes(4)
    clf = LinearStackedClassifier(_base(k_grid=(5, 20)), pooling="log",
                                  inner_predictive="plugin", l1_gate=None).fit(X, y)
    A = _inner_log_proba(clone(_base(k_grid=(5, 20))).fit(X, y), X, y,
                         fit_probit=fit_nested_probit)
    np.testing.assert_allclose(clf.weights_, log_pool_weights(A, y))
    proba = clf.predict_proba(X)
    assert proba.shape == (len(y), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)


def test_refit_inner_predictive_refits_the_gaussian_model_on_each_inner_fold(tmp_path):
    """inner_predictive="refit": the Gaussian model's inner log probabilities are those of the
    model refitted at its chosen k and share on each inner training fold (written out here),
    and the setting survives save and load. That they agree with the plug-in predictive of
    the inner cross-validation, a second code path, is
    :func:`test_refit_and_plugin_inner_predictives_agree_within_monte_carlo_error` (make
    slow: 50 refits)."""
    from selbayes.estimators._k_choice import share_label_noise

    X, y = _spread(3)
    clf = LinearStackedClassifier(_base(), inner_predictive="refit").fit(X, y)
    first = clf.estimator_
    c = first.k_choice_.extra["label_noise_c"]
    ref = np.empty((y.size, 2))
    for tr, te in first.k_choice_.extra["folds"]:
        fold = clone(first).set_params(k=int(first.k_),
                                       label_noise=share_label_noise(c, tr.size))
        ref[te] = fold.fit(X[tr], y[tr]).predict_log_proba(X[te])
    np.testing.assert_allclose(clf.inner_log_proba_[0], ref, rtol=1e-12)
    again = LinearStackedClassifier.load(clf.save(tmp_path / "refit.nc"))
    assert again.inner_predictive == "refit"
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    n_folds = len(first.k_choice_.extra["folds"])
    assert clf.inner_refits_ == (n_folds, n_folds) and again.inner_refits_ == clf.inner_refits_


def test_refits_keep_at_most_the_genes_that_vary_in_their_fold():
    """A k chosen on all training cases can be more than an inner fold has genes that vary
    there (found with k = p - 1 on real X: genes constant but for a few cases): each inner
    refit keeps at most its fold's genes with F > 0, as the plug-in inner scores do, instead
    of failing. Five genes vary only in case 0, so the fold that holds case 0 out has 25
    genes that vary; the stack's inner log probabilities are the refits written out here."""
    from selbayes.estimators._k_choice import share_label_noise

    X, y = _spread(3, n=60, p=30)
    X[:, 25:] = 0.0
    X[0, 25:] = 1.0
    clf = LinearStackedClassifier(_base(k_grid=(29,)), inner_predictive="refit").fit(X, y)
    first = clf.estimator_
    assert first.k_ == 29
    c = first.k_choice_.extra["label_noise_c"]
    ref, kept = np.empty((y.size, 2)), []
    for tr, te in first.k_choice_.extra["folds"]:
        k = 25 if 0 in te else 29
        kept.append(k)
        fold = clone(first).set_params(k=k, label_noise=share_label_noise(c, tr.size))
        ref[te] = fold.fit(X[tr], y[tr]).predict_log_proba(X[te])
    assert sorted(kept) == [25, 29, 29, 29, 29]
    np.testing.assert_allclose(clf.inner_log_proba_[0], ref, rtol=1e-12)


def test_mcmc_refits_run_half_the_tuning_and_a_quarter_of_the_draws(monkeypatch):
    """An MCMC fit's inner refits run tune // 2 and draws // 4 per chain (its chains), a
    plug-in fit's its own settings (reports/plasmode/light_refits); the fit passes them on,
    and the refits use them: refitted by hand with those settings they are what the stack
    stores."""
    from selbayes.estimators import _linear_stack as ls
    from selbayes.estimators._k_choice import share_label_noise

    assert ls._refit_sampler(HierarchicalGaussianClassifier()) == {"tune": 500, "draws": 250}
    assert ls._refit_sampler(HierarchicalGaussianClassifier(draws=3, tune=1)) == {
        "tune": 1, "draws": 1}
    assert ls._refit_sampler(HierarchicalGaussianClassifier(method="plugin")) is None
    seen = []
    real = ls._refitted_inner_log_proba

    def spy(first, X, y, folds, sampler=None, **kw):
        seen.append(sampler)
        return real(first, X, y, folds, sampler=sampler, **kw)

    monkeypatch.setattr(ls, "_refitted_inner_log_proba", spy)
    # the plug-in base (fast) with the settings an MCMC base would get replaced by draws=50
    monkeypatch.setattr(ls, "_refit_sampler", lambda first: {"draws": 50})
    X, y = _spread(3)
    clf = LinearStackedClassifier(_base()).fit(X, y)
    assert seen == [{"draws": 50}]                  # the fit passes them on
    first = clf.estimator_
    c = first.k_choice_.extra["label_noise_c"]
    ref = np.empty((y.size, 2))
    for tr, te in first.k_choice_.extra["folds"]:
        fold = clone(first).set_params(k=int(first.k_), draws=50,
                                       label_noise=share_label_noise(c, tr.size))
        ref[te] = fold.fit(X[tr], y[tr]).predict_log_proba(X[te])
    np.testing.assert_allclose(clf.inner_log_proba_[0], ref, rtol=1e-12)
    default = real(first, X, y, first.k_choice_.extra["folds"])     # draws=200: not the same
    assert np.max(np.abs(default - ref)) > 1e-6


def test_per_fold_choice_weighs_each_fold_at_the_other_folds_choice(tmp_path):
    """inner_choice="per_fold" with the plug-in inner predictive: the Gaussian model's inner
    log probabilities are, fold by fold, those of the candidate and share that the other
    folds' cases choose (KChoice._fold_choices, checked by hand in test_inner_cv.py), and the
    weights the package's stacking weights on them and the probit model's; with the chosen
    candidate's ("all_cases") the weights differ here; the setting survives save and load,
    and a bad value is named."""
    X, y = _spread(5)
    base = _base(label_noise="cv", k_grid=(2, 5, 10, 20, 50, 100, 200))
    honest = LinearStackedClassifier(base, inner_predictive="plugin", l1_gate=None,
                                     inner_choice="per_fold").fit(X, y)
    choice = honest.estimator_.k_choice_
    want = np.empty((y.size, 2))
    for (_, te), (row, c) in zip(choice.extra["folds"], choice._fold_choices(), strict=True):
        want[te] = _case_log_proba_at(choice, row, c)[te]
    # on these data one fold's choice differs from the choice on all cases
    assert (choice._chosen_row(), choice.extra["label_noise_c"]) in choice._fold_choices()
    assert len(set(choice._fold_choices())) > 1
    np.testing.assert_allclose(honest.inner_log_proba_[0], want, rtol=1e-12)
    own = honest.inner_log_proba_[:, np.arange(y.size), y]
    np.testing.assert_allclose(honest.weights_, stacking_weights(own), atol=1e-9)
    assert honest.inner_scores_["gaussian"] == pytest.approx(-own[0].mean())
    chosen = choice._chosen_case_log_proba()[np.arange(y.size), y]
    # the chosen candidate's losses are the lowest of the curve on these cases; the per-fold
    # choices' mix could in principle score lower, on these data it scores higher
    assert -own[0].mean() > -chosen.mean()
    plain = stacking_weights(np.stack([chosen, own[1]]))
    assert np.max(np.abs(honest.weights_ - plain)) > 1e-3
    again = LinearStackedClassifier.load(honest.save(tmp_path / "per_fold.nc"))
    assert again.inner_choice == "per_fold"
    np.testing.assert_array_equal(again.predict_proba(X), honest.predict_proba(X))
    with pytest.raises(ValueError, match="inner_choice"):
        LinearStackedClassifier(base, inner_choice="nested").fit(X, y)


def _case_log_proba_at(choice, row, c):
    """The inner cases' log probabilities (n, G) at curve row ``row`` and share ``c``,
    read from the choice's arrays by index."""
    from selbayes.estimators._k_choice import LABEL_NOISE_SHARES

    return np.asarray(choice.extra["share_case_log_proba"][row][LABEL_NOISE_SHARES.index(c)])


def test_per_fold_choice_refits_each_fold_at_its_own_k_and_share(monkeypatch):
    """inner_choice="per_fold" with refits: each inner fold is refitted at the k and share
    its fold's choice names (here made to differ between folds), written out by hand."""
    from selbayes.estimators._k_choice import KChoice, share_label_noise

    X, y = _spread(3)
    base = _base(label_noise="cv")
    rows = [(0, 1.0), (2, 0.0), (3, 4.0), (1, 0.25), (2, 1.0)]
    monkeypatch.setattr(KChoice, "_fold_choices", lambda self: rows)
    clf = LinearStackedClassifier(base, inner_choice="per_fold", l1_gate=None).fit(X, y)
    first = clf.estimator_
    ks = [g[0] for g in first.k_choice_.grid]
    ref = np.empty((y.size, 2))
    for (tr, te), (row, c) in zip(first.k_choice_.extra["folds"], rows, strict=True):
        fold = clone(first).set_params(k=int(ks[row]), label_noise=share_label_noise(c, tr.size))
        ref[te] = fold.fit(X[tr], y[tr]).predict_log_proba(X[te])
    np.testing.assert_allclose(clf.inner_log_proba_[0], ref, rtol=1e-12)


@pytest.mark.slow
def test_refit_and_plugin_inner_predictives_agree_within_monte_carlo_error():
    """With the plug-in method the Gaussian model's inner log probabilities are the predictive
    the inner cross-validation scored; refitted on each inner fold (the default, "refit") they
    are the same predictive by a second code path: equal up to the tau_x draws of the two
    (200 each), a difference bounded by the Monte Carlo sd of one fit measured over refits
    with other seeds. (The fast test that the refits are what the stack stores:
    :func:`test_refit_inner_predictive_refits_the_gaussian_model_on_each_inner_fold`.)"""
    from scipy.stats import chi2

    from selbayes.estimators._k_choice import share_label_noise

    X, y = _spread(3)
    clf = LinearStackedClassifier(_base(), inner_predictive="refit").fit(X, y)
    first = clf.estimator_
    c = first.k_choice_.extra["label_noise_c"]
    ref = clf.inner_log_proba_[0]
    n_seeds = 10
    by_seed = np.empty((n_seeds, y.size))
    for tr, te in first.k_choice_.extra["folds"]:
        fold = clone(first).set_params(k=int(first.k_),
                                       label_noise=share_label_noise(c, tr.size))
        for s in range(n_seeds):
            by_seed[s, te] = fold.set_params(random_state=100 + s).fit(
                X[tr], y[tr]).predict_proba(X[te])[:, 1]
    plugin = first.k_choice_._chosen_case_log_proba()
    # Two independent 200-draw estimates: the sd of their difference is sqrt(2) times one's,
    # estimated from n_seeds refits (its upper 99.9% bound from chi-square with n_seeds - 1
    # df); z = 4 over the 80 cases (two-sided 6e-5 each, 0.005 in all).
    sd = by_seed.std(axis=0, ddof=1) * np.sqrt((n_seeds - 1) / chi2.ppf(0.001, n_seeds - 1))
    diff = np.abs(np.exp(ref[:, 1]) - np.exp(plugin[:, 1]))
    assert np.all(diff <= 4 * np.sqrt(2) * sd + 1e-9), np.max(diff / (np.sqrt(2) * sd))
    assert sd.max() < 0.05                  # the bound is not vacuous


def test_the_inner_refits_skip_the_checks_and_predict_as_a_checked_fit():
    """The stack's refits on its inner folds are fitted without checks (``_fit(...,
    checks=False)``: no ArviZ check groups, diagnostics or model checks, whose cost is in
    benchmarks/results/stack_cost.md); an MCMC fit so made has the same draws and predictions
    as a checked one, and none of the checks."""
    X, y = _spread(3)
    est = HierarchicalGaussianClassifier(k=10, draws=100, tune=100, chains=2, random_state=0,
                                         progressbar=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")              # a short chain: the diagnostics warn
        checked = clone(est).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # nothing is checked, so nothing warns
        bare = clone(est)._fit(X, y, checks=False)
    np.testing.assert_array_equal(bare.predict_proba(X), checked.predict_proba(X))
    assert "log_likelihood" in checked.idata_.children
    assert "log_likelihood" not in bare.idata_.children
    assert checked.diagnostics_ is not None and not hasattr(bare, "diagnostics_")


def test_refit_refits_the_folds_a_rare_class_leaves_with_one_case(tmp_path):
    """A class of two training cases: the inner folds (reduced to two) each keep one of its
    cases. The classifier fits a class of one case (its mean at that case), so those folds are
    refitted like any other (until 2026-12-06 they kept their plug-in scores): the Gaussian
    model's inner log probabilities are the refits written out here, not the plug-in's, and
    inner_refits_ counts both folds, also after save and load."""
    from selbayes.estimators._k_choice import share_label_noise

    X, y = _three_classes(6)
    keep = np.r_[np.flatnonzero(y != 2), np.flatnonzero(y == 2)[:2]]
    X, y = X[keep], y[keep]
    clf = LinearStackedClassifier(_base(k_grid=(5, 20)), inner_predictive="refit").fit(X, y)
    first = clf.estimator_
    choice = first.k_choice_
    assert len(choice.extra["folds"]) == 2 and choice.extra.get("cases") is None
    c = choice.extra["label_noise_c"]
    ref = np.empty((y.size, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # the class of one case, as the refits
        for tr, te in choice.extra["folds"]:
            assert np.bincount(y[tr], minlength=3)[2] == 1
            fold = clone(first).set_params(k=int(first.k_),
                                           label_noise=share_label_noise(c, tr.size))
            ref[te] = fold.fit(X[tr], y[tr]).predict_log_proba(X[te])
    np.testing.assert_allclose(clf.inner_log_proba_[0], ref, rtol=1e-12)
    assert np.max(np.abs(ref - choice._chosen_case_log_proba())) > 1e-6   # not the plug-in
    assert clf.predict_proba(X).shape == (y.size, 3)
    assert clf.inner_refits_ == (2, 2)
    assert LinearStackedClassifier.load(clf.save(tmp_path / "rare.nc")).inner_refits_ == (2, 2)
    # nor can L1's search for C split one case: 1/3 on every inner case
    np.testing.assert_array_equal(clf.inner_log_proba_[2], -np.log(3.0))
    assert clf.weights_[2] == 0 and clf.l1_ is None


def test_refittable_is_the_classifiers_own_rule_for_its_labels():
    """_refittable, the one rule for the refits and their count, says yes exactly where the
    Gaussian classifier fits the fold's labels: a class of one case beside two classes of
    two or more; no for a class with no training case, or fewer than two classes of two
    (checked against the classifier's own fit, which raises there)."""
    from selbayes.estimators._linear_stack import _refittable

    clf = _base(k=5)
    y = np.array([0, 0, 0, 1, 1, 1, 2])
    X = np.random.default_rng(0).normal(size=(7, 30))
    assert _refittable(clf, y, np.arange(7), 3)               # a class of one case
    assert not _refittable(clf, y, np.arange(6), 3)           # class 2 absent
    for train in (np.array([0, 3, 6]), np.array([0, 1, 3, 6])):   # one class of two at most
        assert not _refittable(clf, y, train, 3)
        with pytest.raises(ValueError, match="at least 2 classes need 2 cases"):
            clone(clf)._fit(X[train], y[train], checks=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                      # the class of one case
        clone(clf)._fit(X, y, checks=False)                  # where it says yes, it fits


def test_a_class_of_one_training_case_joins_the_fits_but_not_the_inner_choices(tmp_path):
    """A class with a single training case (a rare class of a benchmark's training fold)
    cannot be on both sides of an inner split. The stack makes every inner choice (k, the
    label-noise share, the Gaussian model's inner scores, the probit and L1 inner fits, the
    gate and the weights) exactly as a fit on the other classes' cases alone makes it, then
    fits its models on every case: the class has its own column, and its case, far out on
    its own genes, is predicted to be of it."""
    X, y = _three_classes(6)
    keep = np.r_[np.flatnonzero(y != 2), np.flatnonzero(y == 2)[0]]
    X, y = X[keep].copy(), y[keep]
    X[-1, 5:10] += 4.0                                  # the single case's own markers
    with pytest.warns(UserWarning, match=r"class\(es\) 2 have a single training case.*"
                                         r"other classes' cases"):
        clf = LinearStackedClassifier(_base(k_grid=(5, 20))).fit(X, y)
    alone = LinearStackedClassifier(_base(k_grid=(5, 20))).fit(X[:-1], y[:-1])
    choice = clf.estimator_.k_choice_
    np.testing.assert_array_equal(choice.extra["cases"], np.arange(y.size - 1))
    assert clf.estimator_.k_ == alone.estimator_.k_
    np.testing.assert_array_equal(choice.score, alone.estimator_.k_choice_.score)
    np.testing.assert_array_equal(clf.inner_log_proba_, alone.inner_log_proba_)
    np.testing.assert_array_equal(clf.weights_, alone.weights_)
    assert clf.l1_gate_ == alone.l1_gate_
    proba = clf.predict_proba(X)
    assert proba.shape == (y.size, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert proba[-1, 2] > 0.5
    # the inner arrays have fewer classes than the fit: save and load keep both
    again = LinearStackedClassifier.load(clf.save(tmp_path / "one.nc"))
    np.testing.assert_array_equal(again.predict_proba(X), proba)
    np.testing.assert_array_equal(again.inner_log_proba_, clf.inner_log_proba_)


def test_l1_stays_out_where_it_cannot_be_fitted_to_a_class_of_one_case():
    """The gate forced open where L1 wins weight on the inner cases (the other classes'):
    its search for C cannot split the class of one case, so it is not fitted to all the
    training cases, and the two models keep the two-model weights."""
    X, y = _one_clean_marker()
    rng = np.random.default_rng(1)
    X, y = np.vstack([X, rng.standard_t(3, size=(1, X.shape[1]))]), np.append(y, 2)
    forced = LinearStackedClassifier(_base(), inner_predictive="plugin", l1_gate=-1e9).fit(X, y)
    alone = LinearStackedClassifier(_base(), inner_predictive="plugin",
                                    l1_gate=-1e9).fit(X[:-1], y[:-1])
    assert alone.weights_[2] > 0.5                   # L1 wins where it can be fitted
    inner = forced.inner_log_proba_[:2, np.arange(y.size - 1), y[:-1]]
    np.testing.assert_allclose(forced.weights_, np.append(stacking_weights(inner), 0.0))
    assert forced.l1_ is None and not forced.l1_gate_["open"] and forced.l1_gate_["unfittable"]
    assert forced.predict_proba(X).shape == (y.size, 3)


def test_l1_fitted_on_no_inner_fold_has_no_score_in_the_summary(tmp_path):
    """A class of two cases: two inner folds, each with one case of it to train on, which
    L1's search for C cannot split: its slot predicts 1/G on every inner case, and the
    summary printed "inner log loss 1.099 nats" (ln 3) as if it were L1's. It now says that
    L1 was fitted on no inner fold; the count is saved with the fit."""
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], [12, 12, 2])
    X = rng.normal(size=(y.size, 60)) + 1.0 * (y[:, None] == np.arange(60) % 3)
    clf = LinearStackedClassifier(_base(k_grid=(5, 20)), inner_predictive="plugin").fit(X, y)
    assert clf.l1_gate_["inner_folds_fitted"] == [0, 2] and clf.weights_[2] == 0
    np.testing.assert_allclose(clf.inner_log_proba_[2], -np.log(3))
    said = [line for line in clf.summary().splitlines() if line.startswith("L1 logistic")]
    assert said == ["L1 logistic regression: could not be fitted on any inner fold (a class "
                    "with too few training cases, or too few groups for its search for C): "
                    "not in the stack"]
    again = LinearStackedClassifier.load(clf.save(tmp_path / "l1_none.nc"))
    assert again.l1_gate_ == clf.l1_gate_


# ---- the third model, L1 logistic regression, and its gate ----------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_l1_model_predicts_what_scikit_learn_fits(n_classes):
    """The stored numbers of the L1 fit predict what scikit-learn predicts with the recipe
    the module documents, written out here from scikit-learn's parts (not through the
    package's pipeline): standardised features, L1 penalty with C among 5 values from 0.01
    to 10 chosen by 3-fold shuffled stratified cross-validation on log loss, liblinear, one
    regression per class against the rest beyond two classes. In log space, far from the
    training cases too; and the penalty is L1: most of the 57 null features get exactly 0.
    The benchmark's logreg_l1_cv is the same recipe."""
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.model_selection import StratifiedKFold
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from selbayes.benchmark._methods import make_method
    from selbayes.estimators._l1_logistic import fit_l1_logistic

    rng = np.random.default_rng(n_classes)
    y = np.repeat(np.arange(n_classes), 15)
    X = rng.normal(size=(y.size, 60))
    X[:, :3] += 1.5 * y[:, None]
    Xt = 3 * rng.normal(size=(25, 60))
    lr = LogisticRegressionCV(Cs=np.logspace(-2, 1, 5), penalty="l1", solver="liblinear",
                              cv=StratifiedKFold(3, shuffle=True, random_state=7),
                              scoring="neg_log_loss", tol=1e-3, max_iter=500, random_state=7)
    recipe = make_pipeline(StandardScaler(), lr if n_classes == 2 else OneVsRestClassifier(lr))
    ref = recipe.fit(X, y).predict_proba(Xt)
    fit = fit_l1_logistic(X, y, random_state=7)
    np.testing.assert_allclose(np.exp(fit.predict_log_proba(Xt)), ref, rtol=1e-10,
                               atol=1e-15)
    coef = (recipe[-1].coef_ if n_classes == 2
            else np.vstack([e.coef_ for e in recipe[-1].estimators_]))
    assert np.mean(coef[:, 3:] == 0) > 0.5
    bench = make_method("logreg_l1_cv", n_classes, random_state=7).fit(X, y)
    np.testing.assert_allclose(bench.predict_proba(Xt), ref, rtol=1e-10, atol=1e-15)
    with pytest.raises(ValueError, match="two cases of every class"):
        fit_l1_logistic(X[:16], y[:16], random_state=0)



def test_l1_search_for_c_is_skipped_where_every_class_has_fewer_cases_than_its_folds():
    """scikit-learn's stratified 3-fold split refuses classes that all have fewer than three
    cases; a class with one case cannot be in both parts. Those folds give the L1 model 1/G
    (it was a traceback from inside scikit-learn for three cases per class)."""
    from selbayes.estimators._l1_logistic import can_fit_l1_logistic, fit_l1_logistic

    assert not can_fit_l1_logistic(np.array([0, 0, 1, 1]))
    assert not can_fit_l1_logistic(np.array([0, 1, 1, 1]))
    assert can_fit_l1_logistic(np.array([0, 0, 0, 1, 1]))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 8))
    fit_l1_logistic(X, np.array([0, 0, 0, 1, 1]), random_state=0)      # splits: no error
    with pytest.raises(ValueError, match="three of one"):
        fit_l1_logistic(X[:4], np.array([0, 0, 1, 1]), random_state=0)

    y = np.repeat([0, 1], 3)
    X = rng.normal(size=(6, 50))
    X[y == 1, :3] += 3.0
    clf = LinearStackedClassifier(_base(k_grid=(2, 5))).fit(X, y)     # default gate
    folds = clf.estimator_.k_choice_.extra["folds"]
    unsplittable = [te for tr, te in folds if not can_fit_l1_logistic(y[tr])]
    assert unsplittable                                  # the case this test is about
    for te in unsplittable:
        np.testing.assert_allclose(clf.inner_log_proba_[2][te], np.log(0.5))
    P = clf.predict_proba(X)
    assert np.isfinite(P).all() and np.allclose(P.sum(axis=1), 1.0)

# ---- grouped cases ---------------------------------------------------------------------------
def _twin_data(seed=4, n=40, p=120):
    """Cases 2i and 2i + 1 are twins (a noisy copy, same class): one group per pair. One
    strong marker and three weak ones (L1 gets a weight in the stack at this seed)."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p))
    X[:, 0] += 2.0 * y
    X[:, 1:4] += 0.5 * y[:, None]
    X[1::2] = X[0::2] + 0.05 * rng.normal(size=(n // 2, p))
    return X, y, np.arange(n) // 2


def _whole(folds, groups) -> bool:
    return all(set(groups[tr]).isdisjoint(groups[te]) for tr, te in folds)


def test_groups_reach_every_inner_split_of_the_stack(monkeypatch):
    """With groups, the Gaussian model's inner folds (which the probit model, the weights and
    the gate use) keep each group whole, and every L1 fit, on an inner training fold and on
    all the cases, gets those cases' groups for its search for C, whose folds keep them whole
    too; without groups some inner fold splits a pair (so the checks can fail)."""
    from selbayes.estimators import _l1_logistic, _linear_stack

    X, y, groups = _twin_data()
    calls, searches = [], []
    real_fit, real_pipeline = _l1_logistic.fit_l1_logistic, _l1_logistic.l1_logistic_pipeline

    def recording_fit(Xf, yf, random_state=None, groups=None):
        calls.append((Xf.shape[0], groups))
        return real_fit(Xf, yf, random_state, groups=groups)

    def recording_pipeline(n_classes, random_state=None, **kw):
        searches.append(kw.get("inner_folds"))
        return real_pipeline(n_classes, random_state, **kw)

    monkeypatch.setattr(_linear_stack, "fit_l1_logistic", recording_fit)
    monkeypatch.setattr(_l1_logistic, "l1_logistic_pipeline", recording_pipeline)
    clf = LinearStackedClassifier(_base(), l1_gate=-1e9).fit(X, y, groups=groups)
    folds = clf.estimator_.k_choice_.extra["folds"]
    assert _whole(folds, groups)
    assert clf.l1_ is not None and clf.weights_.size == 3
    # one L1 fit per inner fold, then one on all cases, each with its cases' groups
    assert [c[0] for c in calls] == [tr.size for tr, _ in folds] + [y.size]
    for (tr, _), (_, g) in zip(folds, calls, strict=False):
        np.testing.assert_array_equal(g, groups[tr])
    np.testing.assert_array_equal(calls[-1][1], groups)
    # every search for C was given folds (not a number), each keeping the groups whole
    assert len(searches) == len(calls) and all(isinstance(f, list) for f in searches)
    for (tr, _), search in zip(folds, searches, strict=False):
        assert _whole(search, groups[tr])
    assert _whole(searches[-1], groups)
    calls.clear()
    plain = LinearStackedClassifier(_base(), l1_gate=-1e9).fit(X, y, groups=None)
    assert not _whole(plain.estimator_.k_choice_.extra["folds"], groups)
    assert all(g is None for _, g in calls)


def test_groups_auto_reach_every_inner_split_of_the_stack(monkeypatch):
    """The default (near-copies, as these twins are): the twins the Gaussian model finds are
    the groups of every inner split of the stack, the L1 fits' included (their codes pair the
    same cases as the true groups)."""
    from selbayes.estimators import _linear_stack

    X, y, groups = _twin_data()
    calls = []
    real_fit = _linear_stack.fit_l1_logistic

    def recording_fit(Xf, yf, random_state=None, groups=None):
        calls.append(groups)
        return real_fit(Xf, yf, random_state, groups=groups)

    monkeypatch.setattr(_linear_stack, "fit_l1_logistic", recording_fit)
    clf = LinearStackedClassifier(_base(), l1_gate=-1e9).fit(X, y)
    found = clf.estimator_.groups_
    # the same pairs: as many codes as true groups, each code with one true group
    assert np.unique(found).size == 20
    assert len(set(zip(found.tolist(), groups.tolist(), strict=True))) == 20
    assert _whole(clf.estimator_.k_choice_.extra["folds"], groups)
    folds = clf.estimator_.k_choice_.extra["folds"]
    for (tr, _), g in zip(folds, calls, strict=False):
        np.testing.assert_array_equal(g, found[tr])
    np.testing.assert_array_equal(calls[-1], found)


def test_groups_that_leave_a_class_out_are_named_by_the_stack():
    """Groups that put a class in one inner fold: the Gaussian model's message about the
    groups, not the stack's advice about k; L1's own check says it cannot split them."""
    from selbayes.estimators._inner_cv import InnerCVImpossibleError
    from selbayes.estimators._l1_logistic import can_fit_l1_logistic, fit_l1_logistic

    X, y, _ = _twin_data()
    lumped = np.where(y == 1, 100, np.arange(y.size))
    with pytest.raises(InnerCVImpossibleError, match=r"no case of class\(es\) \[1\]"):
        LinearStackedClassifier(_base()).fit(X, y, groups=lumped)
    assert can_fit_l1_logistic(y, groups=np.arange(y.size) // 2, random_state=0)
    assert not can_fit_l1_logistic(y, groups=lumped, random_state=0)
    assert not can_fit_l1_logistic(y, groups=np.arange(y.size) % 2, random_state=0)
    with pytest.raises(ValueError, match="cannot give every class to every training fold"):
        fit_l1_logistic(X, y, 0, groups=lumped)


def _gate_reference(A, y, folds):
    """The gate's mean gain and z written out: per fold, two- and three-model weights by
    stacking_weights on the other folds' cases, the log score difference on the fold's."""
    d = np.zeros(y.size)
    for tr, te in folds:
        own_tr, own_te = A[:, tr, y[tr]], A[:, te, y[te]]
        w3 = stacking_weights(own_tr)
        w2 = stacking_weights(own_tr[:2])
        if w3[2] > 0:
            d[te] = (np.log(w3 @ np.exp(own_te)) - np.log(w2 @ np.exp(own_te[:2])))
    return d.mean(), d.mean() / (d.std(ddof=1) / np.sqrt(y.size))


def _gate_case(seed, p_l1, n=60):
    """Inner log probabilities of three models for n two-class cases: the Gaussian and probit
    models give each case's own class 0.6 to 0.8, the L1 model ``p_l1`` (a scalar or per
    case); and five folds."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    own = np.stack([rng.uniform(0.6, 0.8, n), rng.uniform(0.6, 0.8, n),
                    np.broadcast_to(p_l1, (n,))])
    P = np.empty((3, n, 2))
    P[:, np.arange(n), y], P[:, np.arange(n), 1 - y] = own, 1 - own
    folds = [(np.setdiff1d(np.arange(n), np.arange(f, n, 5)), np.arange(f, n, 5))
             for f in range(5)]
    return np.log(P), y, folds


def test_the_gate_opens_on_a_clear_inner_gain_and_only_then():
    from selbayes.estimators._linear_stack import _gated_weights

    # L1 sharper on every inner case: a clear gain, the three weights fitted on all cases
    A, y, folds = _gate_case(0, 0.97)
    w, gate = _gated_weights(A, y, folds, 2.0)
    gain, z = _gate_reference(A, y, folds)
    assert gate["open"] and gate["gain"] == pytest.approx(gain) and gate["z"] == pytest.approx(z)
    np.testing.assert_allclose(w, stacking_weights(A[:, np.arange(y.size), y]))
    assert w[2] > 0.5
    # the same gain with a threshold above its z: closed, the two-model weights and 0
    w, gate = _gated_weights(A, y, folds, z + 1)
    assert not gate["open"]
    np.testing.assert_allclose(w[:2], stacking_weights(A[:2, np.arange(y.size), y]))
    assert w[2] == 0
    # L1 worse on every case: no fold gives it weight, the gain is exactly 0 (not rounding)
    A, y, folds = _gate_case(1, 0.5)
    w, gate = _gated_weights(A, y, folds, 2.0)
    assert gate == {"gain": 0.0, "z": 0.0, "open": False} and w[2] == 0
    # L1 sharp on half the cases and a coin flip on the rest: a gain, but within its noise
    p = np.where(np.arange(60) % 4 < 2, 0.99, 0.5)
    A, y, folds = _gate_case(2, p)
    w, gate = _gated_weights(A, y, folds, 2.0)
    gain, z = _gate_reference(A, y, folds)
    assert gain > 0 and 0 < z < 2
    assert gate["z"] == pytest.approx(z) and not gate["open"] and w[2] == 0


def test_cross_fitted_gain_of_a_swapped_model():
    """The gate's cross-fitted gain also compares pools that are not nested (the probit
    component swapped for another, as reports/plasmode/probit_prior_gate asks): then no fold
    is skipped, and the gain equals the pools' log scores written out; a pool against itself
    gains exactly 0."""
    from selbayes.estimators._linear_stack import _cross_fitted_gain

    A, y, folds = _gate_case(3, 0.95)
    base, swapped = A[:2], A[[0, 2]]
    d = np.zeros(y.size)
    for tr, te in folds:
        own_tr = {k: B[:, tr, y[tr]] for k, B in (("base", base), ("swap", swapped))}
        w = {k: stacking_weights(v) for k, v in own_tr.items()}
        d[te] = (np.log(w["swap"] @ np.exp(swapped[:, te, y[te]]))
                 - np.log(w["base"] @ np.exp(base[:, te, y[te]])))
    gain, z = _cross_fitted_gain(base, swapped, y, folds, nested=False)
    assert gain > 0 and gain == pytest.approx(d.mean())
    assert z == pytest.approx(d.mean() / (d.std(ddof=1) / np.sqrt(y.size)))
    assert _cross_fitted_gain(base, base, y, folds, nested=False) == (0.0, 0.0)


def _one_clean_marker(seed=0):
    """One gene separates the classes cleanly, the 299 others are heavy-tailed noise (t, 3
    df): the L1 model is a real contender here (forced into the stack it wins most of the
    weight), while the gate at its default finds no clear gain."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], 20)
    X = rng.standard_t(3, size=(40, 300))
    X[:, 0] = 0.3 * rng.normal(size=40) + 1.5 * y
    return X, y


def test_an_open_gate_stacks_the_l1_model_fitted_on_the_same_inner_folds(tmp_path):
    """With the gate forced open (a threshold far below any z) the stack is its three parts:
    the L1 model refitted here on the Gaussian model's inner folds and on all cases, weighted
    by stacking_weights on the inner cases; it survives save and load."""
    from selbayes.estimators._l1_logistic import fit_l1_logistic

    X, y = _one_clean_marker()
    clf = LinearStackedClassifier(_base(), inner_predictive="plugin", l1_gate=-1e9).fit(X, y)
    two = LinearStackedClassifier(_base(), inner_predictive="plugin", l1_gate=None).fit(X, y)
    np.testing.assert_array_equal(clf.inner_log_proba_[:2], two.inner_log_proba_)
    l1 = np.empty_like(clf.inner_log_proba_[2])
    for tr, te in clf.estimator_.k_choice_.extra["folds"]:
        l1[te] = fit_l1_logistic(X[tr], y[tr], 0).predict_log_proba(X[te])
    np.testing.assert_allclose(clf.inner_log_proba_[2], l1, rtol=1e-12)
    w = stacking_weights(clf.inner_log_proba_[:, np.arange(y.size), y])
    np.testing.assert_allclose(clf.weights_, w)
    assert clf.l1_gate_["open"] and clf.l1_weight_ == w[2] and w[2] > 0
    expected = (w[0] * clf.estimator_.predict_proba(X)
                + w[1] * np.exp(two.linear_.predict_log_proba(X))
                + w[2] * np.exp(fit_l1_logistic(X, y, 0).predict_log_proba(X)))
    np.testing.assert_allclose(clf.predict_proba(X), expected, rtol=1e-10)
    again = LinearStackedClassifier.load(clf.save(tmp_path / "l1.nc"))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    assert again.l1_gate == -1e9 and again.l1_gate_ == clf.l1_gate_
    np.testing.assert_array_equal(again.l1_.coef, clf.l1_.coef)


def test_a_closed_gate_is_the_two_model_stack(sparse, tmp_path):
    X, y = sparse
    clf = LinearStackedClassifier(_base(), inner_predictive="plugin", l1_gate=1e9).fit(X, y)
    two = LinearStackedClassifier(_base(), inner_predictive="plugin", l1_gate=None).fit(X, y)
    assert not clf.l1_gate_["open"] and clf.l1_ is None and clf.l1_weight_ == 0.0
    np.testing.assert_array_equal(clf.weights_[:2], two.weights_)
    np.testing.assert_allclose(clf.predict_proba(X), two.predict_proba(X), rtol=1e-12)
    again = LinearStackedClassifier.load(clf.save(tmp_path / "closed.nc"))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    assert two.l1_gate_ is None and two.weights_.size == 2 and "l1" not in two.inner_scores_


@pytest.mark.parametrize("params, match", [
    ({"pooling": "log"}, "l1_gate=None"),
    ({"l1_gate": "high"}, "l1_gate"),
    ({"l1_gate": float("nan")}, "l1_gate must be a number or None; got nan"),
    ({"l1_gate": float("inf")}, "l1_gate must be a number or None; got inf"),
])
def test_a_gate_it_cannot_use_is_named(sparse, params, match):
    with pytest.raises(ValueError, match=match):
        LinearStackedClassifier(_base(), **params).fit(*sparse)


def test_a_stack_fitted_on_transformed_values_warns_when_loaded(stacked, tmp_path):
    """A fit by `selbayes fit --transform log2` expects X transformed as it was: the
    Gaussian classifier's load warned of it, the stack's (the default's) said nothing."""
    import json
    import warnings

    import h5py

    from selbayes.estimators._persistence import INPUT_TRANSFORM_ATTR, SavedTransformWarning

    path = stacked.save(tmp_path / "stack.nc")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SavedTransformWarning)
        LinearStackedClassifier.load(path)                    # no transform: no warning
    with h5py.File(path, "a") as f:
        f.attrs[INPUT_TRANSFORM_ATTR] = json.dumps({"transform": "log2", "floor": 1.0,
                                                    "ceiling": None})
    with pytest.warns(SavedTransformWarning, match=r"IntensityLog2\(floor=1\.0, ceiling=None\)"):
        LinearStackedClassifier.load(path)


def test_random_state_seeds_the_whole_fit_and_is_saved(sparse, tmp_path):
    """The stack's own seed replaces the Gaussian model's (its sampling and the inner splits
    draw from it), so that ``LinearStackedClassifier(random_state=0)`` is reproducible without
    building the Gaussian model by hand; it is kept by save and load."""
    X, y = sparse

    def fit(base_seed, seed):
        return LinearStackedClassifier(_base(random_state=base_seed), l1_gate=None,
                                       inner_predictive="plugin", random_state=seed).fit(X, y)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_stack = fit(3, 0)
        by_base = fit(0, None)
        other = fit(3, 1)
    np.testing.assert_array_equal(by_stack.predict_proba(X), by_base.predict_proba(X))
    np.testing.assert_array_equal(by_stack.inner_log_proba_, by_base.inner_log_proba_)
    assert not np.array_equal(by_stack.inner_log_proba_, other.inner_log_proba_)
    again = LinearStackedClassifier.load(by_stack.save(tmp_path / "seeded.nc"))
    assert again.random_state == 0 and again.get_params()["random_state"] == 0
    with pytest.raises(ValueError, match="random_state"):
        LinearStackedClassifier(random_state=-1).fit(X, y)


def test_a_model_of_weight_zero_is_not_computed_at_predict(stacked, sparse):
    """The probit model's predictive costs seconds to a minute with hundreds of cases and
    several classes; at weight 0 it changes nothing and is not computed."""
    import copy

    X = sparse[0][:5]
    clf = copy.deepcopy(stacked)
    clf.weights_ = np.array([1.0, 0.0])
    expected = clf.estimator_.predict_proba(X)

    def refuse(*args, **kwargs):
        raise AssertionError("the probit model of weight 0 was computed")

    clf.linear_.predict_log_proba = refuse
    np.testing.assert_allclose(clf.predict_proba(X), expected, rtol=1e-12)
    clf.pooling = "log"
    np.testing.assert_allclose(clf.predict_proba(X), expected, rtol=1e-9)


def test_every_fitted_attribute_is_documented(stacked):
    """Each attribute ``fit`` sets is listed in the class docstring's Attributes section."""
    from tests._attributes import undocumented_fitted_attributes

    assert undocumented_fitted_attributes(stacked) == []


def test_frame_after_array_fit_warns_naming_the_stack(stacked, sparse, log_pooled):
    """Both pools (the log pool computes its own log probabilities)."""
    assert_frame_after_array_fit_warns_once_as(stacked, sparse[0])
    assert_frame_after_array_fit_warns_once_as(log_pooled[2], log_pooled[0])


def test_a_gene_without_spread_in_an_inner_fold_alone_is_not_an_error(monkeypatch):
    """A gene that separates the classes except in one case: the whole X has within-class
    spread there (the Gaussian model fits it), but an inner fold that leaves that case out
    has none. The stack's inner refits called select_features on the fold, whose error
    ("column(s) of X ... separate the classes with no variance") blamed the user's X, and
    the inner CV's candidate k = 1 gave "threshold must be > 0 and finite; got inf". Now the
    fold keeps such a gene and one more (fold_k), and the refit of that fold (whose sampled
    model cannot hold a within-class sum of squares of 0) keeps its plug-in predictions."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 40))
    X[:, 0] = np.where(y == 1, 5.0, 0.0)
    X[15, 0] = 0.0                              # the one case that spreads gene 0
    X[:, 1] += y
    # which training cases each inner refit saw: the refits are the fits given a ranking
    refits, original = [], HierarchicalGaussianClassifier._fit

    def spy(self, X_, y_, *args, **kwargs):
        if "ranking" in kwargs:
            refits.append(bool(np.all(X_ == X[15], axis=1).any()))
        return original(self, X_, y_, *args, **kwargs)

    monkeypatch.setattr(HierarchicalGaussianClassifier, "_fit", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # case 15's label looks implausible, rightly
        stack = LinearStackedClassifier(_base(k_grid=(1, 2, 5)), l1_gate=None,
                                        random_state=0).fit(X, y)
    proba = stack.predict_proba(X[:4])
    assert np.all(np.isfinite(proba)) and np.all(proba[:, 0] > 0.5)
    folds = stack.estimator_.k_choice_.extra["folds"]
    unspread = [te for _, te in folds if 15 in te]
    # no refit ran on a training fold without case 15 (gene 0 unspread there); the others ran
    assert unspread and refits and all(refits)
    assert len(refits) == len(folds) - len(unspread)
    # the folds not refitted keep the inner CV's plug-in predictions
    plugin = stack.estimator_.k_choice_._chosen_case_log_proba()
    assert np.array_equal(stack.inner_log_proba_[0][unspread[0]], plugin[unspread[0]])


@pytest.mark.parametrize("stacked", ["linear", "stacked"])
def test_a_setting_of_the_default_estimator_names_the_way_out(stacked):
    """estimator=None (the default) has no settings to set: scikit-learn's set_params said
    "'NoneType' object has no attribute 'set_params'" (a GridSearchCV over estimator__k_grid
    failed so); the message gives the call that works, which works."""
    from selbayes.estimators import StackedGaussianClassifier

    cls = LinearStackedClassifier if stacked == "linear" else StackedGaussianClassifier
    with pytest.raises(ValueError, match=r"estimator__k_grid sets a setting of estimator, "
                                         r"which is None .*HierarchicalGaussianClassifier\(\)"):
        cls().set_params(estimator__k_grid=(5, 10))
    given = cls().set_params(estimator=HierarchicalGaussianClassifier(),
                             estimator__k_grid=(5, 10))
    assert given.estimator.k_grid == (5, 10)
    assert clone(given).get_params()["estimator__k_grid"] == (5, 10)


def test_refits_that_choose_settings_again_take_a_gene_with_f_zero():
    """A constant gene has F = 0 in every fold; the refits' ranking once held the lowest
    score as its threshold, which a refit that runs its own inner CV (temperature='auto')
    refused as "only 11 of the 12 features have F > 0 ... choose k <= 11"."""
    from selbayes.estimators._linear_stack import _refitted_inner_log_proba

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 12))
    X[:, 1] += y
    X[:, 5] = 0.0
    first = _base(temperature="auto", k_grid=(1, 2, 5)).fit(X, y)
    out = _refitted_inner_log_proba(first, X, y, first.k_choice_.extra["folds"])
    assert out.shape == (30, 2) and np.all(np.isfinite(out))
