"""Saving and loading fitted classifiers: provenance, model ids and the checked half of
``load`` (the pattern of pymc-marketing's ``ModelIO``).

A fit is one netCDF file (an ArviZ DataTree written with h5netcdf) whose root attributes say
which estimator wrote it, with which settings and selbayes version (:class:`PersistenceMixin`);
:func:`read_saved_tree` reads it back whole and :func:`check_saved_by` refuses a file of
another estimator or version. :func:`sanitize_attrs` keeps every attribute one that netCDF
stores natively, so a saved fit opens in plain ArviZ/xarray.
"""

from __future__ import annotations

import errno
import hashlib
import json
import numbers
import os
from pathlib import Path

import numpy as np

from .._validation import os_error_reason, warn_at_user
from .._version import __version__
from ..filters._selection import Selection

__all__ = ["PersistenceMixin", "SavedTransformWarning", "INPUT_TRANSFORM_ATTR",
           "checked_save_path", "check_saved_by", "read_saved_tree", "sanitize_attrs",
           "settings_json", "user_params", "write_saved_tree"]

#: Root attribute of a file written by ``selbayes fit``: the input transform (JSON, "null"
#: for none) the command applied before fitting, which ``selbayes predict`` applies again.
INPUT_TRANSFORM_ATTR = "selbayes_cli_transform"


def _setting_value(value):
    """``json.dumps``'s ``default`` for settings: a NumPy scalar or array as the Python number
    or list it holds, a prior object as its dict, anything else as its text. (``str`` alone
    wrote ``k=np.int64(5)`` as the text "5" and ``k_grid=np.array([5, 10])`` as "[ 5 10]",
    which a load passed back as the settings.)"""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if callable(getattr(value, "to_dict", None)):
        return value.to_dict()
    return str(value)


def settings_json(settings: dict, **kwargs) -> str:
    """``settings`` as JSON, NumPy values as Python ones.

    Parameters
    ----------
    settings : dict
        Setting name -> value (numbers, text, lists, dicts, NumPy values, prior objects).
    **kwargs
        Passed to ``json.dumps`` (e.g. ``sort_keys``).

    Returns
    -------
    str

    Examples
    --------
    >>> settings_json({"k": np.int64(5), "k_grid": np.array([5, 10])})
    '{"k": 5, "k_grid": [5, 10]}'
    """
    return json.dumps(settings, default=_setting_value, **kwargs)


def _settings_id(settings: dict) -> str:
    """A hash of ``settings`` (:func:`settings_json`, keys sorted)."""
    return hashlib.sha256(settings_json(settings, sort_keys=True).encode()).hexdigest()[:16]


def user_params(estimator) -> dict:
    """The estimator's settings as the user gave them (``get_params(deep=False)``), which
    ``load`` gives back, so that ``clone`` of a loaded fit is the estimator that was fitted.

    Parameters
    ----------
    estimator : sklearn.base.BaseEstimator

    Returns
    -------
    dict
        Setting name -> value; a ``random_state`` other than an int (a NumPy Generator,
        SeedSequence or RandomState) is None: it is not a setting a file can hold.

    Examples
    --------
    >>> from selbayes import HierarchicalGaussianClassifier
    >>> clf = HierarchicalGaussianClassifier(k=5, random_state=np.random.default_rng(0))
    >>> params = user_params(clf)
    >>> params["k"], params["random_state"], params["priors"]
    (5, None, None)
    """
    params = estimator.get_params(deep=False)
    seed = params.get("random_state")
    if seed is not None and not isinstance(seed, numbers.Integral):
        params["random_state"] = None
    return params


class SavedTransformWarning(UserWarning):
    """A loaded fit was made on transformed data (``selbayes fit --transform``): its
    ``predict_proba`` expects X transformed the same way."""


class PersistenceMixin:
    """Provenance attrs, model ids and the checked half of ``load``, shared by the classifiers.

    A subclass provides ``_config()`` (its settings as a JSON-able dict) and the fitted
    attributes ``classes_``, ``n_features_in_`` and ``selection_``.

    Examples
    --------
    >>> from selbayes.estimators import SelectionClassifier
    >>> issubclass(SelectionClassifier, PersistenceMixin)
    True
    """

    def _model_id(self) -> str:
        """A hash of the estimator's class, settings and the package version."""
        return _settings_id({"class": type(self).__name__, "config": self._config(),
                             "version": __version__})

    def _provenance_attrs(self) -> dict:
        """Attributes recorded on ``idata_``: version, estimator, id, settings, selection."""
        return {
            "selbayes_version": __version__,
            "selbayes_estimator": type(self).__name__,
            "selbayes_model_id": self._model_id(),
            # the settings that define the model (priors resolved: the model id's), and the
            # settings as given, which load restores (files before 2026-12-07: config only)
            "selbayes_config": settings_json(self._config()),
            "selbayes_params": settings_json(user_params(self)),
            # the settings as given include some the model id leaves out (how the posterior
            # is sampled): their own hash, so that an edit of them is refused too
            "selbayes_params_id": _settings_id(user_params(self)),
            "selbayes_classes": json.dumps([c.item() if hasattr(c, "item") else c
                                            for c in self.classes_]),
            "selbayes_n_features_in": int(self.n_features_in_),
            "selbayes_has_feature_names": int(hasattr(self, "feature_names_in_")),
            **self.selection_.to_attrs(),
        }

    def _selection_data(self) -> dict:
        """The selection's arrays for the ``constant_data`` group, with gene names and labels.

        ``selection_indices`` (dim ``feature``: the selected genes' names), ``selection_scores``
        (dim ``all_features``: every gene's name) and ``selection_class_counts`` (dim ``class``:
        the class labels); for continuous dense data also ``training_min`` and
        ``training_max`` (dim ``all_features``: each gene's training range, read by the scale
        check at predict time).
        """
        import xarray as xr

        sel = self.selection_
        names = self._feature_names()
        low, high = getattr(self, "data_min_", None), getattr(self, "data_max_", None)
        if low is not None:              # the training range: the scale check at predict
            every = {"dims": ["all_features"], "coords": {"all_features": names}}
            extra = {"training_min": xr.DataArray(low, **every),
                     "training_max": xr.DataArray(high, **every)}
        else:
            extra = {}
        return {
            "selection_indices": xr.DataArray(
                sel.indices, dims=["feature"], coords={"feature": names[sel.indices]}),
            "selection_scores": xr.DataArray(
                sel.scores, dims=["all_features"], coords={"all_features": names}),
            "selection_class_counts": xr.DataArray(
                sel.class_counts, dims=["class"], coords={"class": self._class_labels()}),
            **extra,
        }

    @classmethod
    def _open_saved(cls, path):
        """Read a file written by ``save`` and rebuild the settings and the selection.

        Returns
        -------
        (xarray.DataTree, estimator, xarray.Dataset)
            The file's tree, a new estimator with ``classes_``, ``n_features_in_``,
            ``feature_names_in_`` (if fitted with names) and ``selection_`` set, and the
            ``constant_data`` group.

        Raises
        ------
        ValueError
            If the file holds another estimator, was written by a selbayes version with a
            different major.minor, its settings no longer match its model id, or it is not a
            readable selbayes fit (damaged, truncated, or another kind of file).
        FileNotFoundError
            If ``path`` does not exist.
        """
        return cls._from_tree(read_saved_tree(path), path)

    @classmethod
    def _from_tree(cls, tree, path):
        """:meth:`_open_saved` on a tree already read (``path`` names it in messages; a
        stacked classifier's file holds one such tree per component)."""
        attrs = tree.attrs
        check_saved_by(attrs, cls.__name__, path)
        try:
            config = json.loads(attrs["selbayes_config"])
            given = json.loads(attrs["selbayes_params"]) if "selbayes_params" in attrs else None
            obj = cls(**(config if given is None else given))
            # the settings as given must still define the model the file's id and its
            # resolved settings name, and match their own hash (an edit of any is refused)
            if obj._model_id() != attrs["selbayes_model_id"] or settings_json(
                    obj._config(), sort_keys=True) != settings_json(config, sort_keys=True) \
                    or (given is not None and "selbayes_params_id" in attrs
                        and _settings_id(given) != attrs["selbayes_params_id"]):
                raise ValueError(f"model id mismatch in {path}: the file's settings were altered")
            cd = tree["constant_data"].to_dataset()
            classes = np.asarray(json.loads(attrs["selbayes_classes"]))
            obj.classes_ = classes
            obj.n_features_in_ = int(attrs["selbayes_n_features_in"])
            if int(attrs.get("selbayes_has_feature_names", 0)):
                obj.feature_names_in_ = np.asarray(
                    [str(v) for v in cd["all_features"].values], dtype=object)
            obj.selection_ = Selection(
                indices=cd["selection_indices"].values.astype(np.int64),
                scores=cd["selection_scores"].values,
                threshold=float(attrs["selection_threshold"]),
                n_features=int(attrs["selection_n_features"]),
                n_selected=int(attrs["selection_n_selected"]),
                statistic=str(attrs["selection_statistic"]),
                class_counts=cd["selection_class_counts"].values.astype(np.int64),
                classes=classes,
                rule=str(attrs["selection_rule"]),
                n_ties_at_threshold=int(attrs["selection_n_ties_at_threshold"]),
            )
            # files written before 2026-12-06 have no training range: no scale check
            obj.data_min_, obj.data_max_ = (
                (cd["training_min"].values, cd["training_max"].values)
                if "training_min" in cd else (None, None))
        except (KeyError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path} is not a readable selbayes fit: it lacks {exc}") from exc
        _warn_saved_transform(attrs, path)
        return tree, obj, cd


def _file_name(path):
    """``path`` unchanged if it can name a file, else a TypeError that names it (pathlib's
    says only "argument should be a str or an os.PathLike object")."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a file name (a str or os.PathLike); got "
                        f"{type(path).__name__} {path!r}")
    return path


def checked_save_path(path) -> Path:
    """``path`` as a Path, after checking that a file can be written there (h5py's own error
    for a missing folder is a line of C-library flags).

    Parameters
    ----------
    path : str or os.PathLike
        Where ``save`` is to write.

    Returns
    -------
    pathlib.Path
        ``path`` with ``~`` expanded to the home folder.

    Raises
    ------
    TypeError
        If ``path`` is not a str or os.PathLike.
    IsADirectoryError
        If ``path`` is a folder.
    FileNotFoundError
        If its folder does not exist.

    Examples
    --------
    >>> checked_save_path("fit.nc").name
    'fit.nc'
    """
    path = Path(_file_name(path)).expanduser()
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder; give a file name to save to")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"{path.parent}: no such folder (create it first)")
    return path


def write_saved_tree(tree, path) -> Path:
    """Write ``tree`` to the netCDF file ``path`` (h5netcdf), after :func:`checked_save_path`.

    Parameters
    ----------
    tree : xarray.DataTree
        What ``save`` writes.
    path : str or os.PathLike
        Destination file; ``~`` is the home folder.

    Returns
    -------
    pathlib.Path
        The path written, ``~`` expanded.

    Raises
    ------
    IsADirectoryError, FileNotFoundError
        As :func:`checked_save_path`.
    PermissionError
        If the file may not be created or written there (no write permission).
    OSError
        If it cannot be written there for another reason (a folder that takes no new
        files, such as ``/proc``, a full or read-only disk).

    Examples
    --------
    >>> import xarray as xr
    >>> write_saved_tree(xr.DataTree(), "/proc/fit.nc")       # doctest: +SKIP
    Traceback (most recent call last):
    ...
    OSError: /proc/fit.nc: cannot write the fit (the folder does not take new files)
    """
    path = checked_save_path(path)
    try:
        tree.to_netcdf(path, engine="h5netcdf")
    except OSError as exc:
        # h5py's own text is a line of C-library flags (o_flags = 242 ...): the reason
        # as a short sentence instead
        kind = (PermissionError if exc.errno in (errno.EACCES, errno.EPERM) else OSError)
        raise kind(f"{path}: cannot write the fit ({os_error_reason(exc, writing=True)})"
                   ) from None
    return path


def _warn_saved_transform(attrs, path) -> None:
    """Warn when ``selbayes fit --transform`` made the fit: the classifier alone does not
    transform new data (``selbayes predict`` does)."""
    text = attrs.get(INPUT_TRANSFORM_ATTR)
    try:
        pre = json.loads(text) if text is not None else None
    except (TypeError, json.JSONDecodeError):
        pre = None
    if not isinstance(pre, dict) or pre.get("transform") != "log2":
        return
    floor, ceiling = pre.get("floor"), pre.get("ceiling")
    flags = f"--transform log2 --floor {floor:g}" + (
        f" --ceiling {ceiling:g}" if ceiling is not None else "")
    warn_at_user(f"{path} was fitted by 'selbayes fit {flags}', on log2 of the clipped "
                 "intensities; this classifier's predict_proba expects X transformed the "
                 "same way: pass selbayes.preprocessing.IntensityLog2(floor="
                 f"{floor!r}, ceiling={ceiling!r}).fit_transform(X), or use 'selbayes "
                 "predict', which applies the transform itself", SavedTransformWarning)


def check_saved_by(attrs, estimator: str, path) -> None:
    """Check that a saved file's root attributes say ``estimator`` wrote it with this
    selbayes major.minor version.

    Parameters
    ----------
    attrs : mapping
        The file's root attributes.
    estimator : str
        The class name expected (``selbayes_estimator``).
    path : str or os.PathLike
        Names the file in the message.

    Raises
    ------
    ValueError
        If another estimator or another selbayes major.minor version wrote the file.

    Examples
    --------
    >>> check_saved_by({"selbayes_estimator": "A", "selbayes_version": __version__}, "A", "f")
    >>> check_saved_by({"selbayes_estimator": "B"}, "A", "f.nc")
    Traceback (most recent call last):
    ...
    ValueError: f.nc does not hold a A (found 'B')
    """
    if attrs.get("selbayes_estimator") != estimator:
        raise ValueError(f"{path} does not hold a {estimator} "
                         f"(found {attrs.get('selbayes_estimator')!r})")
    saved = str(attrs.get("selbayes_version", "unknown"))
    if saved.split(".")[:2] != __version__.split(".")[:2]:
        raise ValueError(f"{path} was written by selbayes {saved}; this is {__version__}. "
                         "Refit the model.")


def read_saved_tree(path):
    """The whole netCDF file written by a ``save``, read into memory and closed.

    Parameters
    ----------
    path : str or os.PathLike
        ``~`` is the home folder.

    Returns
    -------
    xarray.DataTree
        The file's tree, in memory (the file is closed, so it can be written over).

    Raises
    ------
    TypeError
        If ``path`` is not a str or os.PathLike.
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If it is not a readable netCDF file (damaged, truncated or another kind of file).

    Examples
    --------
    >>> read_saved_tree("no_such_file.nc")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no such file: no_such_file.nc
    """
    import xarray as xr

    if not Path(_file_name(path)).expanduser().exists():
        raise FileNotFoundError(f"no such file: {path}")
    try:
        opened = xr.open_datatree(Path(path).expanduser(), engine="h5netcdf")
        try:
            return opened.load()
        finally:
            # closed once in memory: a fit loaded from a file can be saved over it
            opened.close()
    except Exception as exc:
        raise ValueError(f"{path} is not a readable selbayes fit (the file is damaged, "
                         f"truncated or not netCDF): {type(exc).__name__}: {exc}") from exc


def sanitize_attrs(tree) -> None:
    """Make every attribute one netCDF stores natively, so files open in plain ArviZ/xarray.

    Strings and numbers stay; booleans become 0/1; lists and tuples of strings or of numbers
    become 1-D arrays (ArviZ's ``sample_dims`` must come back a list, not a JSON string);
    empty lists are dropped; anything else (dicts, None, mixed lists) is JSON-encoded.

    Parameters
    ----------
    tree : xarray.DataTree
        Changed in place: the attributes of every node and variable.

    Examples
    --------
    >>> import xarray as xr
    >>> tree = xr.DataTree(xr.Dataset(attrs={"flag": True, "cfg": {"k": 5}, "none": []}))
    >>> sanitize_attrs(tree)
    >>> tree.attrs
    {'flag': 1, 'cfg': '{"k": 5}'}
    """
    for node in tree.subtree:
        for holder in (node, *node.variables.values()):
            for key, value in list(holder.attrs.items()):
                if isinstance(value, list | tuple) and not value:
                    # netCDF cannot hold an empty list; ArviZ reads a missing sample_dims
                    # as its default.
                    del holder.attrs[key]
                else:
                    holder.attrs[key] = _native_attr(value)


def _native_attr(value):
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, list | tuple) and value:
        if all(isinstance(v, str) for v in value):
            return list(value)
        if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
            return np.asarray(value)
    if isinstance(value, dict | list | tuple) or value is None:
        return json.dumps(value, default=str)
    return value
