"""The user's files: the matrix X (CSV/TSV or ``.h5ad``), the ``--transform`` settings (log2)
and their application, the binary models' check of X, and the output file's folder (made
before the work starts, so that a bad path fails at once)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from ._errors import UserError, _os_reason

#: What the message about missing values in --x tells the user to do on the command line.
_MISSING_HINT = ("impute or remove them first, or give --drop-missing genes (drops those genes) "
                 "or --drop-missing samples (drops those samples)")


def _not_an_input(output, *inputs) -> None:
    """A UserError where ``output`` is the same file as one of ``inputs`` (None skipped):
    written, it replaced the fit, the labels or the matrix the command read."""
    out = Path(output).expanduser().resolve()
    for given in inputs:
        if given is not None and Path(given).expanduser().resolve() == out:
            raise UserError(f"{output}: the output file is also an input of the command "
                            f"({given}); choose another output")


def _read_x(path: str, *, layer: str | None = None, allow_missing: bool = False):
    """The expression matrix of a CSV/TSV or ``.h5ad`` file as a checked DataFrame (samples x
    genes, sample ids as the index); NaN where values are missing if ``allow_missing`` (for
    ``--drop-missing``), else an error naming them and the option."""
    from ..datasets._files import check_matrix_frame, read_matrix

    p = Path(path)
    if p.suffix.lower() != ".h5ad":
        if layer is not None:
            raise UserError(f"--layer applies to .h5ad files only; {path} is a table")
        X = read_matrix(p, allow_missing=True)
        if not allow_missing and X.isna().to_numpy().any():
            check_matrix_frame(X, str(p), missing_hint=_MISSING_HINT)     # raises, naming them
        return X
    adata = _read_h5ad(p)
    import pandas as pd

    if layer is not None and layer not in [k for k in adata.layers.keys() if k is not None]:
        available = [str(k) for k in adata.layers.keys() if k is not None]
        raise UserError(f"{path}: no layer {layer!r}; its layers are "
                        f"{', '.join(available) if available else 'none'}")
    matrix = adata.X if layer is None else adata.layers[layer]
    if hasattr(matrix, "toarray"):
        matrix = matrix.toarray()
    X = pd.DataFrame(matrix, index=pd.Index(adata.obs_names.astype(str), name="sample"),
                     columns=list(adata.var_names.astype(str)))
    return check_matrix_frame(X, str(p), allow_missing=allow_missing, missing_hint=_MISSING_HINT)


def _read_h5ad(p: Path):
    if not p.is_file():
        raise UserError(f"{p}: no such file")
    try:
        import anndata
    except ImportError:
        raise UserError(f"{p}: reading .h5ad files needs the package anndata, which is not "
                        "installed; install it with: pip install 'selbayes[anndata]' (or "
                        "write the matrix as CSV)") from None
    try:
        return anndata.read_h5ad(p)
    except OSError as exc:
        raise UserError(f"{p}: not a readable .h5ad file ({_os_reason(exc)})") from None


def _transform_settings(args, X=None) -> dict | None:
    """The --transform/--floor/--ceiling settings (checked; the data are checked by the
    transform itself, :func:`_apply_transform`). ``auto`` (the default) is log2 floored at 1
    where ``X`` looks like raw intensities, as ``selbayes benchmark`` decides, and none
    otherwise (and for the binary models)."""
    if args.transform != "log2":
        if args.floor is not None or args.ceiling is not None:
            raise UserError("--floor/--ceiling need --transform log2")
        if args.transform == "none" or args.model != "gaussian" or X is None:
            return None
        from ..preprocessing._intensity import auto_log2_settings, lowered_floor_note

        # the benchmark's default rule; saved with the fit, so that 'selbayes predict' applies
        # it to new samples
        auto = auto_log2_settings(X)
        if auto["transform"] == "none":
            return None
        print(f"selbayes fit: {args.x}: the values look like raw intensities: fitting log2 of "
              f"them, floored at {auto['floor']:.3g}{lowered_floor_note(auto)} (saved with the "
              f"fit; 'selbayes predict' applies it; --transform none keeps them as given)",
              file=sys.stderr)
        return {"transform": "log2", "floor": auto["floor"], "ceiling": None}
    from ..preprocessing._intensity import IntensityLog2

    pre = {"transform": "log2", "floor": 1.0 if args.floor is None else float(args.floor),
           "ceiling": None if args.ceiling is None else float(args.ceiling)}
    IntensityLog2(floor=pre["floor"], ceiling=pre["ceiling"])._check_params()
    return pre


def _apply_transform(pre: dict | None, X, source: str | None = None):
    """X transformed as ``pre`` says. IntensityLog2's warning that the values do not look like
    intensities is passed on naming ``source`` (the file), or dropped without one (predict:
    the fit's settings, which the user cannot change there)."""
    if pre is None:
        return X
    from ..preprocessing._intensity import IntensityLog2, Log2InputWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", Log2InputWarning)
        Xt = IntensityLog2(floor=pre["floor"], ceiling=pre["ceiling"]).fit_transform(X)
    for w in caught:
        if not issubclass(w.category, Log2InputWarning):
            warnings.warn(w.message, w.category, stacklevel=2)
        elif source is not None:
            text = str(w.message).removeprefix("IntensityLog2: ")
            warnings.warn(f"{source}: {text}", Log2InputWarning, stacklevel=2)
    return Xt


def _check_binary_file(X, path: str, model: str) -> None:
    """The binary models' check (:func:`selbayes._validation.first_non_binary`), naming the
    file, a gene and a sample."""
    from .._validation import first_non_binary

    values = X.to_numpy()
    found = first_non_binary(values)
    if found is not None:
        count, (i, j) = found
        raise UserError(f"{path}: --model {model} needs binary (0/1) values; {count} "
                        f"are not, e.g. {values[i, j]:g} for gene {X.columns[j]} in sample "
                        f"{X.index[i]} (use --model gaussian for continuous data)")


def _check_output_path(out: Path) -> None:
    """Check, before the work and writing nothing, that the output can be written: a fit of
    minutes was lost to an output path under a file ("X.csv/fit.nc"), then reported as "no
    such folder", or in a folder that takes no new files. An output that exists (a file to
    replace, /dev/stdout) is checked for writing itself; a new one in an existing folder by
    making and removing a file there."""
    import os
    import tempfile

    if out.is_dir():
        raise UserError(f"{out} is a folder; give a file name for the output")
    for above in out.parents:
        if above.exists():
            if not above.is_dir():
                raise UserError(f"{above} is a file, not a folder: the output {out} cannot be "
                                f"written under it")
            break
    if out.exists():
        if not os.access(out, os.W_OK):
            raise UserError(f"{out}: cannot write the output (no permission to write it)")
        return
    if not out.parent.is_dir():
        return                          # created by _make_parent, which names what fails
    try:
        with tempfile.NamedTemporaryFile(dir=out.parent, prefix=".selbayes-write-check-"):
            pass
    except OSError as exc:
        raise UserError(f"{out}: cannot write the output "
                        f"({_os_reason(exc, writing=True)})") from None


def _make_parent(out: Path) -> None:
    """:func:`_check_output_path`, then create the output's folder where it is missing."""
    _check_output_path(out)
    parent = out.parent
    if not parent.exists():
        try:
            parent.mkdir(parents=True)
        except OSError as exc:
            raise UserError(f"{parent}: cannot create the output folder "
                            f"({_os_reason(exc)})") from None
        _check_output_path(out)         # the new folder's own check
