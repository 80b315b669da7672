"""Declarative parameter validation for the selbayes estimators.

Each estimator declares ``_parameter_constraints`` in scikit-learn's vocabulary
(:class:`~sklearn.utils._param_validation.Interval`, ``StrOptions``, ``Options``, types,
``"boolean"``, None); :func:`validate_params` checks every parameter against them with
messages that read ``"<name> must be <allowed>; got <value>"``.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    Options,
    StrOptions,
)

__all__ = ["validate_params", "priors_constraint", "Interval", "Options", "StrOptions"]


def priors_constraint(prior_class) -> list:
    """The one constraint of ``priors``: the model's prior dataclass, a dict of its fields
    (unknown fields are refused by ``prior_class.from_dict``), or None for the defaults.

    Parameters
    ----------
    prior_class : type
        The model's prior dataclass (e.g. :class:`selbayes.models.GaussianPriors`).

    Returns
    -------
    list
        ``[prior_class, dict, None]``, for ``_parameter_constraints["priors"]``.

    Examples
    --------
    >>> from selbayes.models import NaiveBayesPrior
    >>> priors_constraint(NaiveBayesPrior)[1:]
    [<class 'dict'>, None]
    """
    return [prior_class, dict, None]


def _describe(constraint) -> str:
    """Plain-words description of one sklearn-style constraint, for error messages."""
    if constraint is None:
        return "None"
    if isinstance(constraint, Options):
        opts = sorted(constraint.options)
        return repr(opts[0]) if len(opts) == 1 else f"one of {tuple(opts)}"
    if isinstance(constraint, Interval):
        kind = "an integer" if constraint.type is numbers.Integral else "a number"
        left, right = constraint.left, constraint.right
        if left is not None and left == right:
            return f"{left}"
        parts = []
        if left is not None:
            parts.append(f"{'>=' if constraint.closed in ('left', 'both') else '>'} {left}")
        if right is not None:
            parts.append(f"{'<=' if constraint.closed in ('right', 'both') else '<'} {right}")
        return " ".join([kind, " and ".join(parts)]) if parts else kind
    if constraint == "boolean":
        return "a bool"
    if isinstance(constraint, type):
        return f"a {constraint.__name__}"
    return str(constraint)


def _satisfied(constraint, value) -> bool:
    if constraint is None:
        return value is None
    if isinstance(constraint, Options):
        return (isinstance(value, constraint.type) and not isinstance(value, bool)
                and value in constraint.options)
    if isinstance(constraint, Interval):
        if isinstance(value, bool) or not isinstance(value, constraint.type):
            return False
        return constraint.is_satisfied_by(value)
    if constraint == "boolean":
        return isinstance(value, bool | np.bool_)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    raise TypeError(f"unknown constraint {constraint!r}")  # pragma: no cover - programming error


def validate_params(estimator, skip=()) -> None:
    """Check every parameter against ``estimator._parameter_constraints``.

    A small version of scikit-learn's ``_validate_params`` whose messages read
    ``"<name> must be <allowed>; got <value>"``.

    Parameters
    ----------
    estimator : BaseEstimator
        An estimator with ``_parameter_constraints`` (parameter name -> list of constraints,
        or ``"no_validation"``).
    skip : iterable of str
        Parameters not checked (a deprecated value the caller has already warned about).

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        A subclass of both ``ValueError`` and ``TypeError``, as in scikit-learn: the first
        parameter that satisfies none of its constraints, named with what it allows.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> class Toy(BaseEstimator):
    ...     _parameter_constraints = {"k": [Interval(numbers.Integral, 1, None, closed="left")]}
    ...     def __init__(self, k=1):
    ...         self.k = k
    >>> validate_params(Toy(k=3))
    >>> validate_params(Toy(k=0))
    Traceback (most recent call last):
    ...
    sklearn.utils._param_validation.InvalidParameterError: k must be an integer >= 1; got 0
    """
    params = estimator.get_params(deep=False)
    for name, constraints in estimator._parameter_constraints.items():
        value = params[name]
        if name in skip or constraints == "no_validation" \
                or any(_satisfied(c, value) for c in constraints):
            continue
        allowed = [_describe(c) for c in constraints]
        text = allowed[0] if len(allowed) == 1 else ", ".join(allowed[:-1]) + " or " + allowed[-1]
        raise InvalidParameterError(f"{name} must be {text}; got {value!r}")
