"""Tests of selbayes.cross_validate: out-of-fold predictions, internal selection, back-ends, resume.

References: scikit-learn's own ``cross_val_predict`` on the same folds (same estimator, same
seeds: identical probabilities), a hand-written fold loop, and the chance error rate of a
classifier on pure-noise features (selection leaking the test cases would beat it).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline

from selbayes import cross_validate
from selbayes.evaluation import calibration_summary, load_folds, make_folds


def _data(n=60, p=40, seed=0, shift=1.0):
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b", "c"], n // 3)
    X = rng.normal(size=(n, p))
    X[:, :3] += shift * (y[:, None] == np.array(["a", "b", "c"])[None, :3])
    return X, y


_N_CASES = 60


class FlakyNB(GaussianNB):
    """GaussianNB that fails while ``marker`` exists and the training set lacks the last case
    (column 0 holds the case number), to interrupt a run in a chosen fold."""

    def __init__(self, marker=None, var_smoothing=1e-9):
        super().__init__(var_smoothing=var_smoothing)
        self.marker = marker

    def fit(self, X, y, sample_weight=None):
        from pathlib import Path

        if self.marker is not None and Path(self.marker).exists() and \
                float(np.asarray(X)[:, 0].max()) < _N_CASES - 1:
            raise RuntimeError("interrupted")
        return super().fit(X, y, sample_weight)


# ---------------------------------------------------------------------------------------------
# agreement with references
# ---------------------------------------------------------------------------------------------
def test_equals_cross_val_predict_and_a_manual_loop():
    X, y = _data()
    est = make_pipeline(SelectKBest(f_classif, k=5), LogisticRegression(max_iter=2000))
    cv = StratifiedKFold(5, shuffle=True, random_state=3)
    res = cross_validate(est, X, y, folds=cv, random_state=0, progressbar=False)
    ref = cross_val_predict(est, X, y, cv=cv, method="predict_proba")
    np.testing.assert_allclose(res.proba, ref, rtol=0, atol=1e-12)
    manual = np.empty_like(ref)
    for i, (tr, te) in enumerate(cv.split(X, y)):
        manual[te] = est.fit(X[tr], y[tr]).predict_proba(X[te])
        assert np.all(res.fold[te] == i)
    np.testing.assert_allclose(res.proba, manual, atol=1e-12)
    assert list(res.classes) == ["a", "b", "c"]
    expected = calibration_summary(ref, np.searchsorted(res.classes, y))
    assert res.summary == pytest.approx(expected)
    assert res.to_frame().shape == (60, 5)
    assert np.array_equal(res.predict(), res.classes[ref.argmax(axis=1)])


def test_selection_is_refitted_inside_every_fold():
    # pure noise: with selection inside the folds the error rate is chance (1/2); selecting
    # on all cases first leaks the labels and looks far better
    rng = np.random.default_rng(11)
    n, p = 80, 2000
    X = rng.normal(size=(n, p))
    y = np.repeat([0, 1], n // 2)
    est = make_pipeline(SelectKBest(f_classif, k=10), GaussianNB())
    res = cross_validate(est, X, y, folds=5, random_state=1, progressbar=False)
    se = np.sqrt(0.25 / n)
    assert abs(res.summary["error_rate"] - 0.5) < 3 * se
    leaked = SelectKBest(f_classif, k=10).fit(X, y).get_support()
    res_leak = cross_validate(GaussianNB(), X[:, leaked], y, folds=res.folds,
                              progressbar=False)
    assert res_leak.summary["error_rate"] < 0.5 - 3 * se  # the test above has power


def test_gaussian_classifier_with_cross_val_predict():
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.datasets import gaussian_classification

    data = gaussian_classification(36, 25, 3, random_state=4)
    clf = HierarchicalGaussianClassifier(k=10, draws=60, tune=60, chains=1, random_state=9,
                                         progressbar=False)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ref = cross_val_predict(clf, data.X, data.y, cv=cv, method="predict_proba")
    res = cross_validate(clf, data.X, data.y, folds=cv, progressbar=False)
    # the estimator's own seed is kept, as in cross_val_predict: identical draws
    np.testing.assert_allclose(res.proba, ref, rtol=1e-10, atol=1e-12)
    assert all(len(f["selected"]) == 10 and f["gamma"] > 0 for f in res.fold_info)
    # each fold selected on its own training cases
    assert len({tuple(f["selected"]) for f in res.fold_info}) >= 2


# ---------------------------------------------------------------------------------------------
# seeds and back-ends
# ---------------------------------------------------------------------------------------------
def _forest():
    return RandomForestClassifier(n_estimators=8, max_depth=3)


def test_per_fold_seeds_are_reproducible_and_distinct():
    X, y = _data()
    a = cross_validate(_forest(), X, y, folds=4, random_state=5, progressbar=False)
    b = cross_validate(_forest(), X, y, folds=4, random_state=5, progressbar=False)
    c = cross_validate(_forest(), X, y, folds=4, random_state=6, progressbar=False)
    np.testing.assert_array_equal(a.proba, b.proba)
    seeds = [f["seed"] for f in a.fold_info]
    assert len(set(seeds)) == 4 and seeds == [f["seed"] for f in b.fold_info]
    assert not np.array_equal(a.proba, c.proba)
    assert [f["seed"] for f in c.fold_info] != seeds
    # an explicit estimator seed is kept (no per-fold seed)
    fixed = cross_validate(RandomForestClassifier(n_estimators=8, random_state=1), X, y,
                           folds=4, random_state=5, progressbar=False)
    assert all(f["seed"] is None for f in fixed.fold_info)


@pytest.mark.slow        # starting a two-process dask cluster (10 s): make slow; the
# benchmark's dask scheduler test covers the client path in make test
def test_dask_local_cluster_equals_joblib():
    distributed = pytest.importorskip("distributed")
    X, y = _data(seed=2)
    serial = cross_validate(_forest(), X, y, folds=5, random_state=21, progressbar=False)
    local = cross_validate(_forest(), X, y, folds=5, random_state=21, n_jobs=2,
                           progressbar=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = cross_validate(_forest(), X, y, folds=5, random_state=21, client=client,
                                 progressbar=False)
        by_address = cross_validate(_forest(), X, y, folds=5, random_state=21,
                                    client=cluster.scheduler_address, progressbar=False)
        pids = {f["worker_pid"] for f in on_dask.fold_info}
    np.testing.assert_array_equal(local.proba, serial.proba)
    np.testing.assert_array_equal(on_dask.proba, serial.proba)
    np.testing.assert_array_equal(by_address.proba, serial.proba)
    assert on_dask.info["backend"].startswith("dask.distributed")
    assert local.info["backend"] == "joblib (2 processes)"
    assert len(pids) >= 1 and all(p != __import__("os").getpid() for p in pids)


# ---------------------------------------------------------------------------------------------
# persistence and resume
# ---------------------------------------------------------------------------------------------
def test_interrupted_run_resumes(tmp_path):
    X, y = _data()
    X = X.copy()
    X[:, 0] = np.arange(len(y))  # case number, so the flaky fit knows its fold
    marker = tmp_path / "interrupt"
    marker.write_text("")
    folds = list(KFold(5).split(X))  # the last case is in the last fold
    est = FlakyNB(marker=str(marker))
    with pytest.raises(RuntimeError, match="interrupted"):
        cross_validate(est, X, y, folds=folds, random_state=0, out_dir=tmp_path / "cv",
                       progressbar=False)
    assert sorted(load_folds(tmp_path / "cv")) == [0, 1, 2, 3]
    marker.unlink()
    resumed = cross_validate(est, X, y, folds=folds, random_state=0, out_dir=tmp_path / "cv",
                             progressbar=False)
    assert resumed.info["n_resumed"] == 4 and resumed.info["n_fitted"] == 1
    fresh = cross_validate(est, X, y, folds=folds, random_state=0, progressbar=False)
    np.testing.assert_allclose(resumed.proba, fresh.proba, atol=1e-12)
    # a finished run is read back without fitting; random_state=None reuses the stored seed
    again = cross_validate(est, X, y, folds=folds, random_state=None, out_dir=tmp_path / "cv",
                           progressbar=False)
    assert again.info["n_fitted"] == 0
    np.testing.assert_allclose(again.proba, fresh.proba, atol=1e-12)


def test_resume_with_int_folds_and_stored_seed(tmp_path):
    X, y = _data()
    first = cross_validate(_forest(), X, y, folds=4, random_state=3, out_dir=tmp_path,
                           progressbar=False)
    again = cross_validate(_forest(), X, y, folds=4, out_dir=tmp_path, progressbar=False)
    assert again.info["n_fitted"] == 0
    np.testing.assert_array_equal(first.proba, again.proba)


def test_run_stored_under_the_old_module_of_its_class_resumes(tmp_path, monkeypatch):
    # a run stored before the estimators' modules became private names the class by its old
    # public module; selbayes._compat maps that module to the new one, and the run resumes
    from selbayes import _compat

    X, y = _data()
    new_module = FlakyNB.__module__
    with monkeypatch.context() as m:
        m.setattr(FlakyNB, "__module__", "selbayes_tests_old_home")
        first = cross_validate(FlakyNB(), X, y, folds=3, random_state=1, out_dir=tmp_path,
                               progressbar=False)
    with pytest.raises(ValueError, match="different settings"):
        cross_validate(FlakyNB(), X, y, folds=3, random_state=1, out_dir=tmp_path,
                       progressbar=False)
    monkeypatch.setitem(_compat.MOVED, "selbayes_tests_old_home", new_module)
    again = cross_validate(FlakyNB(), X, y, folds=3, random_state=1, out_dir=tmp_path,
                           progressbar=False)
    assert again.info["n_fitted"] == 0 and again.info["n_resumed"] == 3
    np.testing.assert_array_equal(first.proba, again.proba)


def test_out_dir_refuses_other_settings(tmp_path):
    X, y = _data()
    cross_validate(GaussianNB(), X, y, folds=3, random_state=1, out_dir=tmp_path,
                   progressbar=False)
    with pytest.raises(ValueError, match="var_smoothing"):
        cross_validate(GaussianNB(var_smoothing=1e-3), X, y, folds=3, random_state=1,
                       out_dir=tmp_path, progressbar=False)
    with pytest.raises(ValueError, match="data"):
        cross_validate(GaussianNB(), X + 1, y, folds=3, random_state=1, out_dir=tmp_path,
                       progressbar=False)
    with pytest.raises(ValueError, match="different settings"):
        cross_validate(GaussianNB(), X, y, folds=3, random_state=2, out_dir=tmp_path,
                       progressbar=False)


# ---------------------------------------------------------------------------------------------
# folds and bad input
# ---------------------------------------------------------------------------------------------
def test_make_folds():
    y = np.array([0] * 30 + [1] * 11)
    strat = make_folds(y, 5, random_state=0)
    for _, test in strat:  # stratified: class 1 spread 2-3 per fold
        assert 2 <= (y[test] == 1).sum() <= 3
    plain = make_folds(y, 20, random_state=0)  # smallest class (11) < 20 folds: KFold
    assert len(plain) == 20 and sorted(np.concatenate([t for _, t in plain])) == list(range(41))
    loo = make_folds(y, "loo")
    assert len(loo) == 41 and all(len(t) == 1 for _, t in loo)
    assert [t.tolist() for _, t in make_folds(y, 5, 7)] == \
        [t.tolist() for _, t in make_folds(y, 5, 7)]


def test_bad_input():
    X, y = _data()
    even, odd = np.arange(0, 60, 2), np.arange(1, 60, 2)
    with pytest.raises(ValueError, match="partition"):  # case 59 is never tested
        cross_validate(GaussianNB(), X, y, folds=[(odd, even), (even, odd[:-1])])
    with pytest.raises(ValueError, match="lack class"):
        cross_validate(GaussianNB(), X, y, folds=[(np.arange(20, 60), np.arange(20)),
                                                  (np.arange(20), np.arange(20, 60))])
    with pytest.raises(ValueError, match="folds"):
        cross_validate(GaussianNB(), X, y, folds="three")
    with pytest.raises(ValueError, match="folds must be between"):
        cross_validate(GaussianNB(), X, y, folds=1)
    with pytest.raises(ValueError, match="n_jobs"):
        cross_validate(GaussianNB(), X, y, n_jobs=0)
    with pytest.raises(TypeError, match="predict_proba"):
        cross_validate(object(), X, y)
    with pytest.raises(ValueError, match="one label per row"):
        cross_validate(GaussianNB(), X, y[:-1])
    with pytest.raises(TypeError, match="client"):
        cross_validate(GaussianNB(), X, y, folds=3, client=42)


def _y_with(kind):
    y = np.repeat([0.0, 1.0], 10)
    if kind == "nan":
        y[3] = np.nan
    elif kind == "none":
        y = y.astype(object)
        y[3] = None
    elif kind == "continuous":
        y = np.random.default_rng(1).normal(size=20)
    elif kind == "one class":
        y = np.zeros(20)
    elif kind == "one case":
        y = np.r_[np.zeros(10), np.ones(9), 2.0]
    return y


@pytest.mark.parametrize("kwargs, error, match", [
    ({"estimator": GaussianNB}, TypeError, r"estimator must be an estimator instance, e\.g\. "
                                           r"GaussianNB\(\)"),
    ({"out_dir": 123}, TypeError, "out_dir must be a folder's path"),
    ({"out_dir": ""}, ValueError, "out_dir must name a folder"),
    ({"out_dir": "FILE"}, ValueError, "out_dir must be a folder"),
    ({"y": "nan"}, ValueError, "y contains NaN"),
    ({"y": "none"}, ValueError, "y contains missing labels"),
    ({"y": "continuous"}, ValueError, "y holds continuous values"),
    ({"y": "one class"}, ValueError, r"y has 1 class\(es\)"),
    ({"y": "one case"}, ValueError, "y: every class needs at least 2 cases"),
    ({"progressbar": 1}, TypeError, "progressbar must be True or False"),
    ({"progressbar": "yes"}, TypeError, "progressbar must be True or False"),
    ({"random_state": -1}, ValueError, "random_state must be >= 0"),
    ({"random_state": "0"}, TypeError, "random_state must be None, an int"),
])
def test_bad_arguments_name_the_argument(kwargs, error, match, tmp_path):
    X = np.random.default_rng(0).normal(size=(20, 3))
    args = {"estimator": GaussianNB(), "y": None, "folds": 4, "progressbar": False, **kwargs}
    args["y"] = _y_with(args["y"])
    if args.get("out_dir") == "FILE":
        args["out_dir"] = tmp_path / "a_file"
        args["out_dir"].write_text("")
    with pytest.raises(error, match=match):
        cross_validate(X=X, **args)


def test_summary_amlp_is_not_floored():
    """A confidently wrong model: GaussianNB with a near-zero variance floor on two far-apart
    classes, scored on swapped labels, gives true-class probabilities far below 1e-15; the
    cross-validated AMLP must equal the unfloored mean of -log p, not -log(1e-15) = 34.5."""
    rng = np.random.default_rng(5)
    y = np.repeat(["a", "b"], 20)
    X = rng.normal(size=(40, 2)) * 0.01 + 40.0 * (y == "b")[:, None]
    est = GaussianNB(var_smoothing=1e-12)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    ref = cross_val_predict(est, X, y, cv=cv, method="predict_proba")
    res = cross_validate(est, X, y, folds=cv, random_state=0, progressbar=False)
    wrong = np.where(y == "a", 1, 0)  # the other class
    with np.errstate(divide="ignore"):
        losses = -np.log(ref[np.arange(40), wrong])
    s = calibration_summary(res.proba, wrong)
    assert s["amlp"] == pytest.approx(losses.mean()) and s["amlp"] > 34.6
    assert s["n_cases_over_5_nats"] == 40
    assert res.summary["amlp"] < 1e-6  # the right labels: near-certain and right


# ------------------------------------------------------------------------------ grouped cases
class _GroupSeen(GaussianNB):
    """GaussianNB whose fit takes groups and keeps what it was given."""

    def fit(self, X, y, groups=None):
        self.groups_seen_ = None if groups is None else np.asarray(groups)
        return super().fit(X, y)


def test_groups_keep_each_group_in_one_fold_and_reach_fit():
    """With groups the folds keep each group whole (without them some fold splits one, so the
    check can fail) and each fold's fit gets its training cases' groups; a pipeline's last
    step gets them too."""
    from sklearn.preprocessing import StandardScaler

    from selbayes.evaluation._cross_validation import fit_fold

    X, y = _data(n=60)
    pairs = np.arange(60) // 2
    cv = cross_validate(_GroupSeen(), X, y, folds=5, random_state=0, progressbar=False,
                        groups=pairs)
    assert all(set(pairs[tr]).isdisjoint(pairs[te]) for tr, te in cv.folds)
    plain = cross_validate(_GroupSeen(), X, y, folds=5, random_state=0, progressbar=False)
    assert any(not set(pairs[tr]).isdisjoint(pairs[te]) for tr, te in plain.folds)
    tr, te = cv.folds[0]
    _, _, est = fit_fold(_GroupSeen(), X, y, tr, te, return_estimator=True, groups=pairs)
    np.testing.assert_array_equal(est.groups_seen_, pairs[tr])
    _, _, pipe = fit_fold(make_pipeline(StandardScaler(), _GroupSeen()), X, y, tr, te,
                          return_estimator=True, groups=pairs)
    np.testing.assert_array_equal(pipe[-1].groups_seen_, pairs[tr])
    _, _, est = fit_fold(_GroupSeen(), X, y, tr, te, return_estimator=True)
    assert est.groups_seen_ is None


def test_groups_refusals_and_a_stored_run_with_other_groups(tmp_path):
    X, y = _data(n=42)
    pairs = np.arange(42) // 2
    with pytest.raises(ValueError, match="with groups, folds must be a number"):
        cross_validate(GaussianNB(), X, y, folds="loo", groups=pairs, progressbar=False)
    with pytest.raises(ValueError, match=r"between 2 and the number of groups \(2\)"):
        cross_validate(GaussianNB(), X, y, folds=3, groups=np.arange(42) % 2,
                       progressbar=False)
    with pytest.raises(ValueError, match="one label per case"):
        cross_validate(GaussianNB(), X, y, folds=3, groups=pairs[:-1], progressbar=False)
    cross_validate(GaussianNB(), X, y, folds=4, random_state=0, progressbar=False,
                   groups=pairs, out_dir=tmp_path / "run")
    with pytest.raises(ValueError):
        cross_validate(GaussianNB(), X, y, folds=4, random_state=0, progressbar=False,
                       groups=np.arange(42) // 4, out_dir=tmp_path / "run")


def test_y_in_another_order_than_x_is_warned_of():
    """selbayes.cross_validate pairs labels with X's rows by position, as fit does; a Series y
    holding X's sample ids in another order is warned of, as fit and evaluate warn."""
    import pandas as pd
    from sklearn.naive_bayes import GaussianNB

    from selbayes import cross_validate

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(20, 3)), index=[f"s{i}" for i in range(20)])
    y = pd.Series(np.repeat(["a", "b"], 10), index=X.index)
    with pytest.warns(UserWarning, match="y's index holds the samples of X's index in another "
                                         "order"):
        cross_validate(GaussianNB(), X, y.iloc[::-1], folds=2, random_state=0,
                       progressbar=False)


def test_per_fold_seeds_reach_a_model_inside_a_pipeline():
    """The fold seed goes to every random_state of the estimator, its nested ones included (a
    Pipeline's steps, a stack's Gaussian model): before, only a top-level random_state was
    seeded, and a model inside a Pipeline or a stack drew fresh entropy at every call."""
    from sklearn.preprocessing import StandardScaler

    X, y = _data()
    a = cross_validate(make_pipeline(StandardScaler(), _forest()), X, y, folds=4,
                       random_state=5, progressbar=False)
    b = cross_validate(make_pipeline(StandardScaler(), _forest()), X, y, folds=4,
                       random_state=5, progressbar=False)
    np.testing.assert_array_equal(a.proba, b.proba)
    assert all(f["seed"] is not None for f in a.fold_info)
    # an explicit seed anywhere in it is kept, as at the top level
    fixed = cross_validate(make_pipeline(StandardScaler(),
                                         RandomForestClassifier(n_estimators=8, random_state=1)),
                           X, y, folds=4, random_state=5, progressbar=False)
    assert all(f["seed"] is None for f in fixed.fold_info)
