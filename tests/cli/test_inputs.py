"""The user's files (``selbayes.cli._inputs``): reading X (CSV/TSV, .h5ad) with one-line errors
naming the file, the --transform settings and their warnings, the output's folder."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from selbayes.cli import main

from ._helpers import _one_line_error, _two_class_files


def test_missing_data_file_exits_2(tmp_path, capsys):
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", "y.csv", "-o",
                 str(tmp_path / "f.nc")]) == 2
    assert "X.csv" in _one_line_error(capsys)


def test_unnamed_sample_id_column_is_read_as_the_index(tmp_path):
    """A CSV written by pandas' to_csv has an empty first header cell over the sample ids: the
    ids become the index (so `predict` writes them under "sample", not "Unnamed: 0")."""
    from selbayes.cli._inputs import _read_x

    frame = pd.DataFrame(np.arange(6.0).reshape(3, 2), columns=["g1", "g2"],
                         index=["s1", "s2", "s3"])
    frame.to_csv(tmp_path / "x.csv")
    X = _read_x(str(tmp_path / "x.csv"))
    assert list(X.index) == ["s1", "s2", "s3"]
    assert list(X.columns) == ["g1", "g2"]


@pytest.mark.parametrize("content, expect", [
    ("", "is empty"),
    ("g1,g1,g2\n1,2,3\n4,5,6\n", "duplicated gene name(s): 'g1'"),
    ("id,g1,g2\ns1,1,\ns2,3,4\n", "missing value(s) in 1 gene(s) ('g2')"),
    ("id,g1,g2\ns1,1,abc\ns2,3,4\n", "non-numeric gene column(s): 'g2'"),
])
def test_bad_matrix_files_exit_2_naming_file_and_gene(tmp_path, capsys, content, expect):
    (tmp_path / "X.csv").write_text(content)
    pd.DataFrame({"label": ["a", "b"]}).to_csv(tmp_path / "y.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "-o", str(tmp_path / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "X.csv" in line and expect in line
    assert "No columns to parse" not in line and "position" not in line


def test_duplicated_gene_names_alike_in_cli_and_read_table(tmp_path, capsys):
    from selbayes.datasets import read_table

    (tmp_path / "X.csv").write_text("label,g1,g1,g2\na,1,2,3\na,2,2,3\nb,4,5,6\nb,4,5,7\n")
    with pytest.raises(ValueError, match=r"1 duplicated gene name\(s\): 'g1'"):
        read_table(tmp_path / "X.csv", label_column="label")
    (tmp_path / "Xcli.csv").write_text("id,g1,g1,g2\ns1,1,2,3\ns2,2,2,3\n")
    pd.DataFrame({"label": ["a", "b"]}).to_csv(tmp_path / "y.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "Xcli.csv"), "--y", str(tmp_path / "y.csv"),
                 "-o", str(tmp_path / "f.nc")]) == 2
    assert "1 duplicated gene name(s): 'g1'" in _one_line_error(capsys)


def test_h5ad_without_anndata_exits_2(tmp_path, monkeypatch, capsys):
    (tmp_path / "X.h5ad").write_bytes(b"not really")
    monkeypatch.setitem(sys.modules, "anndata", None)          # import anndata fails
    assert main(["fit", "--x", str(tmp_path / "X.h5ad"), "--label-key", "cell_type",
                 "-o", str(tmp_path / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "X.h5ad" in line and "anndata" in line and "pip install" in line


def _raw_intensity_files(tmp_path) -> pd.DataFrame:
    """raw.csv (20 samples x 30 genes of log-normal intensities, no ids) and y.csv (one
    column of labels); returns the intensities."""
    rng = np.random.default_rng(2)
    raw = pd.DataFrame(rng.lognormal(6, 1.5, size=(20, 30)),
                       columns=[f"g{j}" for j in range(30)])
    raw.to_csv(tmp_path / "raw.csv", index=False)
    pd.DataFrame({"label": np.repeat(["a", "b"], 10)}).to_csv(tmp_path / "y.csv", index=False)
    return raw


def test_log2_on_intensities_transforms_and_on_z_scores_warns(tmp_path, captured_fit, capsys):
    raw = _raw_intensity_files(tmp_path)
    main(["fit", "--x", str(tmp_path / "raw.csv"), "--y", str(tmp_path / "y.csv"),
          "--transform", "log2", "--floor", "1", "-o", str(tmp_path / "f.nc")])
    np.testing.assert_allclose(captured_fit["X"].to_numpy(),
                               np.log2(np.clip(raw.to_numpy(), 1, None)), rtol=1e-12)
    assert "Log2InputWarning" not in capsys.readouterr().err
    z = (raw - raw.mean()) / raw.std()
    z.to_csv(tmp_path / "z.csv", index=False)
    main(["fit", "--x", str(tmp_path / "z.csv"), "--y", str(tmp_path / "y.csv"),
          "--transform", "log2", "-o", str(tmp_path / "f.nc")])
    err = capsys.readouterr().err
    # the warning names the command and the file, not a Python source line
    assert "selbayes fit: Log2InputWarning: " in err and "z.csv" in err
    assert "do not look like intensities" in err and "--transform none" in err
    assert "sys.exit" not in err and "warnings.warn" not in err


def test_fit_transform_auto_logs_raw_intensities_as_the_benchmark_does(tmp_path,
                                                                       captured_fit, capsys):
    """By default (--transform auto) values that look like raw intensities are fitted as
    log2 floored at 1, and the command says so; --transform none keeps them; values that do
    not look raw are fitted as given, without a word; the binary models are never logged."""
    raw = _raw_intensity_files(tmp_path)
    base = ["fit", "--y", str(tmp_path / "y.csv"), "-o", str(tmp_path / "f.nc")]
    main([*base, "--x", str(tmp_path / "raw.csv")])
    np.testing.assert_allclose(captured_fit["X"].to_numpy(),
                               np.log2(np.clip(raw.to_numpy(), 1, None)), rtol=1e-12)
    assert "the values look like raw intensities: fitting log2 of them, floored at 1" in \
        capsys.readouterr().err
    (raw / 1000).to_csv(tmp_path / "thousands.csv", index=False)   # other units: own floor
    main([*base, "--x", str(tmp_path / "thousands.csv")])
    floor = np.quantile(raw.to_numpy() / 1000, 0.1)
    assert floor < 1
    np.testing.assert_allclose(captured_fit["X"].to_numpy(),
                               np.log2(np.clip(raw.to_numpy() / 1000, floor, None)), rtol=1e-9)
    assert f"floored at {floor:.3g} (the 10th percentile" in capsys.readouterr().err
    main([*base, "--x", str(tmp_path / "raw.csv"), "--transform", "none"])
    np.testing.assert_array_equal(captured_fit["X"].to_numpy(), raw.to_numpy())
    assert "fitting log2" not in capsys.readouterr().err
    logged = np.log2(raw)
    logged.to_csv(tmp_path / "logged.csv", index=False)
    main([*base, "--x", str(tmp_path / "logged.csv")])
    np.testing.assert_allclose(captured_fit["X"].to_numpy(), logged.to_numpy(), rtol=1e-12)
    assert "log2" not in capsys.readouterr().err
    main([*base, "--x", str(tmp_path / "raw.csv"), "--floor", "2"])
    assert "--floor/--ceiling need --transform log2" in _one_line_error(capsys)
    # a binary model with the default: no transform (and the binary check speaks)
    main([*base, "--x", str(tmp_path / "raw.csv"), "--model", "naive-bayes"])
    err = capsys.readouterr().err
    assert "fitting log2" not in err and "needs binary (0/1) values" in err


def test_output_paths_errors_are_sentences(tmp_path, capsys):
    (tmp_path / "not_a_fit.nc").write_text("hello")
    pd.DataFrame({"g": [1.0]}).to_csv(tmp_path / "new.csv", index=False)
    assert main(["predict", str(tmp_path / "not_a_fit.nc"), "--x", str(tmp_path / "new.csv"),
                 "-o", str(tmp_path / "p.csv")]) == 2
    line = _one_line_error(capsys)
    assert "not_a_fit.nc" in line and "o_flags" not in line and "errno" not in line
    # an output folder that cannot be created (a file is in the way)
    (tmp_path / "blocker").write_text("x")
    _two_class_files(tmp_path)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), "-o",
                 str(tmp_path / "blocker" / "sub" / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "blocker" in line and "o_flags" not in line


def test_a_matrix_whose_separator_cannot_be_sniffed_says_what_to_do_on_the_command_line(
        tmp_path, capsys):
    """A one-column .txt file whose separator cannot be sniffed said "pass sep=", an option
    that selbayes fit and predict do not have; the line now says to save it as .csv or .tsv,
    and names no Python argument."""
    (tmp_path / "X.txt").write_text("g1\n1.5\n2.5\n3.5\n4.5\n")
    pd.DataFrame({"label": list("aabb")}).to_csv(tmp_path / "y.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.txt"), "--y", str(tmp_path / "y.csv"),
                 "-o", str(tmp_path / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "X.txt: could not infer the column separator" in line
    assert "save it as .csv (comma-separated) or .tsv (tab-separated)" in line
    assert "sep=" not in line and "Python" not in line


def test_fit_warns_of_label_variants_once(tmp_path, capsys):
    """'Tumour' and 'tumour' in the label file were warned of twice: by the reader, naming
    the file, then by the classifier's own check, naming the labels "y"."""
    X, _ = _two_class_files(tmp_path, n=8, p=3)
    pd.DataFrame({"id": X.index, "label": ["Tumour", "tumour"] * 2 + ["normal"] * 4}).to_csv(
        tmp_path / "y_case.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y_case.csv"),
                 "-o", str(tmp_path / "f.nc"), "--k", "1", "--plugin", "--no-progress"]) == 0
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if "differ only in case" in line]
    assert len(said) == 1, said
    assert "y_case.csv: class labels" in said[0]


@pytest.mark.parametrize("command", ["fit", "predict"])
def test_an_output_that_is_an_input_is_refused(tmp_path, capsys, command):
    """`-o` naming an input replaced it: the fit by a CSV of probabilities, the labels or the
    matrix by a fit, silently. The command now stops before any work, naming the file."""
    _two_class_files(tmp_path)
    (tmp_path / "fit.nc").write_bytes(b"not read")
    if command == "fit":
        args = ["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), "-o",
                str(tmp_path / "y.csv")]
    else:
        args = ["predict", str(tmp_path / "fit.nc"), "--x", str(tmp_path / "X.csv"), "-o",
                str(tmp_path / "." / "fit.nc")]
    before = {f.name: f.read_bytes() for f in tmp_path.iterdir()}
    assert main(args) == 2
    line = _one_line_error(capsys)
    assert "is also an input of the command" in line and "choose another output" in line
    assert {f.name: f.read_bytes() for f in tmp_path.iterdir()} == before
