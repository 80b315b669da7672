"""Cross-validated predictive probabilities, with selection refitted inside every fold.

:func:`cross_validate` fits a fresh clone of the estimator on each training fold and predicts
the held-out cases, so that feature selection, decorrelating transforms and anything else done
in ``fit`` never sees the test cases (selecting on all cases first makes every error estimate
optimistic). The out-of-fold probabilities are summarised with
:func:`selbayes.evaluation.calibration_summary`.

Folds run one after another, in local processes (joblib, ``n_jobs``) or on a dask.distributed
cluster (``client``: a ``distributed.Client`` or a scheduler address). With ``out_dir`` every
fold is written as soon as it finishes; rerunning the same call resumes an interrupted run and
refuses to mix folds of different settings.

The selbayes estimators are scikit-learn classifiers, so ``sklearn.model_selection.
cross_val_predict(est, X, y, cv=..., method="predict_proba")`` works as well; this function adds
per-fold seeds, parallel back-ends, persistence and the calibration summary.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._parallel import Task, TaskResult, TaskStore, root_seed, run_tasks, seed_state
from .._validation import check_flag, check_labels, labels_1d, warn_if_misaligned

# the folds are made in .folds (the one place); make_folds stays importable from here
from ._folds import _int_seed, make_folds
from ._folds import check_splits as _check_splits  # noqa: F401 (the name earlier code imports)

__all__ = ["cross_validate", "CrossValidationResult", "make_folds", "fit_fold", "load_folds"]

_MANIFEST = "manifest.json"
# Parameters that change how a fit reports progress, not its result.
_COSMETIC = frozenset({"progressbar", "verbose", "n_jobs"})


@dataclass
class CrossValidationResult:
    """Out-of-fold predictions of a cross-validation.

    Attributes
    ----------
    proba : ndarray of shape (n_samples, G)
        Predictive probabilities of each case from the fit that did not see it; columns follow
        ``classes``.
    classes : ndarray of shape (G,)
        Sorted class labels.
    y : ndarray of shape (n_samples,)
        True labels.
    fold : ndarray of int, shape (n_samples,)
        Fold whose test set holds each case.
    summary : dict
        :func:`selbayes.evaluation.calibration_summary` of the out-of-fold probabilities
        (error rate, expected error rate, AMLP in nats, Brier score, ECE, n).
    folds : list of (train, test) index arrays
    fold_info : list of dict
        Per fold: seed, fit and predict seconds, worker pid, and (for selbayes estimators)
        the selected features and the selection threshold gamma.
    info : dict
        ``n_fitted`` and ``n_resumed`` folds in this call, ``backend``, ``elapsed_s``.
    out_dir : Path or None
    index : pandas.Index or None
        Sample names when ``X`` was a DataFrame.

    Examples
    --------
    >>> from selbayes import BinaryNaiveBayesClassifier, cross_validate
    >>> from selbayes.datasets import binary_naive_bayes
    >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(20, 20), random_state=0)
    >>> cv = cross_validate(BinaryNaiveBayesClassifier(k=5), d.X, d.y, folds=4,
    ...                     random_state=0, progressbar=False)
    >>> cv.proba.shape, sorted(cv.summary)[:3]
    ((40, 2), ['amlp', 'brier', 'ece'])
    """

    proba: np.ndarray
    classes: np.ndarray
    y: np.ndarray
    fold: np.ndarray
    summary: dict
    folds: list
    fold_info: list = field(default_factory=list)
    info: dict = field(default_factory=dict)
    out_dir: Path | None = None
    index: pd.Index | None = None

    def predict(self, loss=None) -> np.ndarray:
        """Bayes decisions from the out-of-fold probabilities.

        Parameters
        ----------
        loss : array-like of shape (G, G), optional
            ``loss[i, j]`` is the loss of guessing j when the truth is i; None gives the most
            probable class.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels from ``classes``.

        Raises
        ------
        ValueError
            If ``loss`` does not have shape (G, G) or is not finite.

        Examples
        --------
        >>> from selbayes import BinaryNaiveBayesClassifier, cross_validate
        >>> from selbayes.datasets import binary_naive_bayes
        >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(20, 20), random_state=0)
        >>> cv = cross_validate(BinaryNaiveBayesClassifier(k=5), d.X, d.y, folds=4,
        ...                     random_state=0, progressbar=False)
        >>> bool((cv.predict(loss=[[0, 1], [9, 0]]) == 1).sum() >= (cv.predict() == 1).sum())
        True
        """
        if loss is None:
            return self.classes[np.argmax(self.proba, axis=1)]
        from ._calibration import bayes_decision

        return self.classes[bayes_decision(self.proba, loss)]

    def to_frame(self) -> pd.DataFrame:
        """One row per case: true label, fold and the probability of every class.

        Returns
        -------
        pandas.DataFrame of shape (n_samples, 2 + G)
            Columns ``y``, ``fold`` and ``P(<label>)`` per class; indexed by the sample names
            when ``X`` was a DataFrame.

        Examples
        --------
        >>> from selbayes import BinaryNaiveBayesClassifier, cross_validate
        >>> from selbayes.datasets import binary_naive_bayes
        >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(20, 20), random_state=0)
        >>> cv = cross_validate(BinaryNaiveBayesClassifier(k=5), d.X, d.y, folds=4,
        ...                     random_state=0, progressbar=False)
        >>> cv.to_frame().columns.tolist()
        ['y', 'fold', 'P(0)', 'P(1)']
        """
        df = pd.DataFrame(self.proba, columns=[f"P({c})" for c in self.classes],
                          index=self.index)
        df.insert(0, "fold", self.fold)
        df.insert(0, "y", self.y)
        return df


# ---------------------------------------------------------------------------------------------
# one fold (module level so that it pickles for joblib and dask)
# ---------------------------------------------------------------------------------------------
def _take(X, idx):
    from sklearn.utils import _safe_indexing

    return _safe_indexing(X, idx)


def fit_groups_kwargs(estimator, groups) -> dict:
    """``fit``'s keyword for the group labels of its training cases: ``groups=`` for an
    estimator whose ``fit`` takes them (the selbayes Gaussian classifier and its stacks, whose
    inner folds then keep each group whole), ``<last step>__groups=`` for one last in a
    scikit-learn ``Pipeline``; nothing for others or where ``groups`` is None.

    Parameters
    ----------
    estimator : scikit-learn estimator or Pipeline
    groups : array-like of shape (n_train,) or None

    Returns
    -------
    dict

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from selbayes import HierarchicalGaussianClassifier
    >>> list(fit_groups_kwargs(HierarchicalGaussianClassifier(), [0, 0, 1]))
    ['groups']
    >>> fit_groups_kwargs(GaussianNB(), [0, 0, 1])
    {}
    """
    import inspect

    if groups is None:
        return {}
    steps = getattr(estimator, "steps", None)
    model = steps[-1][1] if steps else estimator
    if "groups" not in inspect.signature(model.fit).parameters:
        return {}
    return {f"{steps[-1][0]}__groups" if steps else "groups": groups}


def _seed_params(estimator) -> dict:
    """``estimator``'s ``random_state`` parameters, its own and its nested estimators'
    (``get_params(deep=True)``: ``"estimator__random_state"`` of a stack,
    ``"<step>__random_state"`` of a Pipeline's steps), name -> value; a fold's seed goes to
    each, so that it reaches the model where it is wrapped."""
    return {k: v for k, v in estimator.get_params(deep=True).items()
            if k == "random_state" or k.endswith("__random_state")}


def fit_fold(estimator, X, y, train, test, classes=None, random_state=None,
             return_estimator: bool = False, groups=None):
    """Fit a clone of ``estimator`` on the training cases and predict the test cases.

    Parameters
    ----------
    estimator : scikit-learn classifier with ``predict_proba``
    X : array-like or DataFrame of shape (n_samples, p)
        All cases and all features (selection happens inside ``fit``).
    y : array-like of shape (n_samples,)
    train, test : int arrays
    classes : array-like of shape (G,), optional
        Column order of the returned probabilities (default: sorted labels of ``y``); a class
        the fit never saw gets probability 0.
    random_state : int, optional
        Set as the clone's ``random_state`` and its nested estimators' (a ``Pipeline``'s
        steps, a stack's ``estimator``) where they have that parameter.
    return_estimator : bool, default False
        Also return the fitted clone.
    groups : array-like of shape (n_samples,), optional
        A group label per case; the training cases' labels go to ``fit`` where it takes
        them (:func:`fit_groups_kwargs`).

    Returns
    -------
    proba : ndarray of shape (len(test), G)
    meta : dict
        ``fit_s``, ``predict_s``, ``worker_pid`` and, when the estimator exposes a
        ``selection_``, ``selected`` (feature indices) and ``gamma``.
    estimator : the fitted clone (only with ``return_estimator``)

    Raises
    ------
    ValueError
        If the fitted classes are not among ``classes``; errors of the estimator's ``fit``
        and ``predict_proba`` propagate.

    Examples
    --------
    >>> from selbayes import BinaryNaiveBayesClassifier
    >>> from selbayes.datasets import binary_naive_bayes
    >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(20, 20), random_state=0)
    >>> train, test = make_folds(d.y, folds=4, random_state=0)[0]
    >>> proba, meta = fit_fold(BinaryNaiveBayesClassifier(k=5), d.X, d.y, train, test)
    >>> proba.shape, len(meta["selected"])
    ((10, 2), 5)
    """
    from sklearn.base import clone

    y = np.asarray(y)
    classes = np.unique(y) if classes is None else np.asarray(classes)
    est = clone(estimator)
    if random_state is not None:
        est.set_params(**dict.fromkeys(_seed_params(est), int(random_state)))
    t0 = time.perf_counter()
    est.fit(_take(X, train), y[train],
            **fit_groups_kwargs(est, None if groups is None else np.asarray(groups)[train]))
    t1 = time.perf_counter()
    raw = np.asarray(est.predict_proba(_take(X, test)), dtype=np.float64)
    t2 = time.perf_counter()
    proba = np.zeros((len(test), len(classes)))
    cols = np.searchsorted(classes, est.classes_)
    if np.any(cols >= len(classes)) or np.any(classes[np.minimum(cols, len(classes) - 1)]
                                              != est.classes_):
        raise ValueError(f"the fitted classes {list(est.classes_)} are not among {list(classes)}")
    proba[:, cols] = raw
    meta = {"fit_s": t1 - t0, "predict_s": t2 - t1, "worker_pid": os.getpid()}
    sel = getattr(est, "selection_", None)
    if sel is not None:
        meta["selected"] = np.asarray(sel.indices).tolist()
        meta["gamma"] = float(sel.threshold)
    return (proba, meta, est) if return_estimator else (proba, meta)


def _run_fold(task, estimator, X, y, classes, splits, groups=None):
    """One fold as a task of :func:`selbayes._parallel.run_tasks`."""
    index, seed = task.params["index"], task.params["seed"]
    train, test = splits[index]
    proba, meta = fit_fold(estimator, X, y, train, test, classes, seed, groups=groups)
    return TaskResult(task.id, {"proba": proba, "test": np.asarray(test)}, {**meta, "seed": seed})


# ---------------------------------------------------------------------------------------------
# persistence
# ---------------------------------------------------------------------------------------------
def _sha(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
    return h.hexdigest()[:16]


def _data_hash(X, y) -> str:
    arr = np.asarray(X)
    try:
        body = np.ascontiguousarray(arr, dtype=np.float64).tobytes()
    except (TypeError, ValueError):
        body = repr(arr.tolist()).encode()
    return _sha(arr.shape, body, repr(np.asarray(y).tolist()))


def _estimator_settings(estimator) -> dict:
    params = {k: v for k, v in estimator.get_params(deep=False).items() if k not in _COSMETIC}
    return {"class": f"{type(estimator).__module__}.{type(estimator).__qualname__}",
            "params": json.loads(json.dumps(params, sort_keys=True, default=repr))}


def _fold_id(i: int) -> str:
    return f"fold_{i:03d}"


# ---------------------------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------------------------
def _check_args(estimator, n_jobs, out_dir=None, progressbar=True):
    if isinstance(estimator, type):
        raise TypeError(f"estimator must be an estimator instance, e.g. {estimator.__name__}(), "
                        f"not the class {estimator.__name__}")
    if not (hasattr(estimator, "fit") and hasattr(estimator, "predict_proba")
            and hasattr(estimator, "get_params")):
        raise TypeError("estimator must be a scikit-learn classifier with fit, predict_proba and "
                        f"get_params; got {type(estimator).__name__}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 \
            or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer (or -1 for all cores); got "
                         f"{n_jobs!r}")
    check_flag(progressbar, "progressbar")
    if out_dir is not None:
        if not isinstance(out_dir, str | os.PathLike) or isinstance(out_dir, bytes):
            raise TypeError(f"out_dir must be a folder's path (a str or pathlib.Path) or None; "
                            f"got {out_dir!r}")
        if not os.fspath(out_dir).strip():
            raise ValueError("out_dir must name a folder; got an empty path")
        if Path(out_dir).exists() and not Path(out_dir).is_dir():
            raise ValueError(f"out_dir must be a folder (it is made if missing); {out_dir} is a "
                             "file")


def _check_labels(y, n: int):
    """Raise unless ``y`` holds one class label per row of X (``n``), at least two classes and
    two cases of each (a class of one case is missing from the training cases of the fold that
    tests it), none missing."""
    if y.shape[0] != n:
        raise ValueError(f"y must be 1-D with one label per row of X ({n}); got shape "
                         f"{y.shape}")
    if y.dtype.kind == "f" and np.isfinite(y).all() and np.any(y != np.round(y)):
        raise ValueError(f"y holds continuous values ({np.unique(y).size} distinct values "
                         f"among {n} cases, not all whole numbers); cross_validate needs "
                         "class labels")
    check_labels(y)


def cross_validate(estimator, X, y, folds=10, random_state=None, client=None, n_jobs: int = 1,
                   out_dir=None, progressbar: bool = True, groups=None) -> CrossValidationResult:
    """Out-of-fold predictive probabilities, with all fitting (selection included) per fold.

    Parameters
    ----------
    estimator : scikit-learn classifier with ``predict_proba``
        E.g. :class:`selbayes.HierarchicalGaussianClassifier`; cloned for every fold. Feature
        selection and transforms must happen in its ``fit`` (as in the selbayes estimators, or
        a ``Pipeline``), so that they see only the training cases.
    X : array-like or DataFrame of shape (n_samples, p)
        All features.
    y : array-like of shape (n_samples,)
        Class labels.
    folds : int, "loo", scikit-learn splitter or iterable of (train, test) pairs, default 10
        See :func:`make_folds` (int: shuffled, stratified when every class has enough cases).
    random_state : int, Generator or None
        Root seed: fold ``i``'s estimator gets its own seed (spawned child ``i``) in each of
        its ``random_state`` parameters, its own and its nested estimators' (a Pipeline's
        steps, a stack's ``estimator``), where all are left at None (an explicit seed
        anywhere is kept, as in scikit-learn's ``cross_val_predict``); an int ``folds`` is
        shuffled with another child. None: fresh entropy, or the seed stored in ``out_dir``
        when resuming.
    client : distributed.Client or str, optional
        Run the folds on this dask.distributed cluster (a client or a scheduler address such
        as ``"tcp://host:8786"``); needs ``selbayes[distributed]``. Overrides ``n_jobs``.
    n_jobs : int, default 1
        Local joblib processes (-1: all cores). Folds stay in the same worker process where
        possible, so models compiled once per shape are reused.
    out_dir : path-like, optional
        Folder where every fold is saved as it finishes (``fold_<i>.npz`` and ``.json``, and a
        ``manifest.json`` of the settings); rerunning resumes, and refuses a folder holding
        another estimator, data, folds or seed.
    progressbar : bool, default True
        A progress bar over the folds (the estimator's own bar is not touched).
    groups : array-like of shape (n_samples,), optional
        A group label per case, for samples that are not independent (technical
        replicates, several samples of one patient): each group's cases fall in one fold
        (``folds`` a number: scikit-learn's ``StratifiedGroupKFold``), and each fold's
        training cases' groups go to the estimator's ``fit`` where it takes them, so that
        its inner cross-validation keeps them whole too.

    Returns
    -------
    CrossValidationResult

    Raises
    ------
    ValueError
        If ``y`` is not 1-D with one label per row of ``X``, holds missing labels (None, NaN),
        continuous values, fewer than two classes or a class of one case; ``n_jobs`` is
        invalid, the folds are invalid (see :func:`make_folds`), ``groups`` are not one label
        per case, come with ``folds`` that are not a number or are fewer than the folds,
        ``random_state`` is a negative int, or ``out_dir`` is a file or holds a different
        cross-validation.
    TypeError
        If ``estimator`` is a class (pass an instance) or lacks ``fit``/``predict_proba``/
        ``get_params``, ``client`` is neither a client nor an address, ``out_dir`` is not a
        path, ``progressbar`` is not a bool, ``random_state`` is of another type, or the
        labels of ``y`` cannot be compared.
    ImportError
        If ``client`` is given but dask.distributed is not installed.

    Examples
    --------
    >>> from selbayes import HierarchicalGaussianClassifier, cross_validate
    >>> clf = HierarchicalGaussianClassifier(k=10, decorrelate=10.0, progressbar=False)
    >>> cv = cross_validate(clf, X, y, folds=20, random_state=1, n_jobs=2)  # doctest: +SKIP
    >>> cv.summary["amlp"], cv.summary["expected_error_rate"]               # doctest: +SKIP
    """
    from ._calibration import calibration_summary

    _check_args(estimator, n_jobs, out_dir, progressbar)
    warn_if_misaligned(X, y)
    if groups is not None:
        warn_if_misaligned(X, groups, name="groups")
    index = X.index if isinstance(X, pd.DataFrame) else None
    y_arr = labels_1d(y)
    n = np.shape(X)[0]
    _check_labels(y_arr, n)
    classes = np.unique(y_arr)
    if client is not None and not isinstance(client, str) and type(client).__name__ != "Client":
        raise TypeError(f"client must be a distributed.Client or a scheduler address; got "
                        f"{type(client).__name__}")
    out_path = None if out_dir is None else Path(out_dir)
    stored = None if out_path is None else TaskStore.read_settings(out_path, _MANIFEST)
    root = root_seed(random_state, stored)
    split_ss, fit_ss = root.spawn(2)
    codes = None
    if groups is None:
        splits = make_folds(y_arr, folds, _int_seed(split_ss))
    else:
        splits, codes = _grouped_splits(y_arr, folds, _int_seed(split_ss), groups)
    seed_params = _seed_params(estimator)
    # an explicit seed anywhere in the estimator is kept (scikit-learn's cross_val_predict)
    seeded = bool(seed_params) and all(v is None for v in seed_params.values())
    seeds = [_int_seed(s) if seeded else None for s in fit_ss.spawn(len(splits))]

    store = None
    if out_path is not None:
        est_settings = _estimator_settings(estimator)
        if stored is not None:
            from .._compat import current_name

            # a run stored before a module moved (the estimators' modules became private)
            # names the estimator's class by its old module: the same class under its old name
            # keeps the stored name (and hash)
            old = (stored.get("estimator") or {}).get("class")
            if old != est_settings["class"] and current_name(old) == est_settings["class"]:
                est_settings["class"] = old
        store = TaskStore(out_path, {
            "estimator": est_settings, "data": _data_hash(X, y_arr),
            "n_samples": int(n), "classes": [str(c) for c in classes], "n_folds": len(splits),
            "folds": _sha(*(tr.tobytes() + b"|" + te.tobytes() for tr, te in splits)),
            # grouped fits differ (their inner folds keep the groups whole)
            **({} if codes is None else {"groups": _sha(codes.tobytes())}),
            **seed_state(root)},
            manifest=_MANIFEST, what="cross-validation")
    tasks = [Task(_fold_id(i), {"index": i, "seed": seeds[i]}) for i in range(len(splits))]
    results, info = run_tasks(_run_fold, tasks, store,
                              args=(estimator, X, y_arr, classes, splits, codes),
                              n_jobs=n_jobs,
                              scheduler=client, progressbar=progressbar,
                              desc="cross-validation", unit="fold")
    done = {i: results[t.id] for i, t in enumerate(tasks)}
    proba = np.full((n, len(classes)), np.nan)
    fold_of = np.full(n, -1, dtype=np.int64)
    for i, rec in done.items():
        proba[rec.arrays["test"]] = rec.arrays["proba"]
        fold_of[rec.arrays["test"]] = i
    y_index = np.searchsorted(classes, y_arr)
    return CrossValidationResult(
        proba=proba, classes=classes, y=y_arr, fold=fold_of,
        summary=calibration_summary(proba, y_index), folds=splits,
        fold_info=[{"fold": i, **done[i].meta} for i in range(len(splits))], info=info,
        out_dir=out_path, index=index)


def _grouped_splits(y, folds, seed: int, groups):
    """(checked folds with each group's cases in one fold, the group codes): the one split of
    :func:`~selbayes.evaluation._folds.repeated_stratified_folds` with ``groups``."""
    from ._folds import group_codes, repeated_stratified_folds

    codes = group_codes(groups, len(y))
    if isinstance(folds, bool) or not isinstance(folds, numbers.Integral):
        raise ValueError(f"with groups, folds must be a number (the folds are then made with "
                         f"each group's cases in one fold); got {folds!r}")
    n_groups = int(codes.max()) + 1
    if not 2 <= int(folds) <= n_groups:
        raise ValueError(f"folds must be between 2 and the number of groups ({n_groups}); "
                         f"got {folds}")
    y_index = np.unique(y, return_inverse=True)[1]
    (_, splits), = repeated_stratified_folds(y_index, int(folds), 1, seed, groups=codes)
    return splits, codes


def load_folds(out_dir) -> dict[int, dict]:
    """The fold records saved in ``out_dir``, without fitting anything.

    For inspecting a run of :func:`cross_validate` that has not finished.

    Parameters
    ----------
    out_dir : path-like
        The ``out_dir`` given to :func:`cross_validate`.

    Returns
    -------
    dict of int to dict
        ``{fold: {"proba": ndarray (n_test, G), "test": int ndarray (n_test,), "meta": dict}}``
        for every fold saved so far.

    Raises
    ------
    FileNotFoundError
        If ``out_dir`` holds no cross-validation manifest.

    Examples
    --------
    >>> import tempfile
    >>> from selbayes import BinaryNaiveBayesClassifier
    >>> from selbayes.datasets import binary_naive_bayes
    >>> d = binary_naive_bayes(None, 200, alpha=30.0, class_counts=(20, 20), random_state=0)
    >>> out = tempfile.mkdtemp()
    >>> _ = cross_validate(BinaryNaiveBayesClassifier(k=5), d.X, d.y, folds=4, random_state=0,
    ...                    out_dir=out, progressbar=False)
    >>> sorted(load_folds(out))
    [0, 1, 2, 3]
    """
    out_path = Path(out_dir)
    settings = TaskStore.read_settings(out_path, _MANIFEST)
    if settings is None:
        raise FileNotFoundError(f"{out_path} holds no cross-validation (no {_MANIFEST})")
    store = TaskStore(out_path, settings, manifest=_MANIFEST, what="cross-validation")
    out = {}
    for i in range(settings["n_folds"]):
        rec = store.load_id(_fold_id(i))
        if rec is not None:
            out[i] = {"proba": rec.arrays["proba"], "test": rec.arrays["test"], "meta": rec.meta}
    return out
