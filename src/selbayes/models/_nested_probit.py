"""Bayesian probit regressions of all features for any number of classes: nested dichotomies.

A nested dichotomy is a binary tree with the classes as leaves: the root splits the classes
into two groups, each group is split again, down to single classes. Its model of the labels is

    P(y = c | x) = prod over the internal nodes on c's path of P(branch towards c | x, node),

each factor the binary probit regression of all features of
:func:`selbayes.models.fit_linear_probit` (its own weights, intercept and prior scale s,
independent a priori between nodes), for the question "which of the node's two groups?" asked
of a case whose class is one of the node's. The likelihood of the training labels is then a
product over the nodes, each factor involving only that node's parameters and the training
cases of its classes, so the posterior factorises too: the tree's posterior predictive is
exactly the product of its nodes' binary predictives, each fitted by expectation propagation
on the cases of the node's classes (Frank and Kramer 2004 use the same factorisation with point
estimates). The features are standardised once, by all training cases, and shared by the nodes.

No tree is the right one. The predictive averages the trees' predictives with equal weights:
all of them when there are at most ``max_trees`` ((2K - 3)!! for K classes: 1, 3, 15, 105,
...), otherwise ``max_trees`` distinct trees drawn by splitting each node's classes at random
(Frank and Kramer's ensemble of nested dichotomies). Equal weights, not the trees' marginal
likelihoods: the average is a fixed ensemble over a choice no data decide well at these sample
sizes, not a posterior over trees. With two classes there is one tree of one node, and the
fit is :func:`fit_linear_probit`'s.

References
----------
Frank, E. and Kramer, S. (2004). Ensembles of nested dichotomies for multi-class problems.
Proceedings of the 21st International Conference on Machine Learning, 305-312. Rasmussen, C. E.
and Williams, C. K. I. (2006). Gaussian Processes for Machine Learning. MIT Press, ch. 3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from .._validation import (
    check_int,
    check_positive_int,
    check_random_state,
    whole_numbers_as_int,
)
from ._linear_probit import (
    LOG_S_GRID,
    _check_training_data,
    check_min_weight,
    fit_gram,
    gram_log_proba,
    standardise_features,
    standardise_test,
)

__all__ = ["fit_nested_probit", "NestedProbitFit", "nested_dichotomies", "MAX_TREES"]

#: All trees are used up to this many (every tree of up to four classes); beyond it, this many
#: drawn at random.
MAX_TREES = 15


def _n_trees(n_classes: int) -> int:
    """(2K - 3)!!: the number of nested dichotomies of K classes."""
    out = 1
    for j in range(3, 2 * n_classes - 2, 2):
        out *= j
    return out


def _all_trees(classes: tuple) -> list:
    """Every nested dichotomy of ``classes``: lists of (left, right) splits, the left group
    holding the smallest class (each split once)."""
    if len(classes) == 1:
        return [[]]
    first, rest = classes[0], classes[1:]
    trees = []
    for mask in range(2 ** len(rest) - 1):             # the right group is never empty
        left = (first, *(c for i, c in enumerate(rest) if mask >> i & 1))
        right = tuple(c for i, c in enumerate(rest) if not mask >> i & 1)
        trees += [[(left, right), *a, *b] for a in _all_trees(left) for b in _all_trees(right)]
    return trees


def _random_tree(classes: tuple, rng) -> list:
    """One nested dichotomy, each node's classes split at random into two non-empty groups."""
    if len(classes) == 1:
        return []
    while True:
        side = rng.integers(0, 2, len(classes))
        if 0 < side.sum() < len(classes):
            break
    if side[0]:                                         # the smallest class on the left
        side = 1 - side
    left = tuple(c for c, s in zip(classes, side, strict=True) if s == 0)
    right = tuple(c for c, s in zip(classes, side, strict=True) if s == 1)
    return [(left, right), *_random_tree(left, rng), *_random_tree(right, rng)]


def nested_dichotomies(n_classes: int, *, max_trees: int = MAX_TREES, random_state=None):
    """The trees the predictive averages over (module docstring).

    Parameters
    ----------
    n_classes : int
        K >= 2.
    max_trees : int
        All (2K - 3)!! trees when there are at most this many, else this many distinct trees
        drawn at random.
    random_state : int, numpy.random.Generator or None
        For the draws (used only when not all trees are taken).

    Returns
    -------
    list of list of (tuple, tuple)
        Each tree as its K - 1 splits (left classes, right classes), root first.

    Raises
    ------
    ValueError
        If ``n_classes`` is not an integer >= 2, ``max_trees`` not a positive integer, or
        ``random_state`` a negative int.
    TypeError
        If ``random_state`` is not None, an int or a numpy Generator.

    Examples
    --------
    >>> [len(nested_dichotomies(k)) for k in (2, 3, 4)]
    [1, 3, 15]
    >>> nested_dichotomies(3)[0]
    [((0,), (1, 2)), ((1,), (2,))]
    >>> len(nested_dichotomies(6, max_trees=10, random_state=0))
    10
    """
    n_classes = check_int(n_classes, name="n_classes", low=2,
                          what="nested dichotomies need two classes or more")
    max_trees = check_positive_int(max_trees, name="max_trees", what="trees averaged over")
    rng = check_random_state(random_state)
    classes = tuple(range(n_classes))
    if _n_trees(n_classes) <= max_trees:
        return _all_trees(classes)
    seen, trees = set(), []
    while len(trees) < max_trees:
        tree = _random_tree(classes, rng)
        key = tuple(sorted(tree))
        if key not in seen:
            seen.add(key)
            trees.append(tree)
    return trees


@dataclass
class NestedProbitFit:
    """A fitted :func:`fit_nested_probit`: the shared standardisation, every distinct split's
    binary fit, and the trees.

    Attributes
    ----------
    mean, sd : ndarray of shape (p_all,)
        Training means and standard deviations of every feature (data units).
    keep : ndarray of bool, shape (p_all,)
        The features with variation.
    Z : ndarray of shape (n, p)
        The standardised training values of the kept features.
    y : ndarray of int, shape (n,)
        Training class indices 0 .. K-1.
    n_classes : int
    splits : list of (tuple, tuple)
        The distinct splits (left classes, right classes) of all trees.
    log_s : ndarray of shape (n_grid,)
        The grid of log s.
    weights : ndarray of shape (n_splits, n_grid)
        Each split's posterior weights of the grid.
    sites : list of list of (nu, tau) or None
        Each split's EP sites per grid point, over the training cases of its classes.
    trees : list of tuple of int
        Each tree as indices into ``splits``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 10); X = rng.normal(size=(30, 40)); X[:, 0] += 2 * y
    >>> fit = fit_nested_probit(X, y)
    >>> len(fit.splits), len(fit.trees), fit.predict_log_proba(X[:2]).shape
    (6, 3, (2, 3))
    """

    mean: np.ndarray
    sd: np.ndarray
    keep: np.ndarray
    Z: np.ndarray
    y: np.ndarray
    n_classes: int
    splits: list
    log_s: np.ndarray
    weights: np.ndarray
    sites: list
    trees: list

    def standardise(self, X) -> np.ndarray:
        """The kept features of ``X`` (m, p_all) standardised as the training ones
        (:func:`selbayes.models._linear_probit.standardise_test`)."""
        return standardise_test(X, self.mean, self.sd, self.keep)

    def split_cases(self, j: int) -> np.ndarray:
        """Indices of the training cases whose class is one of split ``j``'s."""
        left, right = self.splits[j]
        return np.flatnonzero(np.isin(self.y, left + right))

    def predict_log_proba(self, X) -> np.ndarray:
        """log P(class | x) of test cases, (m, K): each tree's product of its splits'
        predictives, averaged over the trees with equal weights (in log space).

        Examples
        --------
        >>> import numpy as np
        >>> X = np.random.default_rng(1).normal(size=(24, 30)); y = np.arange(24) % 4
        >>> X[:, 1] += 3 * y
        >>> lp = fit_nested_probit(X, y).predict_log_proba(X[:2])
        >>> np.exp(lp).sum(axis=1).round(12), lp.argmax(axis=1)
        (array([1., 1.]), array([0, 1]))
        """
        Zs = self.standardise(X)
        p = self.Z.shape[1]
        G0 = self.Z @ self.Z.T / p
        G0s = Zs @ self.Z.T / p
        g0ss = (Zs ** 2).sum(1) / p
        # each split's log P(left group), log P(right group): (n_splits, m, 2)
        branch = []
        for j in range(len(self.splits)):
            c = self.split_cases(j)
            branch.append(gram_log_proba(G0[np.ix_(c, c)], G0s[:, c], g0ss, self.log_s,
                                         self.weights[j], self.sites[j]))
        per_tree = np.zeros((len(self.trees), Zs.shape[0], self.n_classes))
        for t, tree in enumerate(self.trees):
            for j in tree:
                left, right = self.splits[j]
                per_tree[t][:, list(left)] += branch[j][:, [0]]
                per_tree[t][:, list(right)] += branch[j][:, [1]]
        return logsumexp(per_tree, axis=0) - np.log(len(self.trees))


def fit_nested_probit(X, y, *, max_trees: int = MAX_TREES, random_state=None,
                      min_weight: float = 1e-8) -> NestedProbitFit:
    """Fit the all-features probit regressions of an ensemble of nested dichotomies (module
    docstring).

    Parameters
    ----------
    X : array-like of shape (n, p_all)
        Training values (any units: each feature is standardised by all training cases).
    y : array-like of shape (n,)
        Class index 0 .. K-1 of each training case, every class present, K >= 2.
    max_trees : int
        All trees when there are at most this many (K <= 4 at the default), else this many
        drawn at random.
    random_state : int, numpy.random.Generator or None
        For the trees' draws (K >= 5 at the default).
    min_weight : float
        Grid points of s with a smaller posterior weight are dropped from a split's predictive.

    Returns
    -------
    NestedProbitFit

    Raises
    ------
    ValueError
        If ``X`` is not a finite 2-D array, ``y`` is not 0 .. K-1 with every class present,
        K >= 2 and one label per row of ``X``, no feature varies, ``max_trees`` is not a
        positive integer, ``min_weight`` is not in [0, 1) or ``random_state`` is a negative
        int.
    TypeError
        If ``X`` is not numeric, ``min_weight`` not a number, or ``random_state`` not None,
        an int or a numpy Generator.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2, 3], 8); X = rng.normal(size=(32, 40)); X[:, 0] += 2 * y
    >>> fit = fit_nested_probit(X, y)
    >>> len(fit.trees), len(fit.splits)
    (15, 25)
    """
    X, y = _check_training_data(X, y)
    # 0.0, 1.0, ... and False/True are class indices too, as for fit_linear_probit
    y = y.astype(np.int64) if y.dtype.kind == "b" else whole_numbers_as_int(y)
    classes = np.unique(y)
    if (classes.size < 2 or not np.issubdtype(y.dtype, np.integer)
            or not np.array_equal(classes, np.arange(classes.size))):
        raise ValueError("y: the nested probit regressions need class indices 0 .. K-1, every "
                         f"class present and K >= 2; got the values {classes[:10].tolist()}")
    min_weight = check_min_weight(min_weight)
    # checked before any fit (nested_dichotomies draws from it only for K >= 5)
    check_positive_int(max_trees, name="max_trees", what="trees averaged over")
    rng = check_random_state(random_state)
    mean, sd, keep, Z = standardise_features(X)
    G0 = Z @ Z.T / Z.shape[1]
    trees = nested_dichotomies(classes.size, max_trees=max_trees, random_state=rng)
    splits, index, weights, sites = [], {}, [], []
    for tree in trees:
        for split in tree:
            if split in index:
                continue
            index[split] = len(splits)
            splits.append(split)
            c = np.flatnonzero(np.isin(y, split[0] + split[1]))
            y_pm = np.where(np.isin(y[c], split[1]), 1.0, -1.0)
            w, s = fit_gram(G0[np.ix_(c, c)], y_pm, min_weight=min_weight)
            weights.append(w)
            sites.append(s)
    return NestedProbitFit(mean=mean, sd=sd, keep=keep, Z=Z, y=y.astype(np.int64),
                           n_classes=int(classes.size), splits=splits, log_s=LOG_S_GRID.copy(),
                           weights=np.asarray(weights), sites=sites,
                           trees=[tuple(index[s] for s in tree) for tree in trees])
