"""``selbayes fit`` (``selbayes.cli._fit``): labels and groups matched to X, the options that
reach the classifier and those refused, the summary it prints, the stack."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from selbayes import HierarchicalGaussianClassifier
from selbayes.cli import main

from ._helpers import _one_line_error, _Stop, _two_class_files


def test_mismatched_sample_ids_exit_2_naming_them(tmp_path, capsys):
    X, y = _two_class_files(tmp_path)
    pd.DataFrame({"id": [f"t{i}" for i in range(len(y))], "label": y}).to_csv(
        tmp_path / "y_other.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y_other.csv"),
                 "-o", str(tmp_path / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "y_other.csv" in line and "'s0'" in line and "'t0'" in line
    assert not (tmp_path / "f.nc").exists()


def test_label_and_data_problems_name_the_file(tmp_path, capsys):
    """Class problems name the label file (not 'y' or the X file), one line however many
    classes; the binary models name the X file, a gene and a sample; the benchmark's folds
    are checked against the classes before scikit-learn's splitter."""
    X, y = _two_class_files(tmp_path)
    base = ["fit", "--x", str(tmp_path / "X.csv"), "-o", str(tmp_path / "f.nc")]
    one = y.copy()
    one[-1] = "c"                                              # a class of one case
    pd.DataFrame({"id": X.index, "label": one}).to_csv(tmp_path / "y_one.csv", index=False)
    # the Gaussian model fits a class of one case (its mean is that case), and says so; the
    # mixture model needs two
    assert main([*base, "--y", str(tmp_path / "y_one.csv"), "--plugin"]) == 0   # the stack
    assert "'c' have a single training case" in capsys.readouterr().err
    assert main(["predict", str(tmp_path / "f.nc"), "--x", str(tmp_path / "X.csv"), "-o",
                 str(tmp_path / "p.csv")]) == 0
    assert list(pd.read_csv(tmp_path / "p.csv").columns[1:]) == ["a", "b", "c"]
    assert "predicting 12 sample(s)" in capsys.readouterr().err
    assert main([*base, "--y", str(tmp_path / "y_one.csv"), "--model", "mixture"]) == 2
    line = _one_line_error(capsys)
    assert line.startswith("selbayes: error: ") and "y_one.csv: every class needs" in line
    many = [f"c{i}" for i in range(len(y))]                   # every case its own class
    pd.DataFrame({"id": X.index, "label": many}).to_csv(tmp_path / "y_many.csv", index=False)
    assert main([*base, "--y", str(tmp_path / "y_many.csv")]) == 2
    line = _one_line_error(capsys)
    assert "and 7 more of the 12 classes" in line and "'c9'" not in line
    assert main([*base, "--y", str(tmp_path / "y.csv"), "--model", "naive-bayes"]) == 2
    line = _one_line_error(capsys)
    assert "X.csv: --model naive-bayes needs binary (0/1) values" in line
    assert "for gene g0 in sample s0" in line
    assert main(["benchmark", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--folds", "7", "--methods", "gnb", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "y.csv: every class has fewer samples than --folds 7 (the largest 6)" in err
    assert "--folds 6 or fewer" in err and "n_splits" not in err
    # a class smaller than the folds, another that fills them: run (as the named sets' are),
    # each small-class sample tested once, with a warning
    pd.DataFrame({"id": X.index, "label": ["a"] * 3 + ["b"] * 9}).to_csv(
        tmp_path / "y_small.csv", index=False)
    assert main(["benchmark", "--x", str(tmp_path / "X.csv"), "--y",
                 str(tmp_path / "y_small.csv"), "--folds", "5", "--methods", "gnb",
                 "--no-progress", "--out", str(tmp_path / "b2")]) == 0
    err = capsys.readouterr().err
    assert "y_small.csv: class(es) with fewer samples than --folds 5: 'a' (3)" in err
    assert "need 2 cases" not in err
    pd.DataFrame({"id": X.index, "label": ["a"] * 2 + ["b"] * 10}).to_csv(
        tmp_path / "y_two.csv", index=False)
    assert main(["benchmark", "--x", str(tmp_path / "X.csv"), "--y",
                 str(tmp_path / "y_two.csv"), "--folds", "5", "--methods", "gnb",
                 "--no-progress", "--out", str(tmp_path / "b3")]) == 0
    assert "'a' has 2, so the training folds of the two folds that test one of them keep 1: "\
        "there the selbayes models make their inner choices on the other classes" \
        in capsys.readouterr().err
    cases = pd.read_csv(tmp_path / "b2" / "cases.csv")
    assert sorted(cases["sample"].astype(str)) == sorted(X.index)      # every case tested once


def test_label_ids_with_an_id_less_x_exit_2(tmp_path, capsys):
    X, y = _two_class_files(tmp_path, ids=False)
    order = np.random.default_rng(1).permutation(len(y))
    pd.DataFrame({"id": X.index[order], "label": y[order]}).to_csv(tmp_path / "y_shuf.csv",
                                                                    index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y_shuf.csv"),
                 "-o", str(tmp_path / "f.nc")]) == 2
    line = _one_line_error(capsys)
    assert "X.csv has no sample ids" in line and "y_shuf.csv" in line
    assert not (tmp_path / "f.nc").exists()


def test_labels_are_aligned_by_id_in_any_order(tmp_path, captured_fit, capsys):
    X, y = _two_class_files(tmp_path)
    order = np.random.default_rng(1).permutation(len(y))
    pd.DataFrame({"id": X.index[order], "label": y[order]}).to_csv(tmp_path / "y_shuf.csv",
                                                                    index=False)
    main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y_shuf.csv"),
          "-o", str(tmp_path / "f.nc")])
    np.testing.assert_array_equal(captured_fit["y"], y)
    assert list(captured_fit["X"].columns) == list(X.columns)     # names reach the classifier


def test_fit_transposes_a_genes_by_samples_x_as_read_xy_does(tmp_path, captured_fit, capsys):
    """selbayes fit and selbayes benchmark read X and labels alike: a genes x samples X whose
    column names are the label file's ids reaches the classifier as samples x genes, with the
    warning printed."""
    X, y = _two_class_files(tmp_path)
    X.T.to_csv(tmp_path / "Xt.csv")
    main(["fit", "--x", str(tmp_path / "Xt.csv"), "--y", str(tmp_path / "y.csv"), "-o",
          str(tmp_path / "f.nc")])
    assert list(captured_fit["X"].columns) == list(X.columns)
    np.testing.assert_array_equal(np.asarray(captured_fit["X"], dtype=float), X.to_numpy())
    np.testing.assert_array_equal(captured_fit["y"], y)
    assert "read as genes x samples (6 genes, 12 samples) and transposed" in \
        capsys.readouterr().err


def test_fit_groups_reach_the_classifier_by_sample_id(tmp_path, captured_fit, capsys):
    """--groups, matched to --x by sample id in any order (or in row order without ids),
    reaches the Gaussian model's fit (inside the default stack) in the rows of X."""
    X, y = _two_class_files(tmp_path)
    pairs = np.array([f"pair{i // 2}" for i in range(len(y))])
    order = np.random.default_rng(2).permutation(len(y))
    pd.DataFrame({"id": X.index[order], "group": pairs[order]}).to_csv(
        tmp_path / "g.csv", index=False)
    pd.DataFrame({"group": pairs}).to_csv(tmp_path / "rows.csv", index=False)
    for file in ("g.csv", "rows.csv"):
        captured_fit.clear()
        main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
              "--groups", str(tmp_path / file), "-o", str(tmp_path / "f.nc")])
        np.testing.assert_array_equal(captured_fit["groups"], pairs)
    for flags, given in (([], "near_copies"), (["--groups", "none"], None),
                         (["--groups", "auto"], "auto")):
        captured_fit.clear()
        main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), *flags,
              "-o", str(tmp_path / "f.nc")])
        assert captured_fit["groups"] == given


def test_fit_drop_missing_drops_genes_or_samples_with_their_labels_and_groups(
        tmp_path, captured_fit, capsys):
    """A missing value in --x or a missing label: one line naming them and --drop-missing.
    --drop-missing genes fits the other genes; samples, the other samples with their labels
    and groups (the groups file is read against the file's samples, then the dropped rows
    are removed), each said in a warning."""
    X, y = _two_class_files(tmp_path)
    pairs = np.array([f"pair{i // 2}" for i in range(len(y))])
    pd.DataFrame({"id": X.index, "group": pairs}).to_csv(tmp_path / "g.csv", index=False)
    Xn = X.copy()
    Xn.loc["s3", "g2"] = np.nan
    Xn.to_csv(tmp_path / "Xn.csv")
    args = ["fit", "--x", str(tmp_path / "Xn.csv"), "--y", str(tmp_path / "y.csv"),
            "--groups", str(tmp_path / "g.csv"), "-o", str(tmp_path / "f.nc")]
    assert main(args) == 2
    line = _one_line_error(capsys)
    assert "1 missing value(s) in 1 gene(s) ('g2') of 1 sample(s) ('s3')" in line
    assert "--drop-missing genes" in line and "--drop-missing samples" in line
    main([*args, "--drop-missing", "genes"])
    assert list(captured_fit["X"].columns) == [c for c in X.columns if c != "g2"]
    np.testing.assert_array_equal(captured_fit["groups"], pairs)
    assert "--drop-missing genes dropped 1 gene ('g2')" in capsys.readouterr().err
    keep = np.asarray(X.index != "s3")
    captured_fit.clear()
    main([*args, "--drop-missing", "samples"])
    assert list(captured_fit["X"].index) == list(X.index[keep])
    np.testing.assert_array_equal(captured_fit["y"], y[keep])
    np.testing.assert_array_equal(captured_fit["groups"], pairs[keep])
    assert "--drop-missing samples dropped 1 sample ('s3')" in capsys.readouterr().err
    # a missing label: named with the option; dropped with --drop-missing samples only
    labels = pd.DataFrame({"id": X.index, "label": y.astype(object)})
    labels.loc[4, "label"] = None
    labels.to_csv(tmp_path / "yn.csv", index=False)
    args = ["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "yn.csv"), "-o",
            str(tmp_path / "f.nc")]
    for extra in ([], ["--drop-missing", "genes"]):
        assert main([*args, *extra]) == 2
        line = _one_line_error(capsys)
        assert "1 missing label(s)" in line and "--drop-missing samples" in line
        assert "read as missing" not in line                       # an empty cell
    labels.loc[4, "label"] = "NA"          # R's marker: missing, and the message says why
    labels.to_csv(tmp_path / "yna.csv", index=False)
    for extra in ([], ["--drop-missing", "genes"]):
        assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "yna.csv"),
                     "-o", str(tmp_path / "f.nc"), *extra]) == 2
        assert "cells 'NA' are read as missing" in _one_line_error(capsys)
    captured_fit.clear()
    main([*args, "--drop-missing", "samples"])
    assert "s4" not in list(captured_fit["X"].index) and len(captured_fit["y"]) == len(y) - 1


def test_fit_with_groups_says_so(tmp_path, capsys):
    """A real fit (plug-in, for speed) with --groups prints how many groups its inner folds
    kept whole."""
    X, y = _two_class_files(tmp_path, n=24, p=30)
    pd.DataFrame({"id": X.index, "group": [f"p{i // 2}" for i in range(len(y))]}).to_csv(
        tmp_path / "g.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--groups", str(tmp_path / "g.csv"), "--plugin", "--k-grid", "2,5",
                 "--no-progress", "-o", str(tmp_path / "f.nc")]) == 0
    printed = capsys.readouterr().out
    assert "12 groups kept whole" in printed and "replicates:" not in printed   # not looked for


def test_fit_of_twins_names_the_replicates_and_keeps_near_copies_whole(tmp_path, capsys):
    """A real fit (plug-in) of samples measured twice (near-copies): by default, as with
    --groups auto, the summary says how many samples are in groups far more alike than any
    others, kept whole; with --groups none a warning, and the advice to keep them whole."""
    rng = np.random.default_rng(8)
    y = np.repeat(["a", "b"] * 6, 2)
    own = np.repeat(rng.normal(size=(12, 40)), 2, axis=0) + 0.3 * rng.normal(size=(24, 40))
    X = pd.DataFrame(own + (y == "b")[:, None] * (np.arange(40) < 5),
                     index=[f"s{i}" for i in range(24)], columns=[f"g{j}" for j in range(40)])
    X.to_csv(tmp_path / "X.csv")
    pd.DataFrame({"id": X.index, "label": y}).to_csv(tmp_path / "y.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--plugin", "--k-grid", "2,5", "--no-progress", "--groups", "none",
                 "-o", str(tmp_path / "f.nc")]) == 0
    out = capsys.readouterr()
    assert "ReplicateWarning: 24 of the 24 samples form 12 pairs" in out.err
    assert "replicates: 24 of 24 samples in 12 group(s)" in out.out
    assert "not kept whole (--groups none" in out.out
    assert "pass --groups auto or --groups FILE" in out.out
    # by default and with --groups auto: the same pairs kept whole by the inner folds
    for flags in ([], ["--groups", "auto"]):
        assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                     "--plugin", "--k-grid", "2,5", "--no-progress", *flags,
                     "-o", str(tmp_path / "f.nc")]) == 0
        out = capsys.readouterr()
        assert "ReplicateWarning" not in out.err and "12 groups kept whole" in out.out
        assert ("replicates: 24 of 24 samples in 12 group(s) far more alike among themselves "
                "than any others, kept whole by the inner folds") in out.out
        assert "not kept whole" not in out.out
    # independent samples: none, or a chance pair below the share that warns
    X.iloc[1::2] = rng.normal(size=(12, 40))
    X.to_csv(tmp_path / "X.csv")
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--plugin", "--k-grid", "2,5", "--no-progress",
                 "-o", str(tmp_path / "f.nc")]) == 0
    out = capsys.readouterr()
    assert "ReplicateWarning" not in out.err
    assert ("replicates: no samples far more alike" in out.out
            or "too few to warn" in out.out), out.out


def test_fit_group_key_reads_an_obs_column(tmp_path, captured_fit, capsys):
    """--group-key takes the groups from an .h5ad file's obs, as --label-key the labels;
    misuse exits 2 with one line."""
    anndata = pytest.importorskip("anndata")
    X, y = _two_class_files(tmp_path)
    pairs = np.array([f"p{i // 2}" for i in range(len(y))])
    obs = pd.DataFrame({"tissue": y, "patient": pairs,
                        "half": [None if i % 2 else "a" for i in range(len(y))]},
                       index=X.index)
    anndata.AnnData(X=X.to_numpy(), obs=obs,
                    var=pd.DataFrame(index=X.columns)).write_h5ad(tmp_path / "X.h5ad")
    base = ["fit", "--x", str(tmp_path / "X.h5ad"), "--label-key", "tissue", "-o",
            str(tmp_path / "f.nc")]
    main([*base, "--group-key", "patient"])
    np.testing.assert_array_equal(captured_fit["groups"], pairs)
    capsys.readouterr()
    pd.DataFrame({"group": pairs}).to_csv(tmp_path / "g.csv", index=False)
    for extra, expected in ((["--group-key", "donor"], "no obs column 'donor'"),
                            (["--group-key", "patient", "--groups", str(tmp_path / "g.csv")],
                             "give the groups once"),
                            (["--group-key", "patient", "--k", "3"], "--k 3 runs none"),
                            (["--group-key", "half"], "obs column 'half': groups: 6 missing")):
        assert main([*base, *extra]) == 2, extra
        # the last line: reading .h5ad may print anndata's own pandas deprecation warnings
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert last.startswith("selbayes: error: ") and expected in last, extra
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--group-key", "patient", "-o", str(tmp_path / "f.nc")]) == 2
    assert "--group-key applies to .h5ad files" in _one_line_error(capsys)


def test_fit_groups_errors_exit_2_with_one_line(tmp_path, capsys):
    X, y = _two_class_files(tmp_path)
    pairs = pd.DataFrame({"id": X.index, "group": [f"p{i // 2}" for i in range(len(y))]})
    pairs.to_csv(tmp_path / "g.csv", index=False)
    pairs.iloc[:-1].to_csv(tmp_path / "short.csv", index=False)
    base = ["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), "-o",
            str(tmp_path / "f.nc")]
    for extra, expected in (
            (["--groups", str(tmp_path / "g.csv"), "--k", "3"], "--k 3 runs none"),
            (["--groups", str(tmp_path / "g.csv"), "--model", "naive-bayes"],
             "--groups applies to the gaussian model only"),
            (["--groups", str(tmp_path / "short.csv")], "sample ids do not match"),
            (["--groups", str(tmp_path / "none.csv")], "no such file")):
        assert main([*base, *extra]) == 2, extra
        assert expected in _one_line_error(capsys), extra
    assert not (tmp_path / "f.nc").exists()


def test_fit_defaults_and_options_reach_the_classifier(tmp_path, captured_fit, capsys):
    from selbayes.cli import PRIOR_FAMILIES

    _two_class_files(tmp_path)
    base = ["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"), "-o",
            str(tmp_path / "f.nc")]
    main(base)
    assert captured_fit["params"]["k"] == "auto"                   # the recommended default
    assert captured_fit["params"]["priors"] is None
    assert captured_fit["params"]["effect_prior"] == HierarchicalGaussianClassifier().effect_prior
    main([*base, "--prior", "normal", "--k-grid", "20,5,10", "--k", "auto"])
    assert captured_fit["params"]["effect_prior"] == "normal"
    assert set(PRIOR_FAMILIES) == {"t", "t_auto", "two_groups", "normal"}
    assert captured_fit["params"]["k_grid"] == [5, 10, 20]
    assert captured_fit["params"]["method"] == "mcmc"
    main([*base, "--plugin"])
    assert captured_fit["params"]["method"] == "plugin"
    capsys.readouterr()
    assert main([*base, "--plugin", "--model", "naive-bayes", "--k", "5"]) == 2
    assert "--plugin applies to the gaussian model only" in _one_line_error(capsys)
    assert main([*base, "--floor", "2"]) == 2
    assert "--transform log2" in _one_line_error(capsys)
    assert main([*base, "--k-grid", "5,x"]) == 2
    assert "--k-grid" in _one_line_error(capsys)
    # options that would be ignored are refused, in command-line terms
    assert main([*base, "--mcmc"]) == 2
    assert "--mcmc applies to --model naive-bayes" in _one_line_error(capsys)
    assert main([*base, "--k", "10", "--k-grid", "5,10"]) == 2
    assert "--k-grid applies with --k auto" in _one_line_error(capsys)
    assert main([*base, "--plugin", "--prior", "two_groups"]) == 2
    assert "drop --plugin" in _one_line_error(capsys)


def test_a_plugin_fit_runs_and_says_what_it_is(tmp_path, capsys):
    """No sampler runs, so the real fit is quick; the summary says why there is no R-hat."""
    _two_class_files(tmp_path)
    out = tmp_path / "plugin.nc"
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--k", "5", "--plugin", "--no-progress", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "diagnostics: none (plug-in" in text and out.is_file()
    assert "degrees of freedom (chosen by the data)" in text     # the default, t_auto
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--k", "5", "--plugin", "--prior", "t", "--no-progress",
                 "-o", str(out)]) == 0
    assert "t prior:" not in capsys.readouterr().out     # df fixed at 2: nothing was chosen
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--k", "5", "--plugin", "--prior", "auto", "--no-progress",
                 "-o", str(out)]) == 0
    assert ("prior on the class means: " in (text := capsys.readouterr().out)
            and "(chosen by inner CV from t (df = 1), t (df = 2), t (df = 4), normal)" in text)


def test_log2_by_the_cli_silences_the_fits_raw_intensity_check(tmp_path, monkeypatch,
                                                                capsys):
    """Data the command logged itself are not called raw intensities by the fit (the audit
    saw both warnings, the second saying 'inf x the median'); the check itself no longer
    calls them raw (zeros are left out of its statistics)."""
    from selbayes.estimators import HierarchicalGaussianClassifier
    from selbayes.preprocessing._intensity import RawIntensityWarning, warn_if_raw_intensities

    def fake_fit(self, X, y, groups=None):
        warn_if_raw_intensities(np.asarray(X))
        raise _Stop("stopped by the test")

    monkeypatch.setattr(HierarchicalGaussianClassifier, "fit", fake_fit)
    rng = np.random.default_rng(4)
    # z-scores: logged with the floor 1 they are mostly 0 with a right tail, which the
    # fit's check read as raw intensities while it counted the zeros
    z = pd.DataFrame(rng.standard_normal((20, 30)), columns=[f"g{j}" for j in range(30)])
    z.to_csv(tmp_path / "z.csv", index=False)
    pd.DataFrame({"label": np.repeat(["a", "b"], 10)}).to_csv(tmp_path / "y.csv", index=False)
    main(["fit", "--x", str(tmp_path / "z.csv"), "--y", str(tmp_path / "y.csv"),
          "--transform", "log2", "-o", str(tmp_path / "f.nc")])
    err = capsys.readouterr().err
    assert "Log2InputWarning" in err and "RawIntensityWarning" not in err
    with warnings.catch_warnings():
        warnings.simplefilter("error", RawIntensityWarning)
        assert not warn_if_raw_intensities(np.log2(np.clip(z.to_numpy(), 1, None)))


def test_fit_names_training_labels_its_inner_cv_contradicts(tmp_path, capsys):
    """Two labels exchanged among cases that eight strong markers (3.5 SD) separate: the fit
    summary names both sample ids in its labels line, and the SuspectLabelWarning is
    printed (selbayes.evaluation._label_check)."""
    rng = np.random.default_rng(3)
    n, p = 60, 200
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, p)) + 3.5 * (y == "b")[:, None] * (np.arange(p) < 8)
    y[[5, 40]] = y[[40, 5]]
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(p)],
                         index=pd.Index([f"s{i}" for i in range(n)], name="sample"))
    frame.to_csv(tmp_path / "X.csv")
    pd.DataFrame({"id": frame.index, "label": y}).to_csv(tmp_path / "y.csv", index=False)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--plugin", "--no-linear-stack", "--k-grid", "2,5,20", "--seed", "0",
                 "--no-progress", "-o", str(tmp_path / "fit.nc")]) == 0
    out, err = capsys.readouterr()
    line = next(t for t in out.splitlines() if t.startswith("labels:"))
    assert line.startswith("labels: 2 contradicted") and "s5" in line and "s40" in line
    assert "selbayes fit: SuspectLabelWarning: 2 of 60 training cases" in err


def test_fit_linear_stack_round_trip_and_its_refusals(tmp_path, capsys):
    """`selbayes fit --linear-stack` (plug-in, for speed) fits LinearStackedClassifier, says its
    weights and the L1 model's gate, and `selbayes predict` gives its predict_proba;
    --l1-gate off fits the two-model stack; without the flag (k auto) it is
    the same fit, and --no-linear-stack fits the Gaussian model alone; three classes fit
    (nested dichotomies); --k N with the flag is refused with a line that names the
    problem."""

    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators import LinearStackedClassifier

    rng = np.random.default_rng(4)
    n, p = 40, 60
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, p)) + (y == "b")[:, None] * np.r_[np.ones(5), np.zeros(p - 5)]
    names = [f"gene{j}" for j in range(p)]
    frame = pd.DataFrame(X, columns=names, index=pd.Index([f"s{i}" for i in range(n)],
                                                          name="sample"))
    frame.to_csv(tmp_path / "X.csv", float_format="%.17g")
    pd.DataFrame({"id": frame.index, "label": y}).to_csv(tmp_path / "y.csv", index=False)
    common = ["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
              "--plugin", "--k-grid", "5,20", "--seed", "3", "--no-progress"]
    assert main([*common, "--linear-stack", "-o", str(tmp_path / "stack.nc")]) == 0
    printed = capsys.readouterr().out
    assert "stacked with a Bayesian probit regression of all 60 features: weights" in printed
    assert "inner predictions: refitted on each inner fold" in printed
    assert "k: " in printed and "saved:" in printed
    again = LinearStackedClassifier.load(tmp_path / "stack.nc")
    # what the command prints is the loaded fit's summary in the command's terms
    assert again.summary().replace("HierarchicalGaussianClassifier", "gaussian") in printed
    want = LinearStackedClassifier(HierarchicalGaussianClassifier(
        k_grid=(5, 20), method="plugin", random_state=3, progressbar=False)).fit(
        frame.to_numpy(), y)
    np.testing.assert_array_equal(again.weights_, want.weights_)
    frame.iloc[:5].to_csv(tmp_path / "new.csv", float_format="%.17g")
    assert main(["predict", str(tmp_path / "stack.nc"), "--x", str(tmp_path / "new.csv"),
                 "-o", str(tmp_path / "p.csv")]) == 0
    got = pd.read_csv(tmp_path / "p.csv", index_col=0)
    np.testing.assert_allclose(got.to_numpy()[:, -2:], want.predict_proba(X[:5]), rtol=1e-9)

    # the default, with k auto: the same stack; --no-linear-stack: the Gaussian model alone
    assert main([*common, "-o", str(tmp_path / "default.nc")]) == 0
    assert "stacked with a Bayesian probit regression" in capsys.readouterr().out
    np.testing.assert_array_equal(
        LinearStackedClassifier.load(tmp_path / "default.nc").weights_, want.weights_)
    assert main([*common, "--no-linear-stack", "-o", str(tmp_path / "alone.nc")]) == 0
    assert "stacked with" not in capsys.readouterr().out
    alone = HierarchicalGaussianClassifier.load(tmp_path / "alone.nc")
    np.testing.assert_array_equal(alone.predict_proba(X[:5]),
                                  want.estimator_.predict_proba(X[:5]))

    # --inner-predictive plugin: the stack weighted on the inner CV's plug-in predictions
    assert main([*common, "--inner-predictive", "plugin", "-o", str(tmp_path / "pi.nc")]) == 0
    assert "inner predictions: the inner cross-validation's plug-in" in capsys.readouterr().out
    plug = LinearStackedClassifier.load(tmp_path / "pi.nc")
    assert plug.inner_predictive == "plugin"
    # the same Gaussian and linear fits as `want`; the Gaussian model's inner cases scored by
    # the inner cross-validation's plug-in predictive instead of refits
    np.testing.assert_array_equal(plug.inner_log_proba_[0],
                                  want.estimator_.k_choice_._chosen_case_log_proba())
    np.testing.assert_array_equal(plug.inner_log_proba_[1:], want.inner_log_proba_[1:])

    # the L1 model's gate: reported by default; --l1-gate off: the two-model stack
    assert "L1 logistic regression: inner log loss" in printed
    assert main([*common, "--l1-gate", "off", "-o", str(tmp_path / "two.nc")]) == 0
    assert "L1 logistic regression" not in capsys.readouterr().out
    two = LinearStackedClassifier.load(tmp_path / "two.nc")
    assert two.l1_gate is None and two.weights_.size == 2
    # the gate stayed closed in `want` (its line says "not in the stack"), so its weights are
    # the two-model stack's with L1 at 0
    assert not want.l1_gate_["open"] and want.weights_[2] == 0
    np.testing.assert_array_equal(two.weights_, want.weights_[:2])
    assert main([*common, "--l1-gate=-1e9", "-o", str(tmp_path / "open.nc")]) == 0
    printed = capsys.readouterr().out
    assert "against the gate's -1e+09: " in printed and "not in the stack" not in printed
    assert LinearStackedClassifier.load(tmp_path / "open.nc").l1_gate_["open"]
    with pytest.raises(SystemExit):                 # argparse's usage error, exit 2
        main([*common, "--l1-gate", "high", "-o", str(tmp_path / "x.nc")])
    assert "must be a number or 'off'; got 'high'" in capsys.readouterr().err

    no_grid = [c for c in common if c not in ("--k-grid", "5,20")]
    assert main([*no_grid, "--linear-stack", "--k", "10", "-o", str(tmp_path / "x.nc")]) == 2
    assert "--linear-stack needs --k auto" in capsys.readouterr().err
    for argv in (["--k", "10"], ["--no-linear-stack"]):
        for flag in (["--inner-predictive", "plugin"], ["--l1-gate", "3"]):
            assert main([*no_grid, *argv, *flag, "-o", str(tmp_path / "x.nc")]) == 2
            assert f"{flag[0]} chooses how the stack is fitted; without the stack" in (
                capsys.readouterr().err)
    pd.DataFrame({"id": frame.index, "label": np.resize(["a", "b", "c"], n)}).to_csv(
        tmp_path / "y3.csv", index=False)
    three = [c if c != str(tmp_path / "y.csv") else str(tmp_path / "y3.csv") for c in common]
    assert main([*three, "--linear-stack", "-o", str(tmp_path / "three.nc")]) == 0
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "three.nc"), "--x", str(tmp_path / "new.csv"),
                 "-o", str(tmp_path / "p3.csv")]) == 0
    got = pd.read_csv(tmp_path / "p3.csv", index_col=0)
    np.testing.assert_allclose(got.to_numpy()[:, -3:].astype(float).sum(axis=1), 1.0,
                               atol=1e-9)
    for flag in ("--linear-stack", "--no-linear-stack"):
        assert main([*common[:5], "--model", "naive-bayes", flag, "-o",
                     str(tmp_path / "x.nc")]) == 2
        assert "gaussian model only" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs a folder that takes no new files")
def test_fit_into_a_folder_that_takes_no_files_says_why_once_before_the_fit(
        tmp_path, capsys, monkeypatch):
    """One line with the reason (it said 'cannot write the fit (...: cannot write the fit
    (...))' once save named the file itself), and before the fit: the output's folder is
    tried first (a default fit of minutes was lost to it)."""
    from selbayes import HierarchicalGaussianClassifier

    _two_class_files(tmp_path)

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted before the output was checked")

    monkeypatch.setattr(HierarchicalGaussianClassifier, "fit", no_fit)
    assert main(["fit", "--x", str(tmp_path / "X.csv"), "--y", str(tmp_path / "y.csv"),
                 "--k", "3", "--plugin", "--no-progress", "-o", "/proc/fit.nc"]) == 2
    line = _one_line_error(capsys)
    assert line.startswith("selbayes: error: /proc/fit.nc: cannot write the output (the folder "
                           "does not take new files)")
    assert line.count("cannot write") == 1
    # under a file: named as such (it said "X.csv: no such folder (create it first)", after
    # the fit), for fit and predict
    for command in (["fit", "--y", str(tmp_path / "y.csv"), "--k", "3"], ["predict", "f.nc"]):
        assert main([*command, "--x", str(tmp_path / "X.csv"),
                     "-o", str(tmp_path / "X.csv" / "sub" / "out")]) == 2
        assert _one_line_error(capsys).startswith(
            f"selbayes: error: {tmp_path / 'X.csv'} is a file, not a folder: the output "
            f"{tmp_path / 'X.csv' / 'sub' / 'out'} cannot be written under it")
