"""Tests of selbayes.datasets._loaders: the papers' loaders (the readers of the user's own
files: test_files.py).

The third-party data files are never part of the repository: tests of the loaders' logic write
synthetic files of the right shape to tmp_path; the checks against the real files (shapes and
class counts stated in PROVENANCE.md) skip when $SELBAYES_DATA does not hold them.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from selbayes.datasets import _loaders as datasets
from selbayes.datasets import load_colon, load_srbct

REAL = Path(os.environ.get("SELBAYES_DATA", "/nonexistent"))
HAVE_SRBCT = all((REAL / f"srbct_{p}.csv.gz").is_file() for p in ("X", "y", "genes"))
HAVE_COLON = all((REAL / f"colon_{p}.csv.gz").is_file() for p in ("X", "y", "genes"))


def write_fake(folder: Path, name: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic files in the provenance format (random values, the real shapes and counts)."""
    meta = datasets._SOURCES[name]
    n, p = meta["n_samples"], meta["n_genes"]
    rng = np.random.default_rng(seed)
    X = rng.lognormal(size=(n, p))
    codes = np.concatenate([[c] * k for c, k in meta["counts"].items()])
    rng.shuffle(codes)
    folder.mkdir(parents=True, exist_ok=True)
    cols = [f"g{j + 1}" for j in range(p)]
    pd.DataFrame(X, columns=cols).to_csv(folder / f"{name}_X.csv.gz", index=False)
    pd.DataFrame({"y": codes}).to_csv(folder / f"{name}_y.csv.gz", index=False)
    ids = [str(1000 + j) for j in range(p)]
    ids[5] = ids[4]  # one probe spotted twice, as in the real files
    if name == "srbct":
        genes = pd.DataFrame({"col": cols, "image_id": ids, "description": ["d"] * p})
    else:
        genes = pd.DataFrame({"col": cols, "gene": [f"Hsa.{i}" for i in ids]})
    genes.to_csv(folder / f"{name}_genes.csv.gz", index=False)
    return X, codes


@pytest.fixture(scope="module")
def fake_srbct(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fake_srbct")
    return folder, *write_fake(folder, "srbct")


@pytest.fixture
def tiny_colon(monkeypatch):
    """Shrink the expected colon shape so that synthetic files are quick to write."""
    meta = dict(datasets._SOURCES["colon"], n_samples=10, n_genes=12, counts={1: 4, 2: 6})
    monkeypatch.setitem(datasets._SOURCES, "colon", meta)


# ---------------------------------------------------------------------------------------------
# loaders (synthetic files)
# ---------------------------------------------------------------------------------------------
def test_load_srbct_from_data_home(fake_srbct):
    tmp_path, X, codes = fake_srbct
    ds = load_srbct(tmp_path)
    assert ds.X.shape == (83, 2308) and ds.X.columns.is_unique
    np.testing.assert_array_equal(ds.X.to_numpy(), X)
    names = {1: "EWS", 2: "BL/NHL", 3: "NB", 4: "RMS"}
    assert ds.y.tolist() == [names[c] for c in codes]
    assert ds.X.columns[0] == "IMAGE:1000"
    assert ds.X.columns[4] == "IMAGE:1004 (g5)" and ds.X.columns[5] == "IMAGE:1004 (g6)"
    assert "Khan" in ds.description and "Nature Medicine" in ds.description
    assert ds.genes.loc["IMAGE:1000", "source_column"] == "g1"
    np.testing.assert_allclose(load_srbct(tmp_path, log=True).X.to_numpy(), np.log(X))


def test_load_colon_from_data_home(tmp_path, tiny_colon):
    _, codes = write_fake(tmp_path, "colon")
    ds = load_colon(tmp_path)
    assert ds.X.shape == (10, 12)
    assert ds.y.value_counts().to_dict() == {"tumour": 6, "normal": 4}
    assert ds.y.tolist() == ["normal" if c == 1 else "tumour" for c in codes]
    assert "Alon" in ds.description and "PNAS" in ds.description


def test_lookup_order(tmp_path, monkeypatch, tiny_colon):
    env_dir, user_dir, explicit = tmp_path / "env", tmp_path / "user", tmp_path / "explicit"
    write_fake(user_dir, "colon", seed=1)
    env_dir.mkdir()
    monkeypatch.setattr(datasets, "default_data_home", lambda: user_dir)
    monkeypatch.setenv("SELBAYES_DATA", str(env_dir))
    # the environment folder lacks the files: the user data folder is next
    assert str(user_dir) in load_colon().description
    write_fake(env_dir, "colon", seed=2)
    assert str(env_dir) in load_colon().description
    # an explicit data_home is the only place looked in
    with pytest.raises(FileNotFoundError) as err:
        load_colon(explicit)
    msg = str(err.value)
    for needed in ("colon_X.csv.gz", "colon_y.csv.gz", "colon_genes.csv.gz", "plsgenomics",
                   "SELBAYES_DATA", str(explicit)):
        assert needed in msg


def test_missing_files_name_all_places(tmp_path, monkeypatch):
    """No local copy and no network (a closed loopback port stands in for the download
    server): one FileNotFoundError naming the folders searched, the failed download and the
    SELBAYES_DATA variable, and nothing left in the download folder."""
    from selbayes.datasets import _download

    monkeypatch.setattr(datasets, "default_data_home", lambda: tmp_path / "user")
    monkeypatch.setattr(_download, "default_download_dir", lambda: tmp_path / "downloads")
    monkeypatch.setenv(_download.URL_ENV, "http://127.0.0.1:9")
    monkeypatch.setenv("SELBAYES_DATA", str(tmp_path / "env"))
    with pytest.raises(FileNotFoundError, match="srbct_X.csv.gz") as err:
        load_srbct()
    msg = str(err.value).split("\n")[0]        # the command line shows the first line only
    assert str(tmp_path / "env") in msg and str(tmp_path / "user") in msg
    assert "download" in msg and "127.0.0.1:9/SRBCT.rda" in msg and "SELBAYES_DATA" in msg
    assert not (tmp_path / "downloads").exists() or not any((tmp_path / "downloads").iterdir())


def test_wrong_files_are_refused(tmp_path, fake_srbct):
    import shutil

    for part in ("X", "genes"):
        shutil.copy(fake_srbct[0] / f"srbct_{part}.csv.gz", tmp_path)
    pd.DataFrame({"y": [1] * 83}).to_csv(tmp_path / "srbct_y.csv.gz", index=False)
    with pytest.raises(ValueError, match="class codes"):
        load_srbct(tmp_path)


def test_default_data_home_is_a_user_folder():
    assert datasets.default_data_home().name == "selbayes"


# ---------------------------------------------------------------------------------------------
# the real files (skipped when absent)
# ---------------------------------------------------------------------------------------------
@pytest.mark.skipif(not HAVE_SRBCT, reason="SRBCT files not found in $SELBAYES_DATA")
def test_real_srbct_matches_provenance():
    ds = load_srbct()
    assert ds.X.shape == (83, 2308) and ds.X.columns.is_unique
    assert ds.y.value_counts().to_dict() == {"EWS": 29, "RMS": 25, "NB": 18, "BL/NHL": 11}
    v = ds.X.to_numpy()
    assert v.min() > 0 and abs(v.min() - 0.0025) < 5e-4 and abs(v.max() - 32.66) < 0.01
    assert ds.dropped == {"genes": [], "samples": []}


@pytest.mark.skipif(not HAVE_COLON, reason="colon files not found in $SELBAYES_DATA")
def test_real_colon_matches_provenance():
    ds = load_colon()
    assert ds.X.shape == (62, 2000) and ds.X.columns.is_unique
    assert ds.y.value_counts().to_dict() == {"tumour": 40, "normal": 22}


@pytest.mark.parametrize("call, exc, phrase", [
    (lambda d: datasets.load_dataset(None), TypeError, "name must be a str, one of borovecki"),
    (lambda d: datasets.load_dataset(3), TypeError, "name must be a str"),
    (lambda d: datasets.load_dataset("nope", data_home=d), ValueError,
     "unknown data set 'nope'; known: borovecki"),
    (lambda d: datasets.load_dataset("golub", data_home=3), TypeError,
     "data_home must be a path"),
    (lambda d: datasets.load_dataset("golub", data_home=d / "a_file"), ValueError,
     "data_home must be a folder; .*a_file' is a file"),
    (lambda d: datasets.load_dataset("golub", data_home=d, preprocess="no"), TypeError,
     "preprocess must be True or False"),
    (lambda d: load_srbct(d, log="yes"), TypeError, "log must be True or False"),
    (lambda d: load_srbct(data_home=2.5), TypeError, "data_home must be a path"),
    (lambda d: load_colon(d / "a_file"), ValueError, "data_home must be a folder"),
    (lambda d: datasets.find_data_home(3, d), TypeError, "name must be a str"),
    (lambda d: datasets.find_data_home("colon", d / "nowhere"), FileNotFoundError,
     "colon_X.csv.gz"),
])
def test_loaders_name_the_bad_argument(tmp_path, call, exc, phrase):
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(exc, match=phrase):
        call(tmp_path)


def test_load_dataset_name_ignores_case_and_spaces(tmp_path):
    # " Golub " is golub: the error is then about its files, not an unknown name
    with pytest.raises(FileNotFoundError, match="golub_X.csv.gz"):
        datasets.load_dataset(" Golub ", data_home=tmp_path)


def test_dataset_matches_labels_to_rows_by_id():
    """Labels indexed by X's ids in another order were taken as given: code reading them by
    position (the reproductions) and code matching them by id (the benchmark) disagreed."""
    from selbayes.datasets import Dataset

    X = pd.DataFrame({"g": [1.0, 2.0, 3.0, 4.0]}, index=["s1", "s2", "s3", "s4"])
    shuffled = pd.Series(list("bbaa"), index=["s4", "s3", "s2", "s1"])
    with pytest.warns(UserWarning, match="y lists the samples of X in another order"):
        ds = Dataset(X=X, y=shuffled)
    assert ds.y.index.equals(X.index) and ds.y.tolist() == list("aabb")
    # no sample ids (the default 0..n-1 index, or ids none of which are X's): row order,
    # and X's ids from then on
    for plain in (pd.Series(list("aabb")), pd.Series(list("aabb"), index=list("wxyz"))):
        ds = Dataset(X=X, y=plain)
        assert ds.y.index.equals(X.index) and ds.y.tolist() == list("aabb")
    with pytest.raises(ValueError, match=r"y is keyed by sample id, but not by exactly the "
                                         r"samples of X: 1 only in X \('s4'\)"):
        Dataset(X=X, y=pd.Series(list("aabb"), index=["s1", "s2", "s3", "x4"]))


def _golub_copy(tmp_path, *, labels=("ALL", "ALL", "AML", "AML", "AML", "ALL"),
                x_bytes=None):
    """A small CSV copy of golub in ``tmp_path/microarray`` (6 cases x 3 genes), or X's file
    with the given bytes."""
    folder = tmp_path / "microarray"
    folder.mkdir()
    if x_bytes is None:
        values = np.random.default_rng(0).uniform(100, 1000, size=(len(labels), 3))
        pd.DataFrame(values, columns=["g1", "g2", "g3"]).to_csv(folder / "golub_X.csv.gz",
                                                               index=False)
    else:
        (folder / "golub_X.csv.gz").write_bytes(x_bytes)
    pd.DataFrame({"y": list(labels)}).to_csv(folder / "golub_y.csv.gz", index=False)


def test_a_missing_label_in_a_csv_copy_is_missing_not_a_class(tmp_path):
    """astype(str) turned an empty cell into the class "nan" with pandas 2's object strings
    (pyproject allows pandas 2); run with them (future.infer_string off, as pandas 2 reads),
    where the old code fails this test, and with the installed default."""
    _golub_copy(tmp_path, labels=("ALL", "ALL", None, "AML", "AML", "ALL"))
    for pandas2_strings in (True, False):
        with pd.option_context("future.infer_string", not pandas2_strings), \
                pytest.raises(ValueError, match="1 missing label"):
            datasets.load_dataset("golub", data_home=tmp_path)


@pytest.mark.parametrize("content", [b"\x00\x01 not gzip", b""])
def test_a_damaged_csv_copy_is_named_with_its_data_set(tmp_path, content):
    """gzip's "Not a gzipped file" or pandas' EmptyDataError named neither file nor set."""
    _golub_copy(tmp_path, labels=("ALL", "AML"), x_bytes=content)
    with pytest.raises(ValueError, match=r"golub_X.csv.gz: not a readable copy of the golub "
                                         r"data .*delete it, or replace it"):
        datasets.load_dataset("golub", data_home=tmp_path)


def test_no_copy_and_no_download_names_the_folders_searched(tmp_path, monkeypatch):
    """With SELBAYES_DATA set to a folder without the set, the download's own error was all
    the user saw (and it said to set SELBAYES_DATA); now FileNotFoundError, as documented,
    naming the folders searched and then the download's failure."""
    from selbayes.datasets._download import DownloadError

    def offline(key, meta):
        raise DownloadError("download failed (offline)")

    monkeypatch.setenv("SELBAYES_DATA", str(tmp_path / "empty"))
    monkeypatch.setattr(datasets, "default_data_home", lambda: tmp_path / "home")
    monkeypatch.setattr(datasets, "_download_microarray", offline)
    with pytest.raises(FileNotFoundError, match=r"not found in .*empty.* The download of the "
                                                r"original file failed too: download failed"):
        datasets.load_dataset("golub")
