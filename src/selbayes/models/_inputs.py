"""Checks shared by the public entry points of the models (each message names the argument).

The general ones (a finite matrix, labels, a positive number) are in
:mod:`selbayes._validation`; these are the few the models add: a seed as the models take it, a
flag, the number of classes and a vector of class indices 0..G-1.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_random_state, labels_1d

__all__ = ["check_seed", "check_flag", "check_n_classes", "check_class_index"]


def check_seed(random_state, name: str = "random_state") -> np.random.Generator:
    """``random_state`` (None, an int >= 0, a SeedSequence or a Generator) as a Generator.

    Parameters
    ----------
    random_state : None, int, numpy.random.SeedSequence or numpy.random.Generator
    name : str
        The argument's name, for the messages.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    ValueError
        If it is a negative int (numpy's own message does not name the argument).
    TypeError
        If it is a bool, a float, a string or any other type.

    Examples
    --------
    >>> int(check_seed(0).integers(10)) == int(np.random.default_rng(0).integers(10))
    True
    >>> check_seed(-1, "seed")
    Traceback (most recent call last):
    ...
    ValueError: seed must be None, an int >= 0 or a numpy Generator; got -1
    """
    expected = f"{name} must be None, an int >= 0 or a numpy Generator; got {random_state!r}"
    if isinstance(random_state, bool | np.bool_):
        raise TypeError(expected)
    if isinstance(random_state, numbers.Integral) and random_state < 0:
        raise ValueError(expected)
    try:
        return check_random_state(random_state)
    except TypeError:
        raise TypeError(expected) from None


def check_flag(value, name: str) -> bool:
    """``value`` as a bool; a string such as ``"no"`` would otherwise be read as True.

    Parameters
    ----------
    value : bool or numpy.bool_
    name : str
        The argument's name, for the message.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``value`` is not a bool.

    Examples
    --------
    >>> check_flag(np.True_, "corrected")
    True
    >>> check_flag("no", "corrected")
    Traceback (most recent call last):
    ...
    TypeError: corrected must be True or False; got 'no'
    """
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def check_n_classes(n_classes, name: str = "n_classes") -> int:
    """``n_classes`` as an int >= 2 (not a bool).

    Parameters
    ----------
    n_classes : int
    name : str
        The argument's name, for the message.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``n_classes`` is not an integer >= 2.

    Examples
    --------
    >>> check_n_classes(3)
    3
    """
    if (isinstance(n_classes, bool | np.bool_) or not isinstance(n_classes, numbers.Integral)
            or n_classes < 2):
        raise ValueError(f"{name} must be an integer >= 2 (the number of classes); "
                         f"got {n_classes!r}")
    return int(n_classes)


def check_class_index(y_index, n: int, n_classes: int, *, name: str = "y_index",
                      all_present: bool = True) -> np.ndarray:
    """Class indices 0..G-1, one per row of the training matrix, as an int64 array.

    Parameters
    ----------
    y_index : array-like of int, shape (n,)
    n : int
        Rows of the training matrix.
    n_classes : int
        G.
    name : str
        The argument's name, for the messages.
    all_present : bool
        Every class must occur (its class means are estimated).

    Returns
    -------
    ndarray of int64, shape (n,)

    Raises
    ------
    ValueError
        If ``y_index`` is not 1-D with ``n`` entries, holds anything but whole numbers in
        0..G-1 (labels must be encoded first), or (``all_present``) lacks a class.

    Examples
    --------
    >>> check_class_index([0, 1, 1], 3, 2).tolist()
    [0, 1, 1]
    >>> check_class_index([1, 2, 2], 3, 2)
    Traceback (most recent call last):
    ...
    ValueError: y_index must hold class indices 0..1 (labels encoded as ...); got 2
    """
    y = labels_1d(y_index, name)
    if y.shape[0] != n:
        raise ValueError(f"{name} has {y.shape[0]} entries but X has {n} rows; they must "
                         "match (one class index per training case)")
    if y.dtype.kind == "f" and np.isfinite(y).all() and np.all(y == np.round(y)):
        y = y.astype(np.int64)
    if y.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integer class indices 0..{n_classes - 1}; got "
                         f"dtype {y.dtype} (encode the labels first, e.g. with "
                         "numpy.unique(y, return_inverse=True))")
    bad = (y < 0) | (y >= n_classes)
    if bad.any():
        raise ValueError(f"{name} must hold class indices 0..{n_classes - 1} (labels encoded "
                         f"as positions in the sorted classes); got {y[bad][0].item()!r}")
    y = y.astype(np.int64)
    if all_present:
        missing = np.setdiff1d(np.arange(n_classes), y)
        if missing.size:
            raise ValueError(f"{name} lacks class(es) {missing.tolist()} of "
                             f"0..{n_classes - 1}: every class needs a training case")
    return y
