"""Downloads against a local HTTP server on 127.0.0.1 (no outside network): a good fetch, a
checksum mismatch and an interrupted body, each leaving no partial file in the cache."""

from __future__ import annotations

import hashlib
import http.server
import threading
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pooch")
pytest.importorskip("rdata")

from selbayes.datasets import _download  # noqa: E402

RDATA = Path("/work/shared/data/microarray/rdata")
if not RDATA.is_dir():  # the shared data folder beside the checkout
    RDATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "microarray" / "rdata"
pytestmark = pytest.mark.skipif(not (RDATA / "alon.RData").is_file(),
                                reason="the microarray rdata folder is not available")


class _Handler(http.server.SimpleHTTPRequestHandler):
    mode = "ok"           # "ok", "corrupt" (one byte changed), "truncate" (close mid-body)
    root = RDATA          # the folder served

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(self.root), **kwargs)

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.root / self.path.lstrip("/").split("?")[0]
        if not path.is_file():
            self.send_error(404)
            return
        body = path.read_bytes()
        if self.mode == "corrupt":
            body = bytes([body[0] ^ 1]) + body[1:]
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.mode == "truncate":
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.wfile.write(body)


@pytest.fixture
def server():
    handler = type("H", (_Handler,), {})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield handler, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def _no_local_copy(monkeypatch):
    monkeypatch.delenv("SELBAYES_DATA", raising=False)
    monkeypatch.delenv(_download.URL_ENV, raising=False)


def test_registry_matches_the_files():
    reg = _download.registry()
    assert "alon" in reg and reg["alon"]["url"].startswith("https://")
    digest = hashlib.sha256((RDATA / reg["alon"]["file"]).read_bytes()).hexdigest()
    assert digest == reg["alon"]["sha256"]


def test_fetch_downloads_once_and_reads(server, tmp_path):
    handler, url = server
    path = _download.fetch("alon", data_home=tmp_path, base_url=url)
    assert path == tmp_path / "alon.RData"
    assert path.read_bytes() == (RDATA / "alon.RData").read_bytes()
    handler.mode = "corrupt"                   # a second call must not download again
    assert _download.fetch("alon", data_home=tmp_path, base_url=url) == path
    ds = _download.load_rdata("alon", data_home=tmp_path, base_url=url)
    assert ds.X.shape == (62, 2000)
    assert ds.y.value_counts().to_dict() == {"t": 40, "n": 22}


def test_base_url_from_the_environment(server, tmp_path, monkeypatch):
    _, url = server
    monkeypatch.setenv(_download.URL_ENV, url)
    assert _download.fetch("golub", data_home=tmp_path).is_file()


def test_checksum_mismatch_is_clear_and_leaves_nothing(server, tmp_path):
    handler, url = server
    handler.mode = "corrupt"
    with pytest.raises(_download.DownloadError, match="sha256"):
        _download.fetch("alon", data_home=tmp_path, base_url=url)
    assert list(tmp_path.iterdir()) == []


def test_interrupted_download_is_clear_and_leaves_nothing(server, tmp_path):
    handler, url = server
    handler.mode = "truncate"
    with pytest.raises(_download.DownloadError, match="alon"):
        _download.fetch("alon", data_home=tmp_path, base_url=url)
    assert list(tmp_path.iterdir()) == []


def test_selbayes_data_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("SELBAYES_DATA", str(RDATA.parents[1]))
    # no server: the local copy is used without any download
    assert _download.fetch("alon", data_home=tmp_path, base_url="http://127.0.0.1:9") == \
        RDATA / "alon.RData"
    assert list(tmp_path.iterdir()) == []


def test_unknown_name():
    with pytest.raises(ValueError, match="available"):
        _download.fetch("nope")


def test_load_dataset_downloads_when_no_local_copy(server, tmp_path, monkeypatch):
    # No copy in $SELBAYES_DATA or the user data folder: the named loader fetches the original
    # R file (loopback mirror here) and gives the same matrix as the CSV copy.
    from selbayes.datasets import _loaders as datasets

    _, url = server
    monkeypatch.setenv(_download.URL_ENV, url)
    monkeypatch.setattr(datasets, "default_data_home", lambda: tmp_path / "nothing")
    monkeypatch.setattr(_download, "default_download_dir", lambda: tmp_path / "rdata")
    got = datasets.load_dataset("sorlie", preprocess=False)
    assert (tmp_path / "rdata" / _download.registry()["sorlie"]["file"]).is_file()
    ref = datasets.load_dataset("sorlie", data_home=RDATA.parent, preprocess=False)
    assert got.X.shape == ref.X.shape == (85, 456)
    assert list(got.X.index) == list(ref.X.index)
    assert list(got.X.columns) == list(ref.X.columns)
    assert (got.y.to_numpy() == ref.y.to_numpy()).all()
    # the CSV copies hold 10 significant digits
    np.testing.assert_allclose(got.X.to_numpy(), ref.X.to_numpy(), rtol=1e-9, atol=1e-12)
    # an explicit data_home never downloads
    with pytest.raises(FileNotFoundError):
        datasets.load_dataset("sorlie", data_home=tmp_path / "empty")


# ---------------------------------------------------------------------------------------------
# The papers' data (SRBCT, colon): the original plsgenomics files are not in the shared folder,
# so the test serves R files written from the CSV copies in plsgenomics' layout, with the
# registry's checksums swapped for theirs; everything else (download, checksum, reading,
# conversion) is the real path. The real files' checksums were computed from the pinned
# commit's blobs, whose MD5 sums equal those in the CRAN release's MD5 file.
# ---------------------------------------------------------------------------------------------
PAPER = RDATA.parents[1]                      # srbct_*.csv.gz, colon_*.csv.gz
HAVE_PAPER = all((PAPER / f"{n}_{p}.csv.gz").is_file() for n in ("srbct", "colon")
                 for p in ("X", "y", "genes"))


@pytest.fixture(scope="module")
def paper_rdata(tmp_path_factory):
    """SRBCT.rda and Colon.rda as plsgenomics stores them, written from the CSV copies."""
    import pandas as pd
    import rdata

    if not HAVE_PAPER:
        pytest.skip("the SRBCT / colon CSV copies are not available")
    folder = tmp_path_factory.mktemp("plsgenomics")
    read = {part: {n: pd.read_csv(PAPER / f"{n}_{part}.csv.gz", dtype=str if part == "genes"
                                  else None, keep_default_na=part != "genes")
                   for n in ("srbct", "colon")} for part in ("X", "y", "genes")}
    g = read["genes"]["srbct"]
    ids = pd.array([None if v == "NA" else int(v) for v in g["image_id"]], dtype="Int32")
    objects = {
        "SRBCT.rda": ("SRBCT", pd.DataFrame({"Image.Id.": ids, "Gene.Description":
                                             pd.Categorical(g["description"])})),
        "Colon.rda": ("Colon", read["genes"]["colon"]["gene"].to_numpy(dtype=object))}
    digests = {}
    for (file, (obj_name, names)), n in zip(objects.items(), ("srbct", "colon"), strict=True):
        rdata.write_rda(folder / file, {obj_name: {
            "X": read["X"][n].to_numpy(), "Y": read["y"][n].to_numpy().ravel().astype(float),
            "gene.names": names}})
        digests[n] = hashlib.sha256((folder / file).read_bytes()).hexdigest()
    return folder, digests


@pytest.fixture
def paper_server(paper_rdata, server, monkeypatch, tmp_path):
    """The loopback server on the written files; no local copy; downloads into tmp_path."""
    from selbayes.datasets import _loaders as datasets

    folder, digests = paper_rdata
    handler, url = server
    handler.root = folder
    real = _download.registry()

    def registry():
        return {k: dict(v, sha256=digests.get(k, v["sha256"])) for k, v in real.items()}

    monkeypatch.setattr(_download, "registry", registry)
    monkeypatch.setenv(_download.URL_ENV, url)
    monkeypatch.setattr(datasets, "default_data_home", lambda: tmp_path / "nothing")
    monkeypatch.setattr(_download, "default_download_dir", lambda: tmp_path / "rdata")
    return handler, tmp_path / "rdata"


def test_registry_pins_the_papers_data():
    reg = _download.registry()
    for name, file in (("srbct", "SRBCT.rda"), ("colon", "Colon.rda")):
        assert reg[name]["file"] == file
        assert reg[name]["url"] == ("https://github.com/cran/plsgenomics/raw/"
                                    f"8c770daf139b94f6dd073529a53863d6db902a98/data/{file}")
        assert len(reg[name]["sha256"]) == 64 and int(reg[name]["sha256"], 16) >= 0


@pytest.mark.parametrize("name", ["srbct", "colon"])
def test_paper_loader_downloads_the_same_dataset(paper_server, name):
    """load_srbct() / load_colon() with no local copy fetch the R file once and give exactly
    the data set of the CSV copies (values, labels, gene names and annotation); so does
    load_dataset(name)."""
    from selbayes.datasets import _loaders as datasets

    _, downloads = paper_server
    loader = datasets.load_srbct if name == "srbct" else datasets.load_colon
    got = loader()
    ref = loader(PAPER)
    assert (downloads / _download.registry()[name]["file"]).is_file()
    assert "Downloaded (sha256 checked)" in got.description
    assert got.X.equals(ref.X) and got.y.equals(ref.y) and got.genes.equals(ref.genes)
    bench = datasets.load_dataset(name, preprocess=False)
    assert bench.X.equals(ref.X)
    assert _download.load_rdata(name).X.equals(ref.X)
    assert _download.load_rdata(f" {name.upper()}").X.equals(ref.X)   # as load_dataset reads names


def test_paper_loader_checksum_mismatch_names_selbayes_data(paper_server):
    from selbayes.datasets import _loaders as datasets

    handler, downloads = paper_server
    handler.mode = "corrupt"
    with pytest.raises(FileNotFoundError, match="sha256") as err:
        datasets.load_srbct()
    assert "SELBAYES_DATA" in str(err.value) and "srbct_X.csv.gz" in str(err.value)
    assert not downloads.exists() or list(downloads.iterdir()) == []


@pytest.mark.parametrize("call, exc, phrase", [
    (lambda d: _download.fetch(3), TypeError, "name must be a str"),
    (lambda d: _download.fetch(None), TypeError, "name must be a str"),
    (lambda d: _download.fetch("alon", data_home=3), TypeError, "data_home must be a path"),
    (lambda d: _download.fetch("alon", data_home=d / "a_file"), ValueError,
     "data_home must be a folder"),
    (lambda d: _download.fetch("alon", base_url=3), TypeError, "base_url must be a str"),
    (lambda d: _download.fetch("alon", progress="yes"), TypeError,
     "progress must be True or False"),
    (lambda d: _download.load_rdata("alon", drop_missing="gene"), ValueError,
     "drop_missing must be one of"),
])
def test_bad_arguments_are_named_before_any_download(tmp_path, call, exc, phrase):
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(exc, match=phrase):
        call(tmp_path)


def test_an_r_data_frame_keeps_its_gene_names(monkeypatch):
    """gravier's x is an R data.frame: its column names (g2E09, ...) were replaced by
    g1..gP, against the docstring's "the file's gene names as columns"."""
    import warnings

    import rdata

    monkeypatch.setenv("SELBAYES_DATA", str(RDATA.parents[1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = rdata.read_rda(RDATA / "gravier.RData")["gravier"]["x"]
    ds = _download.load_rdata("gravier")
    assert ds.X.columns.tolist() == list(map(str, x.columns))
    assert ds.X.columns[0] == "g2E09"
