"""The labelled expression matrix every reader returns, and the checks every source passes.

:class:`Dataset` holds ``X`` (pandas DataFrame, samples x genes, gene identifiers as columns),
``y`` (pandas Series of class names, one per sample) and a ``description``. The papers' data
(:mod:`selbayes.datasets._loaders`) and the user's own files (:mod:`selbayes.datasets._files`)
pass the same checks (:func:`_validated`), so bad data fails early with a message naming the
problem: missing values, non-numeric or infinite entries, duplicated gene names, missing labels
and classes with a single member. Nothing is dropped silently: with ``drop_missing="genes"`` or
``"samples"`` the dropped names are listed in ``Dataset.dropped`` and in a warning.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["Dataset"]

DROP_CHOICES = (False, "genes", "samples")

#: ``Series.attrs`` key of labels read from a file: the texts of its cells read as missing
#: besides empty ones ("NA", "null"), which the message about missing labels quotes (a class
#: literally named "NA" is read as missing, and the user must be able to tell why).
MISSING_TEXT_ATTR = "selbayes_missing_text"


@dataclass
class Dataset:
    """A labelled expression matrix.

    Attributes
    ----------
    X : pandas.DataFrame of shape (n_samples, n_genes)
        Expression values (float64); columns are gene identifiers (unique strings), the index
        holds sample names.
    y : pandas.Series of shape (n_samples,)
        Class name of each sample. Stored indexed like ``X``: a y keyed by X's sample ids in
        another order is matched to the rows by id (with a warning); one without sample ids
        (the default 0..n-1 index, or ids none of which are X's) is taken in row order; one
        keyed by some of X's ids and others is refused.
    description : str
        What the data are, where they come from, and what to cite.
    name : str
    genes : pandas.DataFrame, optional
        Gene annotation indexed by the columns of ``X``.
    dropped : dict
        ``{"genes": [...], "samples": [...]}``: what ``drop_missing`` removed (empty lists
        when nothing was dropped).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"g1": [1.0, 2.0, 3.0, 4.0], "g2": [0.5, 0.1, 0.2, 0.3]})
    >>> y = pd.Series(["a", "a", "b", "b"])
    >>> ds = Dataset(X=X, y=y, name="toy")
    >>> ds
    Dataset(toy: 4 samples x 2 genes; classes {a: 2, b: 2})
    >>> ds.classes.tolist()
    ['a', 'b']
    """

    X: pd.DataFrame
    y: pd.Series
    description: str = ""
    name: str = ""
    genes: pd.DataFrame | None = None
    dropped: dict = field(default_factory=lambda: {"genes": [], "samples": []})

    def __post_init__(self):
        # an array or a list got as far as repr (AttributeError on value_counts) or a
        # benchmark's first use of the index
        if not isinstance(self.X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame (samples x genes, gene names as "
                            f"columns); got {type(self.X).__name__}: wrap it, "
                            "pd.DataFrame(X, columns=gene_names)")
        if not isinstance(self.y, pd.Series):
            raise TypeError(f"y must be a pandas Series of class labels; got "
                            f"{type(self.y).__name__}: wrap it, pd.Series(y, index=X.index)")
        if len(self.y) != self.X.shape[0]:
            raise ValueError(f"y has {len(self.y)} labels but X has {self.X.shape[0]} rows; "
                             "they must match (one label per sample)")
        if not self.y.index.equals(self.X.index):
            # Labels keyed by X's sample ids in another order are matched by id (with a
            # warning), others taken in row order; y then carries X's index, so code reading
            # the labels by position (the reproductions) and code matching them by id (the
            # benchmark) agree
            aligned = align_by_sample(self.y, self.X.index,
                                      f"data set {self.name!r}: y" if self.name else "y",
                                      stacklevel=4)
            self.y = aligned.set_axis(self.X.index).rename(self.y.name)
        # what the file readers refuse, refused here too: a Dataset built in Python with a
        # missing label gave numpy's "'<' not supported between 'str' and 'float'" in
        # classes and in the benchmark, and one with repeated sample ids ambiguous per-sample
        # outputs (the benchmark's cases.csv)
        missing = _is_missing_label(self.y)
        if missing.any():
            raise ValueError(f"{self.name or 'y'}: {int(missing.sum())} missing label(s) "
                             f"(samples {_names(self.X.index[missing])}); give every sample a "
                             f"label, or remove those samples")
        if self.X.index.has_duplicates:
            repeated = self.X.index[self.X.index.duplicated()].unique()
            raise ValueError(f"{self.name or 'X'}: {len(repeated)} duplicated sample id(s) in "
                             f"X's index ({_names(repeated)}); give every sample its own id")

    @property
    def classes(self) -> np.ndarray:
        """Sorted class names (the column order of every selbayes estimator's ``predict_proba``).

        Returns
        -------
        numpy.ndarray of shape (n_classes,)
        """
        return np.unique(self.y.to_numpy())

    @property
    def n_samples(self) -> int:
        """Number of samples (rows of ``X``)."""
        return int(self.X.shape[0])

    @property
    def n_genes(self) -> int:
        """Number of genes (columns of ``X``)."""
        return int(self.X.shape[1])

    def __repr__(self) -> str:
        counts = ", ".join(f"{c}: {n}" for c, n in self.y.value_counts(sort=False)
                           .sort_index().items())
        return (f"Dataset({self.name or 'unnamed'}: {self.n_samples} samples x {self.n_genes} "
                f"genes; classes {{{counts}}})")




# ---------------------------------------------------------------------------------------------
# validation shared by every reader
# ---------------------------------------------------------------------------------------------
def _is_missing_label(y: pd.Series) -> np.ndarray:
    """Which labels are missing: NaN/None, or empty or blank text (a spreadsheet's cell).

    Examples
    --------
    >>> _is_missing_label(pd.Series(["a", None, " ", "b"])).tolist()
    [False, True, True, False]
    """
    return y.isna().to_numpy() | (y.astype(str).str.strip() == "").to_numpy()


@contextlib.contextmanager
def reading_data_file(path, name: str):
    """Around the reading of one data file of the data set ``name``: a damaged file (not
    gzip, cut short, empty, not an R data file) raised gzip's, pandas' or rdata's own error,
    naming neither the file nor the data set (and the command line printed a traceback for
    some). Now a ValueError naming both and the fix; a missing file stays FileNotFoundError."""
    try:
        yield
    except FileNotFoundError:
        raise
    except (OSError, EOFError, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError, NotImplementedError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable copy of the {name} data ({type(exc).__name__}: "
                         f"{exc}); the file is damaged or cut short: delete it, or replace it "
                         "with a good copy") from exc


def align_by_sample(values, index: pd.Index, what: str, stacklevel: int = 4):
    """``values`` (labels or groups) in the row order of ``index``: a Series or dict keyed by
    the sample ids of ``index`` is aligned by id (a Series in another order with a warning);
    one keyed otherwise, or anything else, is taken in row order as given.

    Parameters
    ----------
    values : pandas.Series, dict or array-like
        Labels or groups, one per sample.
    index : pandas.Index
        The sample ids of X's rows.
    what : str
        What ``values`` are, for the messages (e.g. "data set 'golub': y").
    stacklevel : int
        Of the reordering warning, so that it names the user's line.

    Returns
    -------
    pandas.Series or the values as given
        Aligned to ``index`` where ``values`` is keyed by its sample ids.

    Raises
    ------
    ValueError
        A Series or dict keyed by sample ids (some of them those of ``index``) that are not
        exactly the samples of ``index``, naming some on each side.
    """
    if isinstance(values, dict):
        values = pd.Series(values)
    if not isinstance(values, pd.Series) or values.index.equals(index):
        return values
    keys = pd.Index(values.index.map(str))
    ids = pd.Index(index.map(str))
    if isinstance(values.index, pd.RangeIndex) or not keys.isin(ids).any():
        return values                  # not keyed by sample id: row order, as given
    only_x, only_v = ids.difference(keys), keys.difference(ids)
    if len(only_x) or len(only_v) or keys.has_duplicates:
        raise ValueError(f"{what} is keyed by sample id, but not by exactly the samples of "
                         f"X: {len(only_x)} only in X ({', '.join(map(repr, only_x[:3]))}), "
                         f"{len(only_v)} only in it ({', '.join(map(repr, only_v[:3]))})"
                         + (", or an id twice" if keys.has_duplicates else ""))
    warnings.warn(f"{what} lists the samples of X in another order: aligned by sample id",
                  UserWarning, stacklevel=stacklevel)
    # set_axis, not a new Series: a categorical y keeps its categories
    return values.set_axis(keys).reindex(ids).set_axis(index)


def _names(items, limit: int = 5) -> str:
    items = [str(i) for i in items]
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(repr(i) for i in items[:limit]) + more


def _check_drop(drop_missing):
    # 0 == False passed `in DROP_CHOICES`: a number is not an option
    if not ((isinstance(drop_missing, bool | np.bool_) and not drop_missing)
            or (isinstance(drop_missing, str) and drop_missing in DROP_CHOICES)):
        raise ValueError(f"drop_missing must be one of {list(DROP_CHOICES)}; got "
                         f"{drop_missing!r}")


def _check_text(value, name: str, *, optional: bool = False) -> str | None:
    """``value`` when it is a str (or None, if ``optional``); TypeError naming ``name``."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        what = "a str or None" if optional else "a str"
        raise TypeError(f"{name} must be {what}; got {type(value).__name__} {value!r}")
    return value


def _check_sep(sep) -> str | None:
    """A column separator: None (inferred) or one character; the csv module's bare
    '"delimiter" must be a 1-character string' named no argument."""
    if sep is None or (isinstance(sep, str) and len(sep) == 1):
        return sep
    error = ValueError if isinstance(sep, str) else TypeError
    raise error(f"sep must be one character, e.g. ',' or '\\t' (or None to infer it from the "
                f"file); got {sep!r}")


#: Text of a number written with a decimal comma ("1,23", "1.234,5") or a thousands separator
#: ("12,345", "1,234.5"): a spreadsheet's locale, not a non-numeric column.
_LOCALE_NUMBER = re.compile(r"^[-+]?(\d+,\d+|\d{1,3}(,\d{3})+(\.\d+)?|\d{1,3}(\.\d{3})+,\d+)$")


def _non_number_cell(frame: pd.DataFrame, gene) -> tuple[str, str] | None:
    """(text, sample) of the first cell of column ``gene`` that is not a number, for the
    message: a column name alone does not show a decimal comma or a stray word."""
    col = frame[gene]
    present = col[col.notna()]
    if present.empty:
        return None
    try:
        bad = pd.to_numeric(present, errors="coerce").isna().to_numpy()
    except (TypeError, ValueError):          # e.g. a column of lists: any cell will do
        bad = np.ones(len(present), dtype=bool)
    pos = int(np.argmax(bad)) if bad.any() else 0       # a bool column: its first cell
    return str(present.iloc[pos]).strip(), str(present.index[pos])


def _numeric_genes(frame: pd.DataFrame, source: str, hint: str) -> pd.DataFrame:
    """``frame`` with unique string gene names; TypeError naming non-numeric (or bool) columns.

    ``hint`` ends the TypeError message: what the caller's input most likely got wrong. The
    message quotes one offending cell; when it is a number written with a decimal comma or a
    thousands separator, it says so instead of ``hint``.
    """
    frame = frame.set_axis(_unique_gene_names(frame.columns, source), axis=1)
    # judged once per distinct dtype, not once per column: a file of 20 000 genes has one or
    # two dtypes, and a column lookup per gene took seconds
    dtypes = frame.dtypes
    bad = [d for d in dtypes.unique() if not pd.api.types.is_numeric_dtype(d)
           or pd.api.types.is_bool_dtype(d)]
    non_numeric = list(frame.columns[dtypes.isin(bad).to_numpy()]) if bad else []
    if non_numeric:
        cell = _non_number_cell(frame, non_numeric[0])
        example = "" if cell is None else (f" (e.g. {cell[0]!r} in gene {non_numeric[0]!r}, "
                                           f"sample {cell[1]!r})")
        if cell is not None and _LOCALE_NUMBER.match(cell[0]):
            hint = ("; numbers must use '.' as the decimal mark and no thousands separators: "
                    "convert the file")
        raise TypeError(f"{source}: {len(non_numeric)} non-numeric gene column(s): "
                        f"{_names(non_numeric)}{example}{hint}")
    return frame


def drop_missing_values(X: pd.DataFrame, y: pd.Series, drop_missing, *, source: str,
                        label_source: str | None = None, stacklevel: int = 2):
    """Missing expression values and labels: an error naming them, or dropped (and said).

    Parameters
    ----------
    X : pandas.DataFrame of shape (n_samples, n_genes)
        Numeric; NaN where a value is missing.
    y : pandas.Series of shape (n_samples,)
        Labels in ``X``'s row order; None, NaN or blank where missing. Its
        ``attrs[MISSING_TEXT_ATTR]``, where a label file's reader set it, are the cell texts
        read as missing ("NA"), which the error quotes.
    drop_missing : {False, "genes", "samples"}
        False: any missing value or label is an error. "genes": drop the genes with a missing
        value (missing labels are still an error). "samples": drop the samples with a missing
        value or label.
    source : str
        ``X``'s file (or object), for the messages.
    label_source : str, optional
        The labels' own file where they come from one (default: ``source``).
    stacklevel : int
        Of the ``UserWarning`` that lists what was dropped.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        Indexed like ``X``.
    dropped : dict
        ``{"genes": [...], "samples": [...]}``, the names dropped.

    Raises
    ------
    ValueError
        Missing values or labels that are not dropped (named, with what to do), or dropping
        that leaves no data.

    Examples
    --------
    >>> import warnings
    >>> X = pd.DataFrame({"g1": [1.0, np.nan, 3.0], "g2": [4.0, 5.0, 6.0]},
    ...                  index=["s1", "s2", "s3"])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     X2, y2, dropped = drop_missing_values(X, pd.Series(["a", "b", "a"]), "genes",
    ...                                           source="X.csv")
    >>> list(X2.columns), dropped["genes"]
    (['g2'], ['g1'])
    """
    values = X.to_numpy(dtype=np.float64, na_value=np.nan)
    missing_text = tuple(getattr(y, "attrs", {}).get(MISSING_TEXT_ATTR, ()))
    y = pd.Series(y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y),
                  index=X.index, name=getattr(y, "name", None) or "class")
    y_missing = _is_missing_label(y)
    missing = np.isnan(values)
    dropped = {"genes": [], "samples": []}
    if missing.any() or y_missing.any():
        bad_genes = X.columns[missing.any(axis=0)]
        if drop_missing == "samples":
            keep = ~(missing.any(axis=1) | y_missing)
            dropped["samples"] = [str(s) for s in X.index[~keep]]
            X, y = X.loc[keep], y.loc[keep]
        elif drop_missing == "genes" and not y_missing.any():
            dropped["genes"] = [str(g) for g in bad_genes]
            X = X.loc[:, ~missing.any(axis=0)]
        else:
            parts = []
            if missing.any():
                parts.append(f"{source}: {int(missing.sum())} missing expression value(s) in "
                             f"{len(bad_genes)} gene(s) ({_names(bad_genes)}) and "
                             f"{int(missing.any(axis=1).sum())} sample(s)")
            if y_missing.any():
                # the labels' own file where they come from one (read_xy), named once
                where = label_source or source
                read_as = (f"; cells {_names(missing_text)} are read as missing"
                           if missing_text else "")
                parts.append(("" if parts and where == source else f"{where}: ")
                             + f"{int(y_missing.sum())} missing label(s) (samples "
                               f"{_names(X.index[y_missing])}{read_as})")
            if y_missing.any():
                hint = ("give every sample a label, or remove those samples"
                        + (" from both files" if label_source else "")
                        + ", or drop_missing='samples' drops them (and reports what it dropped)")
            else:
                hint = ("impute them first, or drop_missing='genes' or 'samples' drops them "
                        "(and reports what it dropped)")
            raise ValueError("; ".join(parts) + "; " + hint)
        if not X.shape[0] or not X.shape[1]:
            raise ValueError(f"{source}: dropping missing values left no data (shape {X.shape})")
        what = "; ".join(f"{len(v)} {k if len(v) > 1 else k[:-1]} ({_names(v)})"
                         for k, v in dropped.items() if v)
        warnings.warn(f"{source}: drop_missing={drop_missing!r} dropped {what}; the list is in "
                      "Dataset.dropped", UserWarning, stacklevel=stacklevel)
    return X, y, dropped


def _validated(X: pd.DataFrame, y: pd.Series, *, drop_missing, source: str, name: str = "",
               description: str = "", label_source: str | None = None,
               genes_hint: str | None = None) -> Dataset:
    """Check an expression frame and its labels; drop (and report) only when asked to.
    ``label_source`` names the labels in messages about classes and missing labels (default:
    ``source``); ``genes_hint`` ends the message about non-numeric genes (default: a label
    column among them)."""
    _check_drop(drop_missing)
    X = _numeric_genes(X, source, genes_hint or " (is a label or annotation column among the "
                                                "genes? name it with label_column=)")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{source}: no data (shape {X.shape})")
    if len(y) != X.shape[0]:
        raise ValueError(f"{source}: {len(y)} labels for {X.shape[0]} samples")
    values = X.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(values).any():
        i, j = np.argwhere(np.isinf(values))[0]
        raise ValueError(f"{source}: {int(np.isinf(values).sum())} infinite value(s), first in "
                         f"sample {X.index[i]!r}, gene {X.columns[j]!r}")
    attrs = dict(y.attrs)          # what a label file's reader noted (MISSING_TEXT_ATTR)
    y = pd.Series(y.to_numpy(), index=X.index, name=y.name or "class")
    y.attrs.update(attrs)
    X, y, dropped = drop_missing_values(X, y, drop_missing, source=source,
                                        label_source=label_source, stacklevel=4)
    _check_classes(y, label_source or source)
    # one float64 block: a frame read from a wide file holds a block per column, which makes
    # every later pandas or scikit-learn step over it slow (seconds at 20 000 genes)
    X = pd.DataFrame(X.to_numpy(dtype=np.float64, na_value=np.nan), index=X.index,
                     columns=X.columns)
    return Dataset(X=X, y=y, description=description, name=name, dropped=dropped)


def _unique_gene_names(columns, source: str) -> pd.Index:
    """Column names as strings, or a ValueError naming the repeated ones."""
    columns = pd.Index([str(c) for c in columns])
    if columns.has_duplicates:
        dups = columns[columns.duplicated()].unique()
        raise ValueError(f"{source}: {len(dups)} duplicated gene name(s): {_names(dups)}; gene "
                         "names must be unique (rename or aggregate the repeated probes)")
    return columns


def _check_classes(y: pd.Series, source: str) -> None:
    """At least two classes, each with at least two samples."""
    classes, counts = np.unique(y.astype(str).to_numpy(), return_counts=True)
    if len(classes) < 2:
        raise ValueError(f"{source}: the labels hold {len(classes)} class ({_names(classes)}); "
                         "classification needs at least 2")
    single = classes[counts < 2]
    if len(single):
        raise ValueError(f"{source}: class(es) with a single sample: {_names(single)}; every "
                         "class needs at least 2 samples (merge or remove those samples)")
