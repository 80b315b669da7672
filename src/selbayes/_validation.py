"""Input validation shared by every public entry point.

Every check raises a ``ValueError`` or ``TypeError`` whose message names the offending argument,
so that users never see a NaN or a traceback from deep inside pytensor; and the warnings they
give name the user's line (:func:`warn_at_user`).
"""

from __future__ import annotations

import functools
import numbers
import os
import warnings

import numpy as np

__all__ = [
    "plain_message",
    "os_error_reason",
    "command_line_message",
    "warn_at_user",
    "warn_if_misaligned",
    "check_matrix",
    "check_labels",
    "warn_of_label_variants",
    "check_binary",
    "check_positive",
    "check_real",
    "check_int",
    "check_flag",
    "check_path",
    "numeric_array",
    "check_positive_int",
    "check_class_counts",
    "check_class_index",
    "check_random_state",
]


def plain_message(text: str) -> str:
    """A message without NumPy scalar reprs: ``np.float64(0.5)`` -> ``0.5`` (the command line's
    error lines, and the benchmark's record of a failed fit).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> plain_message("k = np.int64(3), gamma = np.float64(2.5), ok = np.True_")
    'k = 3, gamma = 2.5, ok = True'
    """
    import re

    text = re.sub(r"np\.(?:float|int|uint|complex|str_|bytes_)\w*\(([^()]*)\)", r"\1", text)
    return re.sub(r"np\.(True|False)_", r"\1", text)


@functools.cache
def _not_the_user() -> tuple[str, ...]:
    """Folders whose frames a warning skips to reach the user's line: selbayes's own, and
    scikit-learn's and joblib's (pipelines, cross-validation and joblib's Memory call fit and
    fit_transform). Located without importing them."""
    import importlib.util

    folders = [os.path.dirname(os.path.abspath(__file__))]
    for name in ("sklearn", "joblib"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            folders.append(os.path.dirname(os.path.abspath(spec.origin)))
    return tuple(folder + os.sep for folder in folders)


def warn_at_user(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the first frame outside selbayes, scikit-learn and
    joblib: the user's line, however deep inside a fit or a pipeline the warning arose.

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_at_user("look", UserWarning)
    >>> str(w[0].message)
    'look'
    """
    warnings.warn(message, category, skip_file_prefixes=_not_the_user())


def os_error_reason(exc: OSError, *, writing: bool = False) -> str:
    """A short sentence for an OSError, without h5py's internals (flags, o_flags, ...).

    Parameters
    ----------
    exc : OSError
    writing : bool
        Whether a file was being created or written in a folder known to exist: a missing
        file or folder then means a folder that takes no new files (``/proc``), and the
        usual causes get their own words.

    Returns
    -------
    str

    Examples
    --------
    >>> import errno
    >>> os_error_reason(PermissionError(errno.EACCES, "Permission denied"), writing=True)
    'no permission to write there'
    >>> os_error_reason(OSError("Unable to open file (errno = 2, error message = 'No such "
    ...                         "file or directory', flags = 13, o_flags = 242)"))
    'no such file or directory'
    """
    import errno
    import re

    text = str(exc)
    code = exc.errno
    if code is None and (m := re.search(r"errno = (\d+)", text)):
        code = int(m.group(1))
    if writing:
        said = {errno.ENOENT: "the folder does not take new files",
                errno.EACCES: "no permission to write there",
                errno.EPERM: "no permission to write there",
                errno.EROFS: "the disk is read-only", errno.ENOSPC: "the disk is full"}
        if code in said:
            return said[code]
    m = re.search(r"error message = '([^']*)'", text)
    if m:
        return m.group(1).lower()
    if code is not None and code in errno.errorcode:
        return os.strerror(code).lower()
    if "signature" in text or "not an hdf5" in text.lower():
        return "not an HDF5/netCDF file"
    return "it cannot be written" if writing else "it cannot be read"


def command_line_message(text: str) -> str:
    """A message as the command line prints it: :func:`plain_message`, and the Python options
    it names as the command line spells them.

    The readers' messages name ``drop_missing='genes'`` and ``Dataset.dropped``, and the
    benchmark's replicate warning ``run_benchmark(..., groups=...)``; ``selbayes fit`` and
    ``selbayes benchmark`` print them with ``--drop-missing genes`` and ``--groups`` instead
    (and without the attribute, which a command-line user does not hold).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> command_line_message("impute them first, or drop_missing='genes' or 'samples' drops them")
    'impute them first, or --drop-missing genes or samples drops them'
    >>> command_line_message("pass them as groups (run_benchmark(..., groups={'s': labels}), "
    ...                    "selbayes benchmark --groups FILE), or groups 'auto' to keep them")
    'pass them as groups (--groups FILE), or --groups auto to keep them'
    >>> command_line_message("k must satisfy 1 <= k < p = 200 (keep all with k='all')")
    'k must satisfy 1 <= k < p = 200 (keep all with --k all)'
    """
    import re

    text = plain_message(text)
    text = text.replace("drop_missing='genes' or 'samples'", "--drop-missing genes or samples")
    text = re.sub(r"drop_missing='(genes|samples)'", r"--drop-missing \1", text)
    # the benchmark's replicate warning names both spellings; the command line needs one
    text = re.sub(r"\(run_benchmark\(\.\.\., groups=\{[^}]*\}\), selbayes benchmark "
                  r"--groups FILE\)", "(--groups FILE)", text)
    text = text.replace("or groups 'auto' to keep", "or --groups auto to keep")
    # the commands have no --sep: the readers' advice to save as .csv or .tsv is what holds
    text = text.replace(", or in Python pass sep=", "")
    text = re.sub(r"\bk='(all|auto)'", r"--k \1", text)    # the classifiers' k, as --k takes it
    return text.replace("; the list is in Dataset.dropped", "")


def warn_if_misaligned(X, y, name: str = "y") -> bool:
    """Warn when a DataFrame ``X`` and a Series ``y`` hold the same sample ids in another order.

    The labels (or group labels) are paired with X's rows by position (scikit-learn's
    convention), which is then almost surely not what the user meant; ``fit``, ``evaluate``,
    cross-validation and the error estimates all say so.

    Parameters
    ----------
    X, y : array-like
        Only pandas objects' indexes are compared.
    name : str
        What ``y`` is called in the message (``"groups"`` for group labels).

    Returns
    -------
    bool
        Whether it warned.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"g": [1.0, 2.0]}, index=["s1", "s2"])
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_if_misaligned(X, pd.Series(["a", "b"], index=["s2", "s1"]))
    True
    """
    import pandas as pd

    x_index, y_index = (getattr(o, "index", None) for o in (X, y))
    if not (isinstance(x_index, pd.Index) and isinstance(y_index, pd.Index)):
        return False                    # a list's ``index`` is a method
    if (len(x_index) != len(y_index) or x_index.equals(y_index)
            or not (x_index.is_unique and y_index.is_unique) or not x_index.isin(y_index).all()):
        return False
    moved = int(np.sum(np.asarray(x_index) != np.asarray(y_index)))
    what = "labels" if name == "y" else name
    whose = f"{name}'" if name.endswith("s") else f"{name}'s"
    warn_at_user(f"{whose} index holds the samples of X's index in another order ({moved} of "
                 f"{len(x_index)} differ in position, e.g. X has {x_index[0]!r} first, {name} "
                 f"has {y_index[0]!r}); {what} are paired with X's rows by position, as in "
                 f"scikit-learn: pass {name}.loc[X.index] if the index is what pairs them",
                 UserWarning)
    return True


def check_matrix(X, *, name: str = "X", allow_pandas: bool = True,
                 accept_sparse: bool = False):
    """Return ``X`` as a finite 2-D float64 array, or raise naming the problem.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
    name : str
        Argument name used in messages.
    accept_sparse : bool, default False
        Return a scipy.sparse ``X`` as a finite float64 CSC matrix instead of raising.
    """
    import scipy.sparse as sp

    if type(X).__name__ == "AnnData":      # numpy's message was about 64 dimensions
        raise TypeError(f"{name} is an AnnData: pass adata.to_df() (samples x genes, gene "
                        "names kept), or read it with selbayes.datasets.read_anndata(adata, "
                        "label_key=...), which also gives the labels")
    if sp.issparse(X):
        if not accept_sparse:
            raise TypeError(f"{name} is a scipy.sparse matrix; pass a dense array here")
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"{name} is empty or not 2-D: shape {X.shape}")
        try:
            X = sp.csc_matrix(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric; got dtype {X.dtype}") from exc
        if not np.isfinite(X.data).all():
            raise ValueError(f"{name} contains NaN or infinite stored values")
        return X
    labels = None                            # a DataFrame's (sample ids, gene names)
    if allow_pandas and hasattr(X, "to_numpy") and hasattr(X, "dtypes"):
        from pandas.api.types import is_numeric_dtype, is_object_dtype

        dtypes = X.dtypes
        items = dtypes.items() if hasattr(dtypes, "items") else [(getattr(X, "name", 0), dtypes)]
        non_numeric = [c for c, d in items if not is_numeric_dtype(d)]
        values = None
        if non_numeric and all(is_object_dtype(d) for _, d in items
                               if not is_numeric_dtype(d)):
            # numbers stored as objects (dtype=object, the .T of a mixed frame) are taken,
            # as scikit-learn takes them
            try:
                values = X.to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError):
                pass
        if non_numeric and values is None:
            import pandas as pd

            # name the columns holding text, not those holding numbers as objects: one
            # conversion of all their cells, no loop over the columns
            cells = X[non_numeric].to_numpy(dtype=object)
            read = pd.to_numeric(pd.Series(cells.ravel()), errors="coerce").to_numpy()
            text = (np.isnan(read.astype(np.float64)).reshape(cells.shape)
                    & pd.notna(cells)).any(axis=0)
            non_numeric = [c for c, t in zip(non_numeric, text, strict=True) if t] or non_numeric
            raise TypeError(
                f"{name} has non-numeric columns: {non_numeric[:5]}"
                + (f" and {len(non_numeric) - 5} more" if len(non_numeric) > 5 else "")
            )
        if hasattr(X, "columns"):
            labels = X.index, X.columns
        X = values if values is not None else X.to_numpy(dtype=np.float64, na_value=np.nan)
    try:
        arr = np.asarray(X)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise TypeError(f"{name} could not be converted to an array: {exc}") from exc
    if np.iscomplexobj(arr):
        raise ValueError(f"{name} is complex: Complex data not supported")
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number)
                                   or np.issubdtype(arr.dtype, np.bool_)):
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric; got dtype {arr.dtype} ({exc})") from exc
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (n_samples, n_features); got an array with {arr.ndim} "
            f"dimension(s) and shape {arr.shape}. Reshape your data: X.reshape(-1, 1) for a "
            "single feature, X.reshape(1, -1) for a single sample"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        what = "sample" if arr.shape[0] == 0 else "feature"
        raise ValueError(f"{name} is empty: it has 0 {what}(s) (shape={arr.shape}) while a "
                         "minimum of 1 is required.")
    arr = np.asarray(arr, dtype=np.float64)
    finite = np.isfinite(arr)
    if not finite.all():
        bad = ~finite
        n_nan = int(np.isnan(arr).sum())
        n_inf = int(bad.sum()) - n_nan
        i, j = np.argwhere(bad)[0]
        names = [None, None] if labels is None else [
            None if is_positions(index) else repr(index[at])
            for index, at in zip(labels, (i, j), strict=True)]
        where = ", ".join(f"{what} {at}" + (f" ({label})" if label else "")
                          for what, at, label in (("row", i, names[0]), ("column", j, names[1])))
        raise ValueError(
            f"{name} contains {n_nan} NaN and {n_inf} infinite value(s); "
            f"the first is at {where}"
        )
    return arr


def is_positions(index) -> bool:
    """Whether a pandas index is the default 0..n-1: positions, not names (``pd.DataFrame(X)``'s
    columns and rows).

    Parameters
    ----------
    index : pandas.Index

    Returns
    -------
    bool

    Examples
    --------
    >>> import pandas as pd
    >>> is_positions(pd.RangeIndex(3)), is_positions(pd.Index(["g1", "g2"]))
    (True, False)
    >>> is_positions(pd.Index([0, 1, 2])), is_positions(pd.Index([1, 0, 2]))
    (True, False)
    """
    import pandas as pd

    if isinstance(index, pd.RangeIndex):
        return index.start == 0 and index.step == 1
    # the same labels as integers (frame[order].sort_index(axis=1) gives an Index, not a
    # RangeIndex): positions too
    return (pd.api.types.is_integer_dtype(index.dtype)
            and np.array_equal(np.asarray(index), np.arange(len(index))))


def labels_1d(y, name: str = "y") -> np.ndarray:
    """Labels as a 1-D array: a pandas object's values, a column or row vector flattened."""
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and 1 in y.shape:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {y.shape}")
    return y


def check_labels(y, n_samples: int | None = None, *, name: str = "y", min_classes: int = 2,
                 min_per_class: int = 2, min_classes_of_two: int = 0):
    """Encode class labels.

    ``min_per_class`` cases are needed in every class, and two or more in at least
    ``min_classes_of_two`` classes (a model that fits a class of one case still needs
    classes it can estimate a spread from and inner folds can split).

    Returns
    -------
    classes : ndarray of shape (G,)
        Sorted unique labels (any hashable, orderable values, strings included).
    y_index : ndarray of int64, shape (n_samples,)
        Column index of each label in ``classes``.
    counts : ndarray of int64, shape (G,)
    """
    y = labels_1d(y, name)
    if n_samples is not None and y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} labels but X has {n_samples} rows; they must match (one "
            "row of X per sample: if X is genes x samples, pass X.T)"
        )
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError(f"{name} contains NaN or infinite labels")
    if y.dtype == object:
        import pandas as pd

        missing = np.flatnonzero([v is None or (not isinstance(v, str) and bool(pd.isna(v)))
                                  if np.ndim(v) == 0 else False for v in y])
        if missing.size:
            raise ValueError(f"{name} contains missing labels (None, NaN or pd.NA): "
                             f"{missing.size} of them, the first at position {missing[0]}; "
                             "drop those cases or give them a label")
    try:
        classes, y_index, counts = np.unique(y, return_inverse=True, return_counts=True)
    except TypeError as exc:
        raise TypeError(f"{name} labels must be mutually comparable: {exc}") from exc
    if classes.shape[0] < min_classes:
        raise ValueError(
            f"{name} has {classes.shape[0]} class(es) ({classes.tolist()}); at least {min_classes} "
            "are needed"
        )
    def described(too_few):
        small = [(c, n) for c, n in zip(classes.tolist(), counts.tolist(), strict=True)
                 if n < too_few]
        desc = ", ".join(f"{c!r} ({n} case{'s' if n != 1 else ''})" for c, n in small[:5])
        if len(small) > 5:            # one line, however many classes (a numeric column?)
            desc += f" and {len(small) - 5} more of the {classes.shape[0]} classes"
        return desc

    if np.any(counts < min_per_class):
        raise ValueError(f"{name}: every class needs at least {min_per_class} cases; too few "
                         f"in class(es) {described(min_per_class)}")
    if np.sum(counts >= 2) < min_classes_of_two:
        raise ValueError(f"{name}: at least {min_classes_of_two} classes need 2 cases or more "
                         f"({int(np.sum(counts >= 2))} have them; a class of one case is "
                         f"fitted beside them); one case in class(es) {described(2)}")
    return classes, y_index.astype(np.int64).ravel(), counts.astype(np.int64)


def warn_of_label_variants(labels, source: str = "y", *, stacklevel: int | None = 2) -> bool:
    """Warn when class labels differ only in case or surrounding spaces ("Tumour", "tumour "),
    or mix numbers and words (0, 1 and "normal").

    Either is different classes, which is rarely what was meant (a spreadsheet typed by two
    people, two codings of one column); they are not merged here: the user decides.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        Class labels.
    source : str
        Where the labels came from (a file, or "y"), for the message.
    stacklevel : int or None
        Passed to :func:`warnings.warn`; None: the user's line (:func:`warn_at_user`, for a
        call deep inside ``fit``).

    Returns
    -------
    bool
        Whether it warned.

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_of_label_variants(["tumour", "Tumour", "normal", "tumour "])
    True
    >>> str(w[0].message)[:71]
    'y: class labels that differ only in case or surrounding spaces are diff'
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_of_label_variants(["tumour", "Tumour", "normal"])
    True
    >>> str(w[0].message)[:53]
    'y: class labels that differ only in case are differen'
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_of_label_variants(["0", "1", "1", "0", "normal"])
    True
    >>> str(w[0].message)[:62]
    "y: class labels mix numbers ('0' and '1') and words ('normal')"
    """
    values = [v for v in np.asarray(labels, dtype=object).ravel()
              if isinstance(v, str | numbers.Number) and not (isinstance(v, float) and v != v)]
    if not values:
        return False
    counts: dict[str, int] = {}
    for v in values:
        counts[str(v)] = counts.get(str(v), 0) + 1
    messages = [m for m in (_case_variants(counts), _mixed_codings(counts)) if m]
    for message in messages:
        if stacklevel is None:
            warn_at_user(f"{source}: {message}", UserWarning)
        else:
            warnings.warn(f"{source}: {message}", UserWarning, stacklevel=stacklevel + 1)
    return bool(messages)


def _listed(items) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _case_variants(counts: dict[str, int]) -> str | None:
    """What :func:`warn_of_label_variants` says of labels that differ only in case or spaces."""
    groups: dict[str, list[str]] = {}
    for v in sorted(counts):
        groups.setdefault(v.strip().casefold(), []).append(v)
    variants = [g for g in groups.values() if len(g) > 1]
    if not variants:
        return None
    said = "; ".join(f"{_listed([repr(v) for v in g])} ({_listed([str(counts[v]) for v in g])} "
                     "samples)" for g in variants[:5])
    # what the labels found differ in (a file reader strips the spaces: case alone is left)
    case = any(len({v.strip() for v in g}) > 1 for g in variants)
    spaces = any(len({v.casefold() for v in g}) > 1 for g in variants)
    differ = " or ".join([w for w, found in (("case", case), ("surrounding spaces", spaces))
                          if found])
    return (f"class labels that differ only in {differ} are different classes: {said}; if "
            f"they are one class, write them alike")


def _mixed_codings(counts: dict[str, int]) -> str | None:
    """What :func:`warn_of_label_variants` says of labels some numbers, some words (0/1 beside
    "normal": two codings of the classes in one column?)."""
    def is_number(text: str) -> bool:
        try:
            float(text)
        except ValueError:
            return False
        return True

    numbers_ = sorted(v for v in counts if is_number(v))
    words = sorted(v for v in counts if not is_number(v))
    if not numbers_ or not words:
        return None
    shown = [repr(v) for v in numbers_[:4]] + (["..."] if len(numbers_) > 4 else [])
    said = [repr(v) for v in words[:4]] + (["..."] if len(words) > 4 else [])
    return (f"class labels mix numbers ({_listed(shown)}) and words ({_listed(said)}): "
            f"{len(counts)} different classes; if two codings of the classes were mixed, "
            "write each class one way")


def check_binary(arr: np.ndarray, *, name: str) -> np.ndarray:
    """Raise unless every entry of ``arr`` is 0 or 1."""
    import scipy.sparse as sp

    if sp.issparse(arr):
        bad = arr.data[(arr.data != 0) & (arr.data != 1)]
        if bad.size:
            raise ValueError(f"{name} must be binary (0/1); found {bad.size} other value(s), "
                             f"first {bad[0].item()!r}")
        return arr
    found = first_non_binary(arr)
    if found is not None:
        count, idx = found
        raise ValueError(
            f"{name} must be binary (0/1); found {count} other value(s), first "
            f"{arr[idx].item()!r} at "
            + (f"row {idx[0]}, column {idx[1]}" if len(idx) == 2 else f"position {idx}")
        )
    return arr


def first_non_binary(arr) -> tuple[int, tuple[int, ...]] | None:
    """(how many entries of the dense ``arr`` are neither 0 nor 1, the index of the first),
    or None when all are."""
    ok = (arr == 0) | (arr == 1)
    if ok.all():
        return None
    return int((~ok).sum()), tuple(int(v) for v in np.argwhere(~ok)[0])


def check_real(value, *, name: str, low: float = -np.inf, high: float = np.inf,
               closed: str = "both") -> float:
    """Return ``value`` as a float: ``TypeError`` naming ``name`` unless it is a real number
    (a bool or a string is not: ``float`` would read True and "1" as 1.0), ``ValueError``
    unless it is finite and between ``low`` and ``high`` (``closed``: "both", "left",
    "right" or "neither" of the two ends included).

    Examples
    --------
    >>> check_real(0.5, name="spacing", low=0, high=1, closed="right")
    0.5
    >>> check_real(True, name="spacing")
    Traceback (most recent call last):
    ...
    TypeError: spacing must be a number; got True
    >>> check_real(0, name="spacing", low=0, high=1, closed="right")
    Traceback (most recent call last):
    ...
    ValueError: spacing must be in (0, 1]; got 0
    """
    if isinstance(value, bool | np.bool_ | str | bytes):
        raise TypeError(f"{name} must be a number; got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a number; got {value!r}") from exc
    low_in, high_in = closed in ("both", "left"), closed in ("both", "right")
    if not (np.isfinite(v) and (v >= low if low_in else v > low)
            and (v <= high if high_in else v < high)):
        raise ValueError(f"{name} must be {_interval(low, high, low_in, high_in)}; got "
                         f"{value!r}")
    return v


def _interval(low: float, high: float, low_in: bool, high_in: bool) -> str:
    """``check_real``'s interval in words: "> 0 and finite", "in (0, 1]", "finite"."""
    if np.isfinite(low) and np.isfinite(high):
        return f"in {'[' if low_in else '('}{low:g}, {high:g}{']' if high_in else ')'}"
    if np.isfinite(low):
        return f"{'>=' if low_in else '>'} {low:g} and finite"
    if np.isfinite(high):
        return f"{'<=' if high_in else '<'} {high:g} and finite"
    return "finite"


def check_positive(value, *, name: str, strict: bool = True) -> float:
    """Return ``value`` as a float, raising ``ValueError`` unless it is finite and > 0 (>= 0)
    (``TypeError`` unless it is a number: True or "1" would pass ``float`` as 1.0)."""
    return check_real(value, name=name, low=0.0, closed="right" if strict else "both")


def check_positive_int(value, *, name: str, what: str | None = None) -> int:
    """Return ``value`` as an int, raising ``ValueError`` unless it is an integer (not a bool)
    >= 1; ``what`` says in the message what it counts."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer{f' ({what})' if what else ''}; "
                         f"got {value!r}")
    return int(value)


def check_int(value, *, name: str, low: int, what: str | None = None) -> int:
    """Return ``value`` as an int, raising ``ValueError`` unless it is an integer (not a bool,
    a float or a string) >= ``low``; ``what`` says in the message what it counts.

    Examples
    --------
    >>> check_int(2.0, name="n_classes", low=2, what="the number of classes")
    Traceback (most recent call last):
    ...
    ValueError: n_classes must be an integer >= 2 (the number of classes); got 2.0
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral) \
            or value < low:
        raise ValueError(f"{name} must be an integer >= {low}{f' ({what})' if what else ''}; "
                         f"got {value!r}")
    return int(value)


def check_path(value, name: str):
    """``value`` as a ``pathlib.Path``, raising ``TypeError`` naming ``name`` unless it is a
    str or os.PathLike (None or a number was pathlib's "argument should be a str or an
    os.PathLike object", which names no argument)."""
    import os
    from pathlib import Path

    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"{name} must be a path (a str or pathlib.Path); got "
                        f"{type(value).__name__} {value!r}")
    return Path(value)


def make_folder(path, name: str):
    """Create the output folder ``path`` (and its parents) and return it as a Path, raising
    ``ValueError`` naming ``name`` where a file stands at it or above it (pathlib's
    FileExistsError or NotADirectoryError named a subfolder the user never gave).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "a_file"
    >>> _ = f.write_text("")
    >>> make_folder(f / "out", "out")
    Traceback (most recent call last):
    ...
    ValueError: out ... lies under a file, ...
    """
    path = check_path(path, name)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        where = ("is a file" if path.is_file() else "is a broken link" if path.is_symlink()
                 else "lies under a file")
        raise ValueError(f"{name} {str(path)!r} {where}, not a folder: give a folder for the "
                         "output") from None
    return path


def numeric_array(value, name: str, *, must: str = "be numeric") -> np.ndarray:
    """``value`` as a float64 array, or ``TypeError`` "``name`` must ``must``; got ..."
    unless every entry is a real number.

    NumPy would read True as 1.0, "0.5" as 0.5 and None as NaN, and a list mixing them with
    numbers as a float array: a list, tuple or scalar is checked entry by entry, an array (or
    anything with a dtype) by its dtype (integers and floats; complex numbers are not real).

    Examples
    --------
    >>> numeric_array([1, 2.5], "draws").tolist()
    [1.0, 2.5]
    >>> numeric_array([0.5, True], "phi0", must="hold numbers")
    Traceback (most recent call last):
    ...
    TypeError: phi0 must hold numbers; got [0.5, True]
    """
    def refused():
        got = (f"dtype {value.dtype}" if isinstance(value, np.ndarray) and value.size > 10
               else repr(value))
        return TypeError(f"{name} must {must}; got {got}")

    if hasattr(value, "dtype"):
        arr = np.asarray(value)
        if arr.dtype.kind in "iuf":
            return arr.astype(np.float64)
        if arr.dtype.kind != "O":
            raise refused()
    try:
        cells = np.asarray(value, dtype=object).ravel()
    except (TypeError, ValueError):
        raise refused() from None
    if any(v is None or isinstance(v, bool | np.bool_ | str | bytes | complex) for v in cells):
        raise refused()
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise refused() from None


def check_flag(value, name: str) -> bool:
    """Return ``value`` as a bool, raising ``TypeError`` naming ``name`` unless it is True or
    False ("no" and 1 would be read as True)."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def check_class_counts(class_counts, *, name: str = "class_counts", min_classes: int = 2
                       ) -> np.ndarray:
    """Validate a vector of per-class training counts (positive integers)."""
    arr = np.asarray(class_counts)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {arr.shape}")
    if arr.shape[0] < min_classes:
        raise ValueError(
            f"{name} needs at least {min_classes} classes (G >= 2); got {arr.shape[0]}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold whole numbers; got {arr.tolist()}")
    elif arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integers; got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if np.any(arr < 1):
        raise ValueError(f"{name} must be positive integers; got {arr.tolist()}")
    return arr


def check_random_state(random_state, name: str = "random_state") -> np.random.Generator:
    """Turn None, an int >= 0, a SeedSequence, a RandomState or a Generator into a
    ``numpy.random.Generator``; ``TypeError`` (a bool, a float, a string, ...) or
    ``ValueError`` (a negative int, numpy's message of which does not name it) naming
    ``name`` otherwise."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state,
                                                                     bool | np.bool_):
        if random_state < 0:
            raise ValueError(f"{name} must be None, an int >= 0 or a numpy Generator; got "
                             f"{random_state!r}")
        return np.random.default_rng(random_state)
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    raise TypeError(f"{name} must be None, an int >= 0 or a numpy Generator; got "
                    f"{random_state!r}")


def whole_numbers_as_int(y: np.ndarray) -> np.ndarray:
    """``y`` as int64 where it is a float array of finite whole numbers (class indices read
    from a file or computed as floats), else as given.

    Examples
    --------
    >>> whole_numbers_as_int(np.array([0.0, 2.0])).dtype.kind, whole_numbers_as_int(
    ...     np.array([0.5])).dtype.kind
    ('i', 'f')
    """
    if y.dtype.kind == "f" and np.isfinite(y).all() and np.all(y == np.round(y)):
        return y.astype(np.int64)
    return y


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
    y = whole_numbers_as_int(y)
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
