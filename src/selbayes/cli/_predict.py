"""``selbayes predict``: reading a saved fit (any classifier's save()) and writing the class
probabilities of new samples."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

from ._classifiers import _FEATURES_ATTR, _TRANSFORM_ATTR, SAVED_CLASSES
from ._errors import UserError, _os_reason
from ._inputs import (
    _apply_transform,
    _check_output_path,
    _make_parent,
    _not_an_input,
    _read_x,
)


def _saved_fit(path: Path):
    """(estimator class, legacy feature list or None, transform settings or None) of any file
    written by ``selbayes fit`` or by a classifier's ``save``."""
    import importlib

    import h5py

    if not path.is_file():
        raise UserError(f"{path}: no such file" if not path.is_dir()
                        else f"{path} is a folder, not a saved fit")
    try:
        with h5py.File(path, "r") as f:
            attrs = {k: f.attrs[k] for k in f.attrs}
    except OSError as exc:
        raise UserError(f"{path}: not a saved selbayes fit ({_os_reason(exc)})") from None
    estimator = attrs.get("selbayes_estimator")
    if isinstance(estimator, bytes):
        estimator = estimator.decode()
    by_class = {cls_name: (module, cls_name) for module, cls_name in SAVED_CLASSES}
    if estimator not in by_class:
        raise UserError(f"{path}: not a saved selbayes classifier (write one with 'selbayes "
                        "fit' or a classifier's save())")
    module, name = by_class[estimator]
    cls = getattr(importlib.import_module(module), name)
    features = json.loads(attrs[_FEATURES_ATTR]) if _FEATURES_ATTR in attrs else None
    pre = json.loads(attrs[_TRANSFORM_ATTR]) if _TRANSFORM_ATTR in attrs else None
    return cls, features, pre


def _unused_first_column_as_ids(X, features, source):
    """``X`` with its first column as the sample ids where the file had none that the reader
    knew (a header that names no id over numbered samples: "tumour" 11, 7, 2, ...), that
    column is no feature of the fit and its values are distinct whole numbers; ``X``
    otherwise. Read as a gene the fit ignores, the samples were renamed 0, 1, 2, ... in the
    output, silently."""
    import pandas as pd

    from ..datasets._files import numbered_first_column

    ids = numbered_first_column(X)
    if ids is None or str(X.columns[0]) in features:
        return X
    print(f"note: the first column, {X.columns[0]!r}, is no feature of the fit and holds "
          f"distinct whole numbers: read as the sample ids of {source}", file=sys.stderr)
    return X.iloc[:, 1:].set_axis(pd.Index(ids, name=str(X.columns[0])))


def _cmd_predict(args) -> int:
    import numpy as np
    import pandas as pd

    path = Path(args.fit)
    _not_an_input(args.output, args.fit, args.x)
    dest = Path(args.output)
    _check_output_path(dest)            # before the work, writing nothing: a bad path fails
    cls, features, pre = _saved_fit(path)
    with warnings.catch_warnings():
        # load() warns a Python user that the fit expects transformed X; predict applies it
        from ..estimators._persistence import SavedTransformWarning

        warnings.simplefilter("ignore", SavedTransformWarning)
        clf = cls.load(path)
    # missing values matter only in the columns the fit was trained on (checked below)
    X = _read_x(args.x, layer=args.layer, allow_missing=True)
    if features is None and getattr(clf, "feature_names_in_", None) is not None:
        features = [str(c) for c in clf.feature_names_in_]
    if features is not None:
        X = _unused_first_column_as_ids(X, features, args.x)
        missing = [c for c in features if c not in X.columns]
        if missing:
            transposed = (len(missing) == len(features)
                          and X.index.isin(features).mean() > 0.5)
            # the same genes written in another case ("tp53" for "TP53": another annotation)
            by_case = {str(c).casefold(): str(c) for c in X.columns}
            cased = [(by_case[m.casefold()], m) for m in missing if m.casefold() in by_case]
            raise UserError(f"{args.x} lacks {len(missing)} of the {len(features)} features "
                            f"the fit was trained on, e.g. {', '.join(missing[:5])}"
                            + ("; its rows are named like the features: is the file "
                               "transposed? It must be samples x genes" if transposed else "")
                            + (f"; {len(cased)} of them are in the file in another case (e.g. "
                               f"{cased[0][0]!r} for {cased[0][1]!r}): name the genes as the "
                               "fit's training file did" if cased else ""))
        extra = X.shape[1] - len(features)
        if extra > 0:
            print(f"note: {extra} column(s) of {args.x} that the fit was not trained on are "
                  f"ignored (e.g. {', '.join(str(c) for c in X.columns.difference(features)[:3])})",
                  file=sys.stderr)
        X = X[features]                                     # aligned by name
    else:
        if X.shape[1] != clf.n_features_in_:
            raise UserError(f"{args.x} has {X.shape[1]} features; the fit in {args.fit} was "
                            f"trained on an array of {clf.n_features_in_} columns without "
                            "names, which are taken in file order")
        print("note: the fit has no feature names (fitted on an array); the columns of "
              f"{args.x} are taken in file order", file=sys.stderr)
    if X.isna().to_numpy().any():
        from ..datasets._files import check_matrix_frame

        check_matrix_frame(X, args.x, missing_hint="the fit was trained on these genes and "
                           "predicts from all of them: impute them first")    # raises
    Xt = _apply_transform(pre, X)
    values = Xt.to_numpy(dtype=np.float64) if hasattr(Xt, "to_numpy") else Xt
    if getattr(clf, "feature_names_in_", None) is not None:
        values = pd.DataFrame(values, columns=list(clf.feature_names_in_))
    from ..estimators._base import FarFromTrainingWarning

    # the stack's models take seconds on hundreds of samples: say what is going on (after
    # the checks of the inputs, whose errors stay one line)
    print(f"selbayes predict: predicting {values.shape[0]} sample(s)...", file=sys.stderr,
          flush=True)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        proba = clf.predict_proba(values)
    for w in said:                      # rows named by the file's sample ids, not positions
        message = str(w.message)
        rows = getattr(w.message, "rows", None)
        if issubclass(w.category, FarFromTrainingWarning):
            if rows is not None:
                import re

                ids = ", ".join(map(repr, [str(X.index[i]) for i in rows[:5]]))
                more = ", ..." if len(rows) > 5 else ""
                message = re.sub(r"rows of X \(positions \[[^\]]*\]\)",
                                 f"samples of {args.x} ({ids}{more})", message)
            if getattr(args, "strict", False):
                # a pipeline that reads the output by name must not take an earlier run's
                earlier = (f"; the {dest} of an earlier run is left as it was"
                           if dest.exists() else "")
                raise UserError(f"{message} (--strict: nothing written{earlier})")
        warnings.warn(message, w.category, stacklevel=2)
    out = pd.DataFrame(proba, index=X.index, columns=[str(c) for c in clf.classes_])
    out.index.name = X.index.name or "sample"
    _make_parent(dest)
    try:
        out.to_csv(dest, float_format="%.17g")
    except OSError as exc:
        raise UserError(f"{dest}: cannot write the probabilities ({_os_reason(exc)})") from None
    n = proba.shape[0]
    print(f"saved: {dest} ({n} sample{'s' if n != 1 else ''} x {proba.shape[1]} classes)")
    return 0
