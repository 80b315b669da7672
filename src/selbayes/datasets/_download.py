"""Public expression data sets, downloaded once with pooch and read with rdata.

The registry (``selbayes/datasets/registry.csv``: name, file, url, sha256) pins each data set
to one original R data file at a fixed commit of a public repository, with its sha256 checksum:

* the nine benchmark sets and ``alon`` / ``khan`` from the datamicroarray collection (one
  list of ``x`` and ``y`` per study);
* ``srbct`` (Khan et al. 2001, all 83 SRBCT samples: the 63 training and 20 test samples) and
  ``colon`` (Alon et al. 1999, with the gene accession ids) from the CRAN package plsgenomics
  1.5-3 (``data/SRBCT.rda``, ``data/Colon.rda``; the files served by the CRAN mirror
  repository cran/plsgenomics, byte-identical to the CRAN release: their MD5 sums are those
  of the release's MD5 file). datamicroarray's ``khan`` holds only the 63 training samples and
  its ``alon`` is rounded to 2 decimals without gene names, hence this second source.

:func:`fetch` looks for the file, in order, in

1. ``$SELBAYES_DATA`` (its ``microarray/rdata/`` folder or the folder itself), unverified, so
   a local copy always wins;
2. the user data folder, ``platformdirs.user_data_dir("selbayes")/rdata`` (the ``data_home``
   argument replaces it);

and otherwise downloads it there with :mod:`pooch`, which writes to a temporary file and
moves it into place only once the checksum matches, so neither a checksum mismatch nor an
interrupted download leaves a file behind. The download location can be redirected (a mirror,
or a test server) with ``base_url=`` or ``$SELBAYES_DATA_URL``: the file name is appended.

:func:`load_rdata` turns a file into the :class:`selbayes.datasets.Dataset` every loader
returns (samples x genes ``X``, class labels ``y``), with the same checks.

References
----------
Ramey J. A., datamicroarray: collection of small-sample, high-dimensional microarray data
sets, https://github.com/ramhiser/datamicroarray.
Boulesteix A.-L., Durif G., Lambert-Lacroix S., Peyre J. and Strimmer K., plsgenomics: PLS
analyses for genomics, CRAN, version 1.5-3.
"""

from __future__ import annotations

import csv
import io
import os
import warnings
from importlib import resources
from pathlib import Path

__all__ = ["registry", "fetch", "load_rdata", "default_download_dir", "DownloadError"]

URL_ENV = "SELBAYES_DATA_URL"


class DownloadError(OSError):
    """A data set could not be downloaded or failed its checksum."""


def registry() -> dict[str, dict[str, str]]:
    """The data sets selbayes can download.

    Returns
    -------
    dict
        ``{name: {"file", "url", "sha256"}}``, from the packaged ``datasets/registry.csv``.
    """
    text = resources.files("selbayes.datasets").joinpath("registry.csv").read_text()
    return {row["name"]: {"file": row["file"], "url": row["url"], "sha256": row["sha256"]}
            for row in csv.DictReader(io.StringIO(text))}


def default_download_dir() -> Path:
    """``platformdirs.user_data_dir("selbayes") / "rdata"``: where downloads are kept."""
    import platformdirs

    return Path(platformdirs.user_data_dir("selbayes")) / "rdata"


def _name(name) -> str:
    """A registered data set's name as load_dataset reads it ("GOLUB " is golub)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, a name from registry(); got "
                        f"{type(name).__name__} {name!r}")
    return name.strip().lower()


def _entry(name: str) -> dict[str, str]:
    """The registry's row of ``name``, read by :func:`_name` by the caller."""
    reg = registry()
    if name not in reg:
        raise ValueError(f"unknown data set {name!r}; available: {', '.join(sorted(reg))}")
    return reg[name]


def fetch(name: str, *, data_home=None, base_url: str | None = None,
          progress: bool = False) -> Path:
    """The local path of a registered data set's file, downloading it once if needed.

    Parameters
    ----------
    name : str
        A name from :func:`registry` (e.g. ``"alon"``, ``"golub"``).
    data_home : path-like, optional
        Folder for downloads; default :func:`default_download_dir`.
    base_url : str, optional
        Download from ``base_url/<file>`` instead of the registry's URL (a mirror; tests);
        default ``$SELBAYES_DATA_URL`` if set.
    progress : bool
        Show a download progress bar (needs tqdm).

    Returns
    -------
    pathlib.Path
        The file (an R data file; read it with :func:`load_rdata`).

    Raises
    ------
    ValueError
        For an unknown name, or a ``data_home`` that is a file.
    TypeError
        When ``name`` or ``base_url`` is not a str, ``data_home`` not a path, or ``progress``
        not True or False.
    DownloadError
        If the download fails, is interrupted, or its sha256 differs from the registry's; no
        partial file is left in ``data_home``.
    """
    from .._validation import check_flag, check_path
    from ._dataset import _check_text

    name = _name(name)
    entry = _entry(name)
    if data_home is not None:
        data_home = check_path(data_home, "data_home")
        if data_home.is_file():
            raise ValueError(f"data_home must be a folder; {str(data_home)!r} is a file")
    _check_text(base_url, "base_url", optional=True)
    progress = check_flag(progress, "progress")
    env = os.environ.get("SELBAYES_DATA")
    if env:
        for folder in (Path(env) / "microarray" / "rdata", Path(env)):
            if (folder / entry["file"]).is_file():
                return folder / entry["file"]
    folder = Path(data_home) if data_home is not None else default_download_dir()
    target = folder / entry["file"]
    base_url = base_url or os.environ.get(URL_ENV)
    url = f"{base_url.rstrip('/')}/{entry['file']}" if base_url else entry["url"]
    import pooch

    try:
        path = pooch.retrieve(url, known_hash=f"sha256:{entry['sha256']}",
                              fname=entry["file"], path=folder, progressbar=progress)
    except ValueError as exc:             # pooch: checksum mismatch
        raise DownloadError(f"data set {name!r}: the file downloaded from {url} does not have "
                            f"the registered sha256 {entry['sha256'][:12]}... (damaged or "
                            f"changed upstream); nothing was saved") from exc
    except Exception as exc:  # noqa: BLE001 - requests/urllib3 errors: one clear message
        raise DownloadError(f"data set {name!r}: download from {url} failed "
                            f"({type(exc).__name__}: {exc}); nothing was saved. Copy the file "
                            f"{entry['file']} into {folder} or set SELBAYES_DATA") from exc
    return Path(path) if path else target


def load_rdata(name: str, *, data_home=None, base_url: str | None = None,
               drop_missing=False):
    """A registered data set as a :class:`selbayes.datasets.Dataset` (downloaded if needed).

    Parameters
    ----------
    name : str
        A name from :func:`registry`.
    data_home, base_url
        As in :func:`fetch`.
    drop_missing : {False, "genes", "samples"}
        As in :func:`selbayes.datasets.read_table`.

    Returns
    -------
    Dataset
        ``X`` samples x genes (the file's gene names as columns), ``y`` the class labels. For
        ``"srbct"`` and ``"colon"``, the same data set as :func:`selbayes.datasets.load_srbct`
        / :func:`~selbayes.datasets.load_colon` (stored scale).

    Raises
    ------
    ValueError
        For an unknown name or ``drop_missing``, and as :func:`fetch`.
    TypeError, DownloadError
        As :func:`fetch`.

    Examples
    --------
    >>> ds = load_rdata("alon")                          # doctest: +SKIP
    >>> ds.X.shape, sorted(ds.y.unique())                # doctest: +SKIP
    ((62, 2000), ['n', 't'])
    """
    import numpy as np
    import pandas as pd
    import rdata

    from ._dataset import _check_drop, _validated, reading_data_file

    _check_drop(drop_missing)
    name = _name(name)
    path = fetch(name, data_home=data_home, base_url=base_url)
    from ._loaders import _SOURCES, _paper_dataset, _read_paper_rda

    if name in _SOURCES:        # the papers' sets (plsgenomics' layout; no missing values)
        return _paper_dataset(name, *_read_paper_rda(name, path), log=False,
                              where=f" Read from {path}.")
    with warnings.catch_warnings(), reading_data_file(path, name):
        warnings.filterwarnings("ignore", message="Unknown encoding")
        content = rdata.read_rda(path)
    obj = content.get(name, next(iter(content.values())))
    if not isinstance(obj, dict) or "x" not in obj or "y" not in obj:
        raise ValueError(f"{path}: expected a list with elements x and y")
    x = obj["x"]
    values = np.asarray(getattr(x, "values", x), dtype=np.float64)
    if isinstance(x, pd.DataFrame):
        # an R data.frame (gravier's, singh's): its names were dropped for g1..gP before
        cols, index = list(map(str, x.columns)), list(map(str, x.index))
    else:
        cols = (list(map(str, x.coords[x.dims[1]].values))
                if hasattr(x, "coords") and x.dims[1] in x.coords
                else [f"g{j + 1}" for j in range(values.shape[1])])
        index = (list(map(str, x.coords[x.dims[0]].values))
                 if hasattr(x, "coords") and x.dims[0] in x.coords
                 else [str(i + 1) for i in range(values.shape[0])])
    frame = pd.DataFrame(values, index=pd.Index(index, name="sample"), columns=cols)
    y = pd.Series(np.asarray(pd.Series(obj["y"]).astype(object)), index=frame.index, name="y")
    entry = _entry(name)
    return _validated(frame, y, drop_missing=drop_missing, source=str(path), name=name,
                      description=f"{name} from the datamicroarray collection "
                                  f"({entry['url']}), sha256 {entry['sha256'][:12]}...")
