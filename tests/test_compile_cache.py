"""The compiled-model cache: a second process reuses the first one's machine code, nothing is
left in $TMPDIR, the cache folder is where the docs say, and a damaged entry is recompiled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# One small fit per process; prints the cache event of its compile ("hit" / "miss").
FIT = r"""
import json, sys
import numpy as np
import selbayes
from selbayes import _compile_cache as cc
which = sys.argv[1]
rng = np.random.default_rng(0)
y = np.repeat([0, 1], 10)
if which == "gaussian":
    X = rng.normal(size=(20, 30))
    clf = selbayes.HierarchicalGaussianClassifier(k=3, draws=50, tune=50, chains=1,
                                                  random_state=0, progressbar=False)
else:
    X = rng.integers(0, 2, size=(20, 30))
    clf = selbayes.BinaryNaiveBayesClassifier(k=3, method="mcmc", draws=50, tune=50, chains=1,
                                              random_state=0, progressbar=False)
import warnings
warnings.simplefilter("ignore")
clf.fit(X, y)
print(json.dumps({"event": cc._last_event.get("event"),
                  "proba": clf.predict_proba(X[:2]).tolist()}))
"""


def _run(which: str, env_extra: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MPLBACKEND": "Agg", **env_extra}
    env.pop("SELBAYES_NO_COMPILE_CACHE", None)
    res = subprocess.run([sys.executable, "-c", FIT, which], env=env, capture_output=True,
                         text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


# The naive Bayes variant compiles a second model in two fresh processes (~40 s on 2 cores):
# make slow; the Gaussian one keeps the mechanism in make test.
@pytest.mark.parametrize("which", ["gaussian",
                                   pytest.param("naive_bayes", marks=pytest.mark.slow)])
def test_second_process_hits_the_cache(which):
    """The first process compiles (or finds an earlier entry); the second must find it, and
    the reloaded code must give the same posterior as the freshly compiled one."""
    first = _run(which, {})
    second = _run(which, {})
    assert second["event"] == "hit"
    assert second["proba"] == first["proba"]          # same seed, same code: bit for bit


def test_no_files_left_in_tmpdir(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    _run("gaussian", {"TMPDIR": str(tmp), "TMP": str(tmp), "TEMP": str(tmp)})
    assert sorted(p.name for p in tmp.rglob("*")) == []


def test_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    from selbayes import _compile_cache as cc

    monkeypatch.setenv("SELBAYES_CACHE_DIR", str(tmp_path / "c"))
    assert cc.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("SELBAYES_CACHE_DIR")
    import platformdirs

    assert cc.cache_dir() == Path(platformdirs.user_cache_dir("selbayes"))


def test_corrupt_entry_is_ignored(tmp_path):
    from selbayes._compile_cache import _EntryCache

    path = tmp_path / "x-logp.nbc"
    path.write_bytes(b"not a pickle")
    assert _EntryCache(path).load_overload(None, None) is None
    assert _EntryCache(tmp_path / "absent.nbc").load_overload(None, None) is None


def test_atomic_write_leaves_no_temporary(tmp_path):
    from selbayes._compile_cache import _atomic_write

    _atomic_write(tmp_path / "sub" / "a.bin", b"123")
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["a.bin"]
    assert (tmp_path / "sub" / "a.bin").read_bytes() == b"123"


@pytest.mark.slow
def test_compile_line_then_hit_in_process(tmp_path, monkeypatch, capsys):
    """A miss announces the compilation on stderr and stores the entry; a rebuilt model of the
    same structure (other data) is then a hit with no line, and samples the same way as the
    freshly compiled code."""
    import numpy as np
    import nutpie
    import pymc as pm

    from selbayes import _compile_cache as cc

    monkeypatch.setenv("SELBAYES_CACHE_DIR", str(tmp_path / "cache"))

    def model(value):
        with pm.Model() as m:
            d = pm.Data("d", np.array([value, 2.0]))
            s = pm.HalfNormal("s", 1.0)
            pm.Normal("x", mu=d.sum(), sigma=s, observed=np.array([0.5, 1.5, 2.5]))
        return m

    first = cc.compile_pymc_model(model(1.0), progress=True)
    assert "compiling the model" in capsys.readouterr().err
    assert cc._last_event["event"] == "miss"
    assert cc.cache_info()["models"] == 1
    second = cc.compile_pymc_model(model(3.0), progress=True)
    assert cc._last_event["event"] == "hit"
    assert capsys.readouterr().err == ""
    kw = dict(draws=100, tune=100, chains=1, seed=4, progress_bar=False)
    a = nutpie.sample(first.with_data(d=np.array([3.0, 2.0])), **kw)
    b = nutpie.sample(second, **kw)
    np.testing.assert_array_equal(a.posterior["s"].values, b.posterior["s"].values)
