"""``selbayes predict`` (``selbayes.cli._predict``): a fit saved by ``selbayes fit`` or by a
classifier's save() predicts as the Python object does; its transform is applied; missing
features are named."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from selbayes.cli import main

from ._helpers import _one_line_error, _two_class_files


@pytest.mark.filterwarnings("ignore:MCMC diagnostics failed")
def test_fit_predict_round_trip_is_bit_for_bit(tmp_path, monkeypatch, capsys):
    """`selbayes fit` then `selbayes predict` equals predict_proba of the Python API."""
    from selbayes import HierarchicalGaussianClassifier

    rng = np.random.default_rng(3)
    n, p = 30, 40
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, p)) + (y == "b")[:, None] * np.r_[np.ones(4), np.zeros(p - 4)]
    names = [f"gene{j}" for j in range(p)]
    frame = pd.DataFrame(X, columns=names, index=pd.Index([f"s{i}" for i in range(n)],
                                                          name="sample"))
    frame.to_csv(tmp_path / "X.csv", float_format="%.17g")
    # labels with sample ids, in another order than X: matched by id
    pd.DataFrame({"id": frame.index[::-1], "label": y[::-1]}).to_csv(tmp_path / "y.csv",
                                                                      index=False)
    new = pd.DataFrame(rng.normal(size=(7, p)), columns=names)
    # columns in another order: predict must align them by name
    new[names[::-1]].to_csv(tmp_path / "new.tsv", sep="\t", index=False, float_format="%.17g")

    # k = 10: the model of that shape is compiled for tests/evaluation/test_ppc.py,
    # tests/estimators/test_inner_cv.py's invariance test, tests/test_estimator_contract.py
    # and tests/evaluation/test_cross_validation.py as well
    settings = ["--k", "10", "--seed", "11", "--draws", "150", "--tune", "150", "--chains", "2"]
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 *settings, "--no-progress", "-o", str(tmp_path / "fit.nc")]) == 0
    printed = capsys.readouterr().out
    assert "k: 10;" in printed and "threshold gamma:" in printed
    assert "selected (best first): gene" in printed and "diagnostics:" in printed
    assert "label noise: " in printed and "chosen by inner CV" in printed
    assert "labels: none contradicted by the held-out predictions" in printed
    assert "replicates: " in printed
    # -o into a folder that does not exist yet: created
    assert main(["predict", str(tmp_path / "fit.nc"), "--x", str(tmp_path / "new.tsv"),
                 "-o", str(tmp_path / "new_folder" / "proba.csv")]) == 0
    got = pd.read_csv(tmp_path / "new_folder" / "proba.csv", index_col=0)

    clf = HierarchicalGaussianClassifier(k=10, random_state=11, draws=150, tune=150, chains=2,
                                         progressbar=False)
    clf.fit(pd.read_csv(tmp_path / "X.csv", index_col=0).to_numpy(), y)
    want = clf.predict_proba(new.to_numpy())
    assert list(got.columns) == ["a", "b"]
    np.testing.assert_array_equal(got.to_numpy(), want)
    # clf.save into a folder that does not exist: one clear line, not h5py's flags
    with pytest.raises(FileNotFoundError, match=r"no_such_folder: no such folder"):
        clf.save(tmp_path / "no_such_folder" / "f.nc")
    _saved_transform_warns_in_python_only(tmp_path, new)


def _saved_transform_warns_in_python_only(tmp_path, new):
    """A fit made by `selbayes fit --transform log2` (its attribute set on a copy of a CLI
    fit) warns when loaded in Python, where predict_proba does not transform; the CLI's
    predict, which applies the transform, does not warn; a fit without it does not warn."""
    import shutil
    import warnings

    import h5py

    from selbayes import HierarchicalGaussianClassifier
    from selbayes.cli._classifiers import _TRANSFORM_ATTR
    from selbayes.estimators._persistence import INPUT_TRANSFORM_ATTR, SavedTransformWarning

    assert _TRANSFORM_ATTR == INPUT_TRANSFORM_ATTR
    shutil.copy(tmp_path / "fit.nc", tmp_path / "log2.nc")
    with h5py.File(tmp_path / "log2.nc", "a") as f:
        f.attrs[_TRANSFORM_ATTR] = json.dumps({"transform": "log2", "floor": 1.0,
                                               "ceiling": None})
    with pytest.warns(SavedTransformWarning, match=r"--transform log2 --floor 1'.*"
                                                   r"IntensityLog2\(floor=1\.0, ceiling=None\)"):
        HierarchicalGaussianClassifier.load(tmp_path / "log2.nc")
    (np.exp2(new) + 1.0).to_csv(tmp_path / "raw.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SavedTransformWarning)
        HierarchicalGaussianClassifier.load(tmp_path / "fit.nc")          # no transform
        assert main(["predict", str(tmp_path / "log2.nc"), "--x", str(tmp_path / "raw.csv"),
                     "-o", str(tmp_path / "raw_proba.csv")]) == 0


def test_predict_reports_missing_features(tmp_path, capsys):
    import h5py

    from selbayes.cli._classifiers import _FEATURES_ATTR, _MODEL_ATTR

    path = tmp_path / "fit.nc"
    with h5py.File(path, "w") as f:
        f.attrs[_FEATURES_ATTR] = '["g1", "g2"]'
        f.attrs[_MODEL_ATTR] = "gaussian"
    pd.DataFrame({"g1": [1.0]}).to_csv(tmp_path / "new.csv", index=False)
    # the file is not a real fit: loading fails first or the feature check does; both exit 2
    assert main(["predict", str(path), "--x", str(tmp_path / "new.csv"), "-o",
                 str(tmp_path / "p.csv")]) == 2
    _one_line_error(capsys)


@pytest.mark.filterwarnings("ignore:MCMC diagnostics failed")
@pytest.mark.parametrize("with_names", [True, False])
def test_predict_accepts_a_save_from_python(tmp_path, capsys, with_names):
    """A file from clf.save() (no CLI attributes) predicts as the Python object does; a fit on
    an array takes the columns in file order, and says so."""
    from selbayes import HierarchicalGaussianClassifier

    X, y = _two_class_files(tmp_path, n=20, p=12)
    clf = HierarchicalGaussianClassifier(k=10, draws=100, tune=100, chains=1, random_state=0,
                                         progressbar=False)
    clf.fit(X if with_names else X.to_numpy(), y)
    clf.save(tmp_path / "py.nc")
    new = X.iloc[:5]
    (new[new.columns[::-1]] if with_names else new).to_csv(tmp_path / "new.csv")
    assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "new.csv"),
                 "-o", str(tmp_path / "p.csv")]) == 0
    got = pd.read_csv(tmp_path / "p.csv", index_col=0)
    want = clf.predict_proba(new if with_names else new.to_numpy())
    np.testing.assert_array_equal(got.to_numpy(), want)
    assert list(got.index) == list(new.index)
    assert ("file order" in capsys.readouterr().err) is (not with_names)
    if with_names:                     # genes as rows: the error says the file is transposed
        new.T.to_csv(tmp_path / "new_t.csv")
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "new_t.csv"),
                     "-o", str(tmp_path / "p_t.csv")]) == 2
        assert "is the file transposed?" in _one_line_error(capsys)
        # the genes in another case (another annotation's spelling): said, with the fix
        new.rename(columns=str.upper).to_csv(tmp_path / "new_upper.csv")
        assert main(["predict", str(tmp_path / "py.nc"), "--x",
                     str(tmp_path / "new_upper.csv"), "-o", str(tmp_path / "p_u.csv")]) == 2
        assert ("12 of them are in the file in another case (e.g. 'G0' for 'g0'): name the "
                "genes as the fit's training file did") in _one_line_error(capsys)
        # genes the fit did not see are ignored, with a note
        new.assign(extra_gene=1.0).to_csv(tmp_path / "new_x.csv")
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "new_x.csv"),
                     "-o", str(tmp_path / "p_x.csv")]) == 0
        assert "1 column(s) of" in capsys.readouterr().err
        np.testing.assert_array_equal(pd.read_csv(tmp_path / "p_x.csv", index_col=0), want)
        # a missing value in a gene the fit did not see changes nothing; in one it was
        # trained on, it is named (predict drops nothing: every sample gets its row)
        new.assign(extra_gene=[np.nan, 1.0, 1.0, 1.0, 1.0]).to_csv(tmp_path / "new_na.csv")
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "new_na.csv"),
                     "-o", str(tmp_path / "p_na.csv")]) == 0
        capsys.readouterr()
        np.testing.assert_array_equal(pd.read_csv(tmp_path / "p_na.csv", index_col=0), want)
        new.assign(g3=[1.0, np.nan, 1.0, 1.0, 1.0]).to_csv(tmp_path / "new_na3.csv")
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "new_na3.csv"),
                     "-o", str(tmp_path / "p_na3.csv")]) == 2
        line = _one_line_error(capsys)
        assert "1 missing value(s) in 1 gene(s) ('g3') of 1 sample(s) ('s1')" in line
        assert "impute them first" in line and "--drop-missing" not in line
        # samples on another scale than fit: named by the file's sample ids, not positions
        (2.0 ** (new + 12.0)).to_csv(tmp_path / "raw.csv")
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "raw.csv"),
                     "-o", str(tmp_path / "p_raw.csv")]) == 0
        err = capsys.readouterr().err
        assert f"FarFromTrainingWarning: 5 of 5 samples of {tmp_path / 'raw.csv'} " \
               f"({', '.join(map(repr, list(new.index)))}) lie far" in err
        assert "positions" not in err
        # --strict: the same is an error, and nothing is written
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "raw.csv"),
                     "--strict", "-o", str(tmp_path / "p_strict.csv")]) == 2
        line = capsys.readouterr().err.strip().splitlines()[-1]     # after the note, if any
        assert line.startswith("selbayes: error: 5 of 5 samples of ") and "--strict" in line
        assert not (tmp_path / "p_strict.csv").exists()
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "new.csv"),
                     "--strict", "-o", str(tmp_path / "p_strict.csv")]) == 0
        # again with that output there: refused, and the earlier file is said to be left
        earlier = (tmp_path / "p_strict.csv").read_text()
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "raw.csv"),
                     "--strict", "-o", str(tmp_path / "p_strict.csv")]) == 2
        line = capsys.readouterr().err.strip().splitlines()[-1]
        assert line.endswith(f"(--strict: nothing written; the {tmp_path / 'p_strict.csv'} of "
                             f"an earlier run is left as it was) (run with --debug for the "
                             f"traceback)")
        assert (tmp_path / "p_strict.csv").read_text() == earlier
        # numbered samples under a header that is no id word ("tumour" 11, 7, 2, ...): the
        # column was a gene the fit ignores, and p.csv named the samples 0, 1, 2, ...
        ids = pd.Index([11, 7, 2, 30, 4], name="tumour")
        new.set_axis(ids).to_csv(tmp_path / "numbered.csv")
        assert main(["predict", str(tmp_path / "py.nc"), "--x", str(tmp_path / "numbered.csv"),
                     "-o", str(tmp_path / "p_numbered.csv")]) == 0
        assert "the first column, 'tumour', is no feature of the fit" in capsys.readouterr().err
        got = pd.read_csv(tmp_path / "p_numbered.csv", index_col=0)
        assert got.index.tolist() == ids.tolist()
        np.testing.assert_array_equal(got.to_numpy(), want)
