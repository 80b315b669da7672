"""Preprocessing of expression matrices: intensity floor, ceiling and log2, and a raw-scale check.

Microarray intensities (Affymetrix MAS5 signals, "average differences", two-colour channel
intensities) are all positive with a long right tail: a few genes are thousands of times
brighter than the median. Gaussian class models misread them: in the data's own units those few
genes dominate, and standardised each gene is still skewed, so the probabilities are
miscalibrated in ways that depend on the data (on one development set 3.5 times the log score
of log2 data, and overconfident). The usual remedy (Dudoit, Fridlyand and
Speed 2002) is to floor small or negative values, optionally cap the largest, and take logs.

:class:`IntensityLog2` does this as a stateless scikit-learn transformer (nothing is learned in
``fit``, so it can sit first in any pipeline inside cross-validation), and
:func:`looks_like_raw_intensities` / :func:`warn_if_raw_intensities` detect a matrix that still
looks like raw intensities.

References
----------
Dudoit S., Fridlyand J. and Speed T. P. (2002), Comparison of discrimination methods for the
classification of tumors using gene expression data, JASA 97:77-87 (floor 100, ceiling 16000,
log10 for the Golub data).
Golub T. R. et al. (1999), Molecular classification of cancer, Science 286:531-537.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_matrix, check_positive, check_positive_int, warn_at_user

__all__ = ["IntensityLog2", "looks_like_raw_intensities", "auto_log2_settings", "AUTO_FLOOR",
           "AUTO_FLOOR_SHARE", "auto_floor",
           "warn_if_raw_intensities",
           "RawIntensityWarning", "raw_intensity_stats", "RAW_SKEWNESS",
           "RAW_TAIL_RATIO", "log2_input_problem", "warn_if_not_intensities",
           "Log2InputWarning", "LOG2_BELOW_FLOOR_SHARE", "LOG2_MIN_RANGE"]

#: Sample skewness of the positive matrix entries above which a non-negative matrix counts as
#: raw. Log-scale expression matrices have skewness near 0 (|skew| < 1 on the eleven benchmark
#: sets); intensities 6 to 35.
RAW_SKEWNESS = 2.0
#: Ratio of the 99th percentile to the median of the positive entries above which a
#: non-negative matrix counts as raw.
#: About 2 for log2 intensities (12 / 6), 20 to 60 for raw intensities.
RAW_TAIL_RATIO = 10.0
# Skewness is estimated from at most this many entries (evenly spaced) to stay O(1) in time.
_MAX_ENTRIES = 2_000_000


def _output_config(est) -> str:
    """The estimator's ``set_output`` container for transform ("default", "pandas", ...)."""
    from sklearn.utils._set_output import _get_output_config

    return _get_output_config("transform", est)["dense"]


class RawIntensityWarning(UserWarning):
    """X looks like raw (unlogged) intensities; take logs first."""


class IntensityLog2(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Floor, optionally cap, and take log2 of intensity data: ``log2(clip(X, floor, ceiling))``.

    Stateless unless ``only_if_raw``: ``fit`` only checks the input and records the number (and
    names) of features, so the transformer can be fitted inside every cross-validation fold at
    no cost.

    Parameters
    ----------
    floor : float, "auto" or None, default 1.0
        Values below ``floor`` (including zeros and the negative "average differences" of old
        Affymetrix software) are raised to it before the log. Must be > 0. ``"auto"``: the
        floor of the commands' ``--transform auto`` (:func:`auto_floor`: 1, or the 10th
        percentile of the training values that are positive where that is lower, so that
        intensities in other units are not flattened), decided at ``fit``. None applies no
        floor, and then every value must be positive.
    ceiling : float or None, default None
        Values above ``ceiling`` are lowered to it (Golub data: 16000, the scanner's
        saturation). Must exceed ``floor``.
    only_if_raw : bool, default False
        Take logs only where the training matrix looks like raw intensities
        (:func:`looks_like_raw_intensities`, the values alone, never the labels); otherwise
        pass the values through. ``fit`` decides (``applied_``) and ``transform`` follows it.
        ``IntensityLog2(only_if_raw=True, floor="auto")`` in front of a classifier is the
        rule of the commands' ``--transform auto`` (:func:`auto_log2_settings`), decided on
        each training fold instead of once on the whole matrix.

    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names.
    applied_ : bool
        Whether ``transform`` takes logs (always True unless ``only_if_raw``).
    floor_ : float or None
        The floor ``transform`` applies (``floor``, or the one ``"auto"`` chose).

    Examples
    --------
    >>> import numpy as np
    >>> IntensityLog2(floor=100, ceiling=16000).fit_transform(np.array([[-5.0, 400.0, 1e5]]))
    array([[ 6.64385619,  8.64385619, 13.96578428]])
    >>> raw = np.random.default_rng(0).lognormal(4, 1.5, size=(20, 500))
    >>> IntensityLog2(only_if_raw=True).fit(raw).applied_
    True
    >>> IntensityLog2(only_if_raw=True).fit(np.log2(raw)).applied_
    False
    >>> float(IntensityLog2(floor="auto").fit(raw / 1000).floor_) < 1
    True
    """

    def __init__(self, floor: float | str | None = 1.0, ceiling: float | None = None,
                 only_if_raw: bool = False):
        self.floor = floor
        self.ceiling = ceiling
        self.only_if_raw = only_if_raw

    def _check_params(self) -> None:
        if not isinstance(self.only_if_raw, bool | np.bool_):
            raise ValueError(f"only_if_raw must be True or False; got {self.only_if_raw!r}")
        auto = isinstance(self.floor, str) and self.floor == "auto"
        _check_bound(None if auto else self.floor, "floor", ", None or 'auto'")
        _check_bound(self.ceiling, "ceiling", " or None")

    def fit(self, X, y=None):
        """Check the parameters and ``X``; decide whether to take logs (``applied_``, with
        ``only_if_raw``) and the floor (``floor_``, chosen from ``X`` with ``floor="auto"``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : IntensityLog2

        Raises
        ------
        ValueError
            If ``floor``/``ceiling`` are not positive (or a string other than ``"auto"``),
            ``ceiling <= floor`` (the floor ``"auto"`` chose included), or ``X`` is not a 2-D
            matrix or holds NaN/inf (the first is located).
        TypeError
            If ``floor``/``ceiling`` is a bool or another non-number, or ``X`` is not numeric
            (a DataFrame's text columns are named).
        """
        self._check_params()
        check_matrix(X, name="X")        # messages that name X, its text columns, its NaN
        values = validate_data(self, X, dtype=np.float64, ensure_all_finite=True)
        self.applied_ = not self.only_if_raw or looks_like_raw_intensities(values)
        self.floor_ = (auto_floor(values) if isinstance(self.floor, str)
                       else None if self.floor is None else float(self.floor))
        # one check for a given floor and the one "auto" chose from X
        if self.ceiling is not None and self.floor_ is not None and self.ceiling <= self.floor_:
            chosen = ", chosen by floor='auto'" if isinstance(self.floor, str) else ""
            raise ValueError(f"ceiling ({self.ceiling:g}) must exceed the floor "
                             f"({self.floor_:g}{chosen})")
        problem = (log2_input_problem(values, self.floor_, self.ceiling) if self.applied_
                   else None)
        if problem is not None:
            # the transform would flatten X (already logged or z-scored); named at the
            # user's line, past scikit-learn's pipeline
            warn_at_user(f"IntensityLog2: {problem}", Log2InputWarning)
        return self

    def transform(self, X):
        """``log2(clip(X, floor, ceiling))``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Intensities (any real values when ``floor`` is set).

        Returns
        -------
        ndarray or pandas.DataFrame of shape (n_samples, n_features)
            log2 values (the values as given where ``applied_`` is False): a DataFrame with
            the input's columns and index when ``X`` is a DataFrame (or under
            ``set_output(transform="pandas")``), else an ndarray.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit` (a ``ValueError``).
        ValueError
            If ``X`` has the wrong number of features, is not a 2-D matrix, holds NaN/inf,
            or (with ``floor=None``) a value <= 0.
        TypeError
            If ``X`` is not numeric.
        """
        check_is_fitted(self, "n_features_in_")
        check_matrix(X, name="X")
        columns = index = None
        if hasattr(X, "columns") and hasattr(X, "index") and hasattr(X, "iloc"):   # pandas
            columns, index = X.columns, X.index
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite=True, reset=False,
                          copy=True)
        applied = self.applied_
        if applied and self.floor_ is None:
            if (X <= 0).any():
                raise ValueError(f"IntensityLog2(floor=None) needs positive values; X has "
                                 f"{int((X <= 0).sum())} value(s) <= 0 (min {X.min():.4g}); "
                                 "set a floor")
        if applied:
            np.clip(X, self.floor_, self.ceiling, out=X)
        out = np.log2(X, out=X) if applied else X
        if columns is not None and _output_config(self) == "default":
            # A DataFrame in, a DataFrame out (same columns and index), so that the next step
            # of a pipeline records the gene names without set_output(transform="pandas").
            import pandas as pd

            return pd.DataFrame(out, columns=columns, index=index)
        return out

    def get_feature_names_out(self, input_features=None):
        """Output feature names: the input names, unchanged (log2 is elementwise).

        Parameters
        ----------
        input_features : array-like of str, optional
            Defaults to ``feature_names_in_`` (a DataFrame's columns at ``fit``), else
            ``x0`` ... ``x{p-1}``.

        Returns
        -------
        ndarray of str
        """
        return super().get_feature_names_out(input_features)


def _check_bound(v, name: str, also: str) -> None:
    """A floor or ceiling: None or a positive finite number (check_positive: True and "3" are
    no numbers); the message says what else it may be (``also``). A string is a ValueError,
    an unknown option ("lowest" for "auto"); other non-numbers a TypeError."""
    if v is None:
        return
    message = f"{name} must be a positive finite number{also}; got {v!r}"
    if isinstance(v, str):
        raise ValueError(message)
    try:
        check_positive(v, name=name)
    except (TypeError, ValueError) as exc:
        raise type(exc)(message) from None


def _values(X) -> np.ndarray:
    """The finite entries of ``X`` (at most :data:`_MAX_ENTRIES`, evenly spaced) as a flat
    float array; NaN and inf are left out. TypeError naming X where it is None, text or
    complex (NumPy's 'could not convert string to float', or a silent answer for None), and
    ValueError for a scalar or more than 2 dimensions."""
    if X is None:
        raise TypeError("X must be a matrix of numbers (n_samples, n_features); got None")
    if hasattr(X, "to_numpy"):
        try:
            X = X.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"X must hold numbers only ({exc}): drop its text or label "
                            "columns") from None
    arr = np.asarray(X)
    if np.iscomplexobj(arr):
        raise TypeError("X is complex; pass real numbers")
    if arr.ndim == 0 or arr.ndim > 2:
        raise ValueError(f"X must be a matrix (n_samples, n_features); got an array of shape "
                         f"{arr.shape}")
    try:
        v = np.asarray(arr, dtype=np.float64).ravel()
    except (TypeError, ValueError) as exc:
        raise TypeError(f"X must hold numbers only; got dtype {arr.dtype} ({exc})") from None
    v = v[np.isfinite(v)]
    if v.size > _MAX_ENTRIES:
        v = v[:: int(np.ceil(v.size / _MAX_ENTRIES))]
    return v


def raw_intensity_stats(X) -> dict:
    """The statistics :func:`looks_like_raw_intensities` decides on.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    dict
        ``min`` (of all finite entries); ``median``, ``q99`` (99th percentile), ``tail_ratio``
        (q99 / median) and ``skewness`` (sample skewness) of the positive entries. Zeros
        (absent calls, or the zeros of logged sparse counts, log2(x + 1)) are left out: a spike
        at 0 would otherwise read as a long right tail on logged data. NaN where there is no
        positive entry.

    Examples
    --------
    >>> raw_intensity_stats([[1.0, 2.0], [3.0, 4.0]])["median"]
    2.5
    """
    v = _values(X)
    nan = {"median": np.nan, "q99": np.nan, "tail_ratio": np.nan, "skewness": np.nan}
    if v.size == 0:
        return {"min": np.nan, **nan}
    positive = v[v > 0]
    if positive.size == 0:
        return {"min": float(v.min()), **nan}
    med, q99 = np.quantile(positive, [0.5, 0.99])
    sd = positive.std()
    skew = float(np.mean(((positive - positive.mean()) / sd) ** 3)) if sd > 0 else 0.0
    return {"min": float(v.min()), "median": float(med), "q99": float(q99),
            "tail_ratio": float(q99 / med), "skewness": skew}


def looks_like_raw_intensities(X) -> bool:
    """Whether ``X`` looks like raw (unlogged) intensities.

    True when every finite entry is >= 0 and, over the positive entries, the sample skewness
    exceeds :data:`RAW_SKEWNESS` (2) and the 99th percentile exceeds :data:`RAW_TAIL_RATIO`
    (10) times the median: a long right tail on a non-negative scale. Log-scale data (log
    ratios, log2 intensities, log2(x + 1) of counts however many zeros) have negative values or
    skewness near 0 and q99/median about 2.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> raw = np.random.default_rng(0).lognormal(4, 1.5, size=(20, 500))
    >>> looks_like_raw_intensities(raw), looks_like_raw_intensities(np.log2(raw))
    (True, False)
    """
    return _raw_from_stats(raw_intensity_stats(X))


#: The floor of ``transform="auto"``'s log2: the usual floor for MAS5-style intensities (the
#: documented preprocessing of the development sets stored as such); not fitted to data.
#: Lowered on data of a smaller scale (:data:`AUTO_FLOOR_SHARE`, :func:`auto_floor`).
AUTO_FLOOR = 1.0
#: The largest share of the positive values that ``transform="auto"`` raises to its floor:
#: where more than this share lie below :data:`AUTO_FLOOR` (intensities in other units, e.g.
#: thousands, or scaled into [0, 1]), the floor is their 10th percentile instead, so that a
#: change of units cannot flatten the matrix. Floor 1 raises 0 to 8% of the positive values
#: on the development sets stored as intensities (a statistic of the values only; these sets'
#: results do not depend on it).
AUTO_FLOOR_SHARE = 0.1


def auto_floor(X) -> float:
    """The floor of ``transform="auto"``: :data:`AUTO_FLOOR` (1), or the
    :data:`AUTO_FLOOR_SHARE` (10th) percentile of the positive values where that is lower.

    Floor 1 suits intensities on the usual scanner scale (medians of tens to hundreds). The
    same intensities in other units (thousands, or divided by their maximum) lie mostly below
    1, and flooring them at 1 would set most of the matrix to one value; their own 10th
    percentile keeps the floor below all but a tenth of them, whatever the unit.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Non-negative values (NaN and inf are ignored).

    Returns
    -------
    float
        The floor, > 0 (:data:`AUTO_FLOOR` when ``X`` has no positive value).

    Examples
    --------
    >>> import numpy as np
    >>> raw = np.random.default_rng(0).lognormal(5, 1.5, size=(20, 500))
    >>> auto_floor(raw)
    1.0
    >>> bool(np.isclose(auto_floor(raw / 1000), np.quantile(raw / 1000, 0.1)))
    True
    """
    return _auto_floor_of(_values(X))


def _auto_floor_of(v: np.ndarray) -> float:
    positive = v[v > 0]
    if positive.size == 0:
        return AUTO_FLOOR
    return float(min(AUTO_FLOOR, np.quantile(positive, AUTO_FLOOR_SHARE)))


def auto_log2_settings(X) -> dict:
    """The preprocessing ``transform="auto"`` chooses for ``X``: log2 floored at
    :func:`auto_floor` (1 on the usual intensity scale) where it looks like raw intensities,
    the values as given otherwise.

    The one rule behind the default of ``selbayes benchmark --x`` and ``selbayes fit`` (and of
    a benchmark data set whose ``preprocessing`` says ``{"transform": "auto"}``). It reads the
    values only, never the labels, so deciding it once on the whole matrix leaks nothing from
    test folds; the transform itself is elementwise.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    dict
        ``{"transform": "log2" | "none", "floor": float | None, "ceiling": None,
        "auto": True}``, the shape of a benchmark data set's ``preprocessing``.

    Examples
    --------
    >>> import numpy as np
    >>> raw = np.random.default_rng(0).lognormal(4, 1.5, size=(20, 500))
    >>> auto_log2_settings(raw)["transform"], auto_log2_settings(np.log2(raw))["transform"]
    ('log2', 'none')
    """
    v = _values(X)
    raw = _raw_from_stats(raw_intensity_stats(v))
    return {"transform": "log2" if raw else "none", "floor": _auto_floor_of(v) if raw else None,
            "ceiling": None, "auto": True}


def _lowered_floor_why() -> str:
    """The one wording, for every message, of why :func:`auto_floor` is below AUTO_FLOOR."""
    return (f"the {AUTO_FLOOR_SHARE * 100:g}th percentile of the positive values: floor "
            f"{AUTO_FLOOR:g} would raise more than {AUTO_FLOOR_SHARE:.0%} of them")


def lowered_floor_note(settings: dict) -> str:
    """Why :func:`auto_log2_settings` chose a floor below :data:`AUTO_FLOOR` (for the commands'
    messages), or "" where it did not."""
    floor = settings.get("floor")
    if settings.get("transform") != "log2" or floor is None or floor >= AUTO_FLOOR:
        return ""
    return f" ({_lowered_floor_why()}, the values being on a smaller scale)"


def _raw_from_stats(s: dict) -> bool:
    if not np.isfinite(s["min"]) or s["min"] < 0:
        return False
    return bool(s["skewness"] > RAW_SKEWNESS and s["tail_ratio"] > RAW_TAIL_RATIO)


def warn_if_raw_intensities(X, stacklevel: int | None = 2) -> bool:
    """Warn (:class:`RawIntensityWarning`) when ``X`` looks like raw intensities.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    stacklevel : int or None, default 2
        Passed to :func:`warnings.warn`; 2 points at the caller of this function. None: the
        first line outside selbayes, scikit-learn and joblib (the user's, however deep the
        call: a fit inside a stack or a Pipeline).

    Returns
    -------
    bool
        Whether the warning was issued.

    Raises
    ------
    ValueError
        If ``stacklevel`` is not a positive int (or None), or ``X`` is a scalar or has more
        than 2 dimensions.
    TypeError
        If ``X`` is None, text or complex.

    Examples
    --------
    >>> import numpy as np
    >>> warn_if_raw_intensities(np.zeros((3, 4)))
    False
    """
    if stacklevel is not None:
        check_positive_int(stacklevel, name="stacklevel")
    v = _values(X)
    s = raw_intensity_stats(v)               # once: quantiles of the whole matrix
    if not _raw_from_stats(s):
        return False
    tail = f"99th percentile {s['tail_ratio']:.0f} x the median of the positive values"
    floor = _auto_floor_of(v)
    # on a smaller scale (other units) floor 1 would flatten the values: name the floor that
    # would not
    first = ("IntensityLog2(floor=1.0) in a pipeline (floor 100 and ceiling 16000 for old "
             "Affymetrix average differences)" if floor >= AUTO_FLOOR else
             f"IntensityLog2(floor='auto') in a pipeline (here a floor of {floor:.3g}, "
             f"{_lowered_floor_why()})")
    message = (
        f"X looks like raw intensities (all values >= 0, skewness {s['skewness']:.1f}, "
        f"{tail}): Gaussian models misread this scale (skewed genes, a few very bright ones) "
        f"and their probabilities can be badly calibrated. Take logs first, e.g. "
        f"selbayes.preprocessing.{first}, or IntensityLog2(only_if_raw=True, floor='auto'), "
        "the rule of the commands' --transform auto.")
    if stacklevel is None:
        warn_at_user(message, RawIntensityWarning)
    else:
        warnings.warn(message, RawIntensityWarning, stacklevel=stacklevel + 1)
    return True


class Log2InputWarning(UserWarning):
    """The data given to a floor-and-log2 transform do not look like intensities."""


#: Share of the values below the floor above which :func:`log2_input_problem` looks further.
LOG2_BELOW_FLOOR_SHARE = 0.5
#: The 99th percentile must exceed this many times the floor for mostly-floored data to pass
#: as intensities: raw intensities and average differences span 5 to 11 doublings above their
#: floor (q99 / floor 44 to 2700 on the benchmark sets, the average differences included);
#: log-scale or standardised values about 2 (q99 / floor 0.6 to 5).
LOG2_MIN_RANGE = 32.0


def log2_input_problem(X, floor: float | None = 1.0, ceiling: float | None = None) -> str | None:
    """Why ``log2(clip(X, floor, ceiling))`` would destroy ``X``, or None when it looks fine.

    Flags data of which more than :data:`LOG2_BELOW_FLOOR_SHARE` (half) lie below the floor
    while the 99th percentile is less than :data:`LOG2_MIN_RANGE` (32) times the floor: log-scale,
    log-ratio or standardised (z-scored) values, which the floor would set to one constant; and
    non-negative values no larger than 32 that are not right-skewed as raw intensities are
    (log2 values such as RMA's, 2 to 16), which log2 would compress a second time.
    Intensities that are often below a floor (Affymetrix average differences, with negatives)
    still have a long right tail and pass. With ``floor=None`` the check is on values <= 0
    (which the transform refuses anyway).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    floor, ceiling : float or None
        As in :class:`IntensityLog2` (the ceiling is not used by the check).

    Returns
    -------
    str or None
        One sentence that says what was found and what to do, or None.

    Raises
    ------
    ValueError
        If ``floor`` or ``ceiling`` is not a positive finite number (or None), or ``X`` is a
        scalar or has more than 2 dimensions.
    TypeError
        If ``floor`` or ``ceiling`` is a bool or not a number, or ``X`` is None, text or
        complex.

    Examples
    --------
    >>> import numpy as np
    >>> z = np.random.default_rng(0).normal(size=(20, 100))
    >>> log2_input_problem(z, floor=1.0)[:39]
    'the values do not look like intensities'
    >>> log2_input_problem(np.exp(z + 6), floor=1.0) is None
    True
    >>> log2_input_problem(z + 8, floor=1.0)[:35]
    'the values look log-scale already ('
    """
    _check_bound(floor, "floor", " or None")
    _check_bound(ceiling, "ceiling", " or None")
    v = _values(X)
    if v.size == 0:
        return None
    lo = 0.0 if floor is None else float(floor)
    below = float(np.mean(v < lo) if floor is not None else np.mean(v <= 0))
    negative = float(np.mean(v < 0))
    q99 = float(np.quantile(v, 0.99))
    if below <= LOG2_BELOW_FLOOR_SHARE:
        top = float(np.max(v))
        if (floor is not None and negative == 0.0 and top <= LOG2_MIN_RANGE
                and not _raw_from_stats(raw_intensity_stats(v))):
            # above the floor but on a log scale already (RMA-like values of 2 to 16): log2
            # of them compresses them a second time, which no floor check would see
            return (f"the values look log-scale already (from {float(np.min(v)):.3g} to "
                    f"{top:.3g}, not right-skewed as intensities are), so log2 would compress "
                    "them a second time: use no transform (--transform none, or no "
                    "IntensityLog2 step), or IntensityLog2(only_if_raw=True), which passes "
                    "such values through")
        return None
    if floor is not None and q99 >= LOG2_MIN_RANGE * lo:
        return None
    where = f"below the floor {lo:g}" if floor is not None else "<= 0"
    if floor is not None and _raw_from_stats(raw_intensity_stats(v)):
        # skewed and non-negative: intensities in other units (thousands, or scaled into
        # [0, 1]), not logged values
        auto = _auto_floor_of(v)
        return (f"{below:.0%} of the values are {where}, so log2(clip(X, {lo:g}, ...)) would "
                f"set {below:.0%} of the matrix to one value; they look like raw intensities "
                f"on a smaller scale (99th percentile {q99:.3g}): use a floor near their low "
                f"end, e.g. {auto:.3g} ({_lowered_floor_why()}; --floor {auto:.3g}, "
                "IntensityLog2(floor='auto') or --transform auto)")
    return (f"the values do not look like intensities: {below:.0%} of them are {where} "
            f"({negative:.0%} negative) and the 99th percentile is {q99:.3g}, so "
            f"log2(clip(X, {lo:g}, ...)) would set {below:.0%} of the matrix to one value. They "
            "look log-scale or standardised already: use no transform (--transform none), or "
            "a floor below the data's low end if they really are intensities")


def warn_if_not_intensities(X, floor: float | None = 1.0, ceiling: float | None = None,
                            stacklevel: int = 2) -> bool:
    """Warn (:class:`Log2InputWarning`) when :func:`log2_input_problem` finds a problem.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    floor, ceiling : float or None
    stacklevel : int, default 2

    Returns
    -------
    bool
        Whether the warning was issued.

    Raises
    ------
    ValueError, TypeError
        As :func:`log2_input_problem`, or if ``stacklevel`` is not a positive int.

    Examples
    --------
    >>> import numpy as np
    >>> warn_if_not_intensities(np.full((2, 2), 500.0))
    False
    """
    check_positive_int(stacklevel, name="stacklevel")
    problem = log2_input_problem(X, floor, ceiling)
    if problem is None:
        return False
    warnings.warn(problem[0].upper() + problem[1:] + ".", Log2InputWarning,
                  stacklevel=stacklevel + 1)
    return True
