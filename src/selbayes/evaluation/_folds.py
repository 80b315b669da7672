"""Cross-validation folds: the one place selbayes makes them.

Every cross-validation of the package takes its folds from here, so that "fold" means the same
split wherever the same seed is given: :func:`make_folds` for
:func:`selbayes.evaluation.cross_validate` and the CV experiments, :func:`repeated_stratified_folds`
for the benchmark, :func:`stratified_folds` and :func:`stratified_splitter` for inner
cross-validation (choosing k, the baselines' grid searches). All of them shuffle with
scikit-learn's ``KFold`` / ``StratifiedKFold``, so a seed gives the folds those classes give.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._parallel import root_seed

__all__ = ["make_folds", "check_splits", "stratified_folds", "stratified_splitter",
           "inner_splitter",
           "repeated_stratified_folds", "group_codes"]


def _int_seed(ss: np.random.SeedSequence) -> int:
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def make_folds(y, folds=10, random_state=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Training and test indices of each fold.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels.
    folds : int, "loo", scikit-learn splitter, or iterable of (train, test) index arrays
        An int K gives K shuffled folds, stratified by class when every class has at least K
        cases (``StratifiedKFold``) and plain ``KFold`` otherwise (e.g. 20 folds of SRBCT,
        whose smallest class has 11 cases). "loo" is leave-one-out. A splitter's
        ``split(X, y)`` is used as is.
    random_state : int, Generator or None
        Shuffling seed for int ``folds`` (an int >= 0).

    Returns
    -------
    list of (train, test) int64 arrays
        Test sets partition the cases; every training set holds every class.

    Raises
    ------
    ValueError
        If an int ``folds`` is below 2 or above the number of cases, the test sets do not
        partition the cases, folds overlap, a training set lacks a class, or ``random_state``
        is a negative int.
    TypeError
        If ``folds`` or ``random_state`` is of an unsupported type.

    Examples
    --------
    >>> import numpy as np
    >>> splits = make_folds(np.repeat([0, 1], 10), folds=4, random_state=0)
    >>> len(splits), [len(test) for _, test in splits]
    (4, [5, 5, 5, 5])
    """
    from sklearn.model_selection import KFold, LeaveOneOut, StratifiedKFold

    if not isinstance(random_state, np.random.Generator | type(None)):
        root_seed(random_state)     # cross_validate's check: a negative int or another type
    y = np.asarray(y)
    n = y.shape[0]
    classes, y_index, counts = np.unique(y, return_inverse=True, return_counts=True)
    if isinstance(folds, str):
        if folds.lower() not in ("loo", "leave-one-out"):
            raise ValueError(f"folds must be an int, 'loo', a splitter or a list of (train, "
                             f"test) pairs; got {folds!r}")
        splits = list(LeaveOneOut().split(np.zeros((n, 1))))
    elif isinstance(folds, numbers.Integral) and not isinstance(folds, bool):
        if not 2 <= folds <= n:
            raise ValueError(f"folds must be between 2 and the number of cases ({n}); got "
                             f"{folds}")
        seed = random_state
        if not (seed is None or isinstance(seed, numbers.Integral) and seed < 2**32):
            seed = _int_seed(root_seed(seed))       # scikit-learn takes seeds below 2**32
        cls = StratifiedKFold if counts.min() >= folds else KFold
        splits = list(cls(int(folds), shuffle=True, random_state=seed)
                      .split(np.zeros((n, 1)), y_index))
    elif hasattr(folds, "split"):
        splits = list(folds.split(np.zeros((n, 1)), y_index))
    else:
        try:
            splits = [(train, test) for train, test in folds]
        except (TypeError, ValueError) as exc:
            raise TypeError("folds must be an int, 'loo', a splitter with split(X, y) or an "
                            f"iterable of (train, test) index pairs; got {folds!r}") from exc
    return check_splits(splits, y_index, classes)


def check_splits(splits, y_index, classes) -> list[tuple[np.ndarray, np.ndarray]]:
    """Check that ``splits`` are valid cross-validation folds; return them as int64 arrays.

    Parameters
    ----------
    splits : sequence of (train, test) index arrays
    y_index : int ndarray of shape (n_samples,)
        Class index (0..G-1) of every case.
    classes : ndarray of shape (G,)
        The class labels, for the messages.

    Returns
    -------
    list of (train, test) int64 arrays

    Raises
    ------
    ValueError
        If there are fewer than 2 folds, an index set is empty or out of range, a fold's
        training and test cases overlap, a training set lacks a class, or the test sets do not
        partition the cases.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 0, 1, 1])
    >>> len(check_splits([([1, 3], [0, 2]), ([0, 2], [1, 3])], y, np.array(["a", "b"])))
    2
    >>> check_splits([([0, 1], [2, 3]), ([2, 3], [0, 1])], y, np.array(["a", "b"]))
    Traceback (most recent call last):
    ValueError: fold 0: the training cases lack class(es) ['b']; use fewer folds or stratified folds
    """
    n = y_index.shape[0]
    if len(splits) < 2:
        raise ValueError(f"folds gives {len(splits)} fold(s); at least 2 are needed")
    seen = np.zeros(n, dtype=np.int64)
    out = []
    for i, (train, test) in enumerate(splits):
        train = np.asarray(train, dtype=np.int64).ravel()
        test = np.asarray(test, dtype=np.int64).ravel()
        for name, idx in (("train", train), ("test", test)):
            if idx.size == 0 or idx.min() < 0 or idx.max() >= n:
                raise ValueError(f"fold {i}: {name} indices must be non-empty and within "
                                 f"0..{n - 1}")
        if np.intersect1d(train, test).size:
            raise ValueError(f"fold {i}: training and test cases overlap")
        missing = np.setdiff1d(np.arange(len(classes)), y_index[train])
        if missing.size:
            raise ValueError(f"fold {i}: the training cases lack class(es) "
                             f"{classes[missing].tolist()}; use fewer folds or stratified folds")
        seen[test] += 1
        out.append((train, test))
    if not np.all(seen == 1):
        raise ValueError(f"the test sets must partition the cases: {int((seen == 0).sum())} "
                         f"case(s) are never tested and {int((seen > 1).sum())} more than once")
    return out


def stratified_splitter(n_splits, random_state=None):
    """A shuffled stratified K-fold splitter, for scikit-learn's ``cv=`` arguments.

    Used where the folds are made later on data not known yet (``GridSearchCV``,
    ``LogisticRegressionCV``, ``CalibratedClassifierCV`` inside a training fold).

    Parameters
    ----------
    n_splits : int
        Number of folds, >= 2.
    random_state : int or None
        Shuffling seed.

    Returns
    -------
    sklearn.model_selection.StratifiedKFold
        ``StratifiedKFold(n_splits, shuffle=True, random_state=random_state)``.

    Examples
    --------
    >>> stratified_splitter(3, random_state=0)
    StratifiedKFold(n_splits=3, random_state=0, shuffle=True)
    """
    from sklearn.model_selection import StratifiedKFold

    return StratifiedKFold(n_splits, shuffle=True, random_state=random_state)


def inner_splitter(folds, random_state=None):
    """The ``cv=`` of a search inside a training fold: :func:`stratified_splitter` for a
    number of folds, or the folds themselves (made already, for example with each group's
    cases in one fold) as a list, which scikit-learn's searches take as they are.

    Parameters
    ----------
    folds : int or sequence of (train, test) index arrays
        A number of folds (>= 2), or the folds of the cases the search will be fitted to.
    random_state : int or None
        Shuffling seed of the stratified folds (unused with folds given).

    Returns
    -------
    sklearn.model_selection.StratifiedKFold or list of (train, test) tuples

    Raises
    ------
    ValueError
        If ``folds`` is a sequence of fewer than two (train, test) pairs.

    Examples
    --------
    >>> inner_splitter(3, random_state=0)
    StratifiedKFold(n_splits=3, random_state=0, shuffle=True)
    >>> len(inner_splitter([([0, 1], [2, 3]), ([2, 3], [0, 1])]))
    2
    """
    if isinstance(folds, numbers.Integral):
        return stratified_splitter(int(folds), random_state)
    out = [(np.asarray(tr, dtype=np.int64), np.asarray(te, dtype=np.int64)) for tr, te in folds]
    if len(out) < 2:
        raise ValueError(f"folds gives {len(out)} (train, test) pair(s); at least 2 are needed")
    return out


def stratified_folds(y_index, n_splits, random_state=None, *, small_classes_ok: bool = False,
                     groups=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) folds of a shuffled stratified K-fold split of the cases.

    Parameters
    ----------
    y_index : int array-like of shape (n_samples,)
        Class of every case.
    n_splits : int
        Number of folds, >= 2.
    random_state : int or None
        Shuffling seed.
    small_classes_ok : bool
        Silence scikit-learn's warning that a class has fewer than ``n_splits`` cases (each of
        its cases then lands in a different fold).
    groups : int array-like of shape (n_samples,), optional
        Group codes (:func:`group_codes`): the cases of one group fall in the same fold
        (scikit-learn's ``StratifiedGroupKFold`` with the same shuffling seed).

    Returns
    -------
    list of (train, test) int arrays
        Unchecked (see :func:`check_splits`).

    Examples
    --------
    >>> folds = stratified_folds([0, 0, 0, 1, 1, 1], 3, random_state=0)
    >>> [sorted(test.tolist()) for _, test in folds]
    [[2, 4], [1, 5], [0, 3]]
    """
    from sklearn.model_selection import StratifiedGroupKFold

    y_index = np.asarray(y_index)
    splitter = (stratified_splitter(n_splits, random_state) if groups is None
                else StratifiedGroupKFold(n_splits, shuffle=True, random_state=random_state))
    X = np.zeros((y_index.shape[0], 1))      # only the number of cases matters
    if not small_classes_ok:
        return list(splitter.split(X, y_index, groups))
    with warnings.catch_warnings():  # "The least populated class in y has only m members"
        warnings.simplefilter("ignore", UserWarning)
        return list(splitter.split(X, y_index, groups))


def repeated_stratified_folds(y_index, folds: int, repeats: int, seed: int, *,
                              groups=None, classes=None
                              ) -> list[tuple[int, list[tuple[np.ndarray, np.ndarray]]]]:
    """Stratified folds per repeat, also when a class has fewer cases than folds.

    (:func:`make_folds` falls back to unstratified K-fold then, which can leave a training fold
    with one case of a class; stratifying keeps at least ``count - 1``.) Repeat ``r`` shuffles
    with the ``r``-th child of ``SeedSequence(seed)``. Where every class has at least ``folds``
    cases each repeat's splits equal ``make_folds(y_index, folds, seed_r)`` with that child's
    seed.

    With ``groups`` the cases of one group always fall in the same fold (scikit-learn's
    ``StratifiedGroupKFold``, shuffled with the same seeds; the class shares of the folds are
    then kept as nearly as whole groups allow). Samples that are not independent (technical
    replicates, two preparations of one tumour, several samples of one patient) must be
    grouped: a test case whose twin is among the training cases is scored as if a method had
    seen it, which flatters methods that fit single training cases closely.

    Parameters
    ----------
    y_index : int ndarray of shape (n_samples,)
        Class index of every case.
    folds, repeats : int
        Folds per repeat and number of repeats.
    seed : int
        Root seed.
    groups : array-like of shape (n_samples,), optional
        A group label per case (any hashable values, no missing ones); None: every case is
        its own group.
    classes : array-like of shape (G,), optional
        The class labels of the indices ``0..G-1``, for the messages (default: the indices).

    Returns
    -------
    list of (repeat, splits)
        ``splits`` a checked list of (train, test) int64 arrays (:func:`check_splits`).

    Raises
    ------
    ValueError
        If ``folds`` exceeds the number of cases (or of groups), ``groups`` is not one label
        per case or has a missing one, a class has all its cases in one group (the fold that
        tests them would train on none), or a training fold lacks a class.

    Examples
    --------
    >>> import numpy as np
    >>> (r, splits), = repeated_stratified_folds(np.repeat([0, 1], [4, 2]), 3, 1, seed=0)
    >>> r, [len(test) for _, test in splits]
    (0, [2, 2, 2])
    >>> pairs = np.repeat(np.arange(6), 2)              # cases 2i and 2i + 1 are twins
    >>> (r, splits), = repeated_stratified_folds(np.repeat([0, 1], 6), 3, 1, seed=0,
    ...                                          groups=pairs)
    >>> all(set(pairs[test]).isdisjoint(pairs[train]) for train, test in splits)
    True
    """
    y_index = np.asarray(y_index)
    labels = np.unique(y_index) if classes is None else np.asarray(classes)
    codes = None if groups is None else group_codes(groups, len(y_index))
    units = len(y_index) if codes is None else int(codes.max()) + 1
    if folds > units:
        what = "cases" if codes is None else "groups"
        raise ValueError(f"folds ({folds}) exceeds the number of {what} ({units})")
    if codes is not None:
        # a class in one group is tested in one fold with none of its cases to train on
        # (named here: the check of the folds below could only say a fold lacks it)
        whole = [c for c in np.unique(y_index) if np.unique(codes[y_index == c]).size == 1]
        if whole:
            named = ", ".join(f"{labels.tolist()[c]!r} ({int((y_index == c).sum())} cases)"
                              for c in whole)
            raise ValueError(f"class(es) {named} have all their cases in one group, so the "
                             "fold that tests them would train on none of them; give "
                             "independent samples groups of their own, or leave the class out")
    out = []
    for r, ss in enumerate(np.random.SeedSequence(seed).spawn(repeats)):
        splits = stratified_folds(y_index, folds, _int_seed(ss), small_classes_ok=True,
                                  groups=codes)
        out.append((r, check_splits(splits, y_index, labels)))
    return out


def group_codes(groups, n_samples: int) -> np.ndarray:
    """Integer codes 0 .. G-1 of the cases' group labels, checked.

    Parameters
    ----------
    groups : array-like of shape (n_samples,)
        A label per case (numbers or strings).
    n_samples : int
        The number of cases the labels must match.

    Returns
    -------
    ndarray of int64, shape (n_samples,)

    Raises
    ------
    ValueError
        If ``groups`` is not one-dimensional with ``n_samples`` labels, or a label is
        missing (None or NaN).

    Examples
    --------
    >>> group_codes(["a", "b", "a"], 3).tolist()
    [0, 1, 0]
    """
    import pandas as pd

    if np.ndim(groups) != 1 or len(groups) != n_samples:
        raise ValueError(f"groups must hold one label per case ({n_samples}); got shape "
                         f"{np.shape(groups)}")
    g = pd.Series(np.asarray(groups, dtype=object))
    if g.isna().any():
        raise ValueError(f"groups: {int(g.isna().sum())} missing label(s), e.g. at case "
                         f"{int(np.flatnonzero(g.isna())[0])}; every case needs a group")
    return pd.factorize(g.astype(str), sort=False)[0].astype(np.int64)
