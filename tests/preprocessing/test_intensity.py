"""IntensityLog2, the raw-intensity check, and load_dataset's default preprocessing.

References are independent: numpy's clip + log2 for the transformer; simulated log-normal
intensities (raw by construction) and their logs for the check; and the eleven real sets, whose
stored scales PROVENANCE.md documents (tests on them skip when $SELBAYES_DATA lacks the files).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from selbayes.datasets import BENCHMARK_SETS, load_dataset
from selbayes.preprocessing import (
    AUTO_FLOOR,
    IntensityLog2,
    Log2InputWarning,
    RawIntensityWarning,
    auto_floor,
    auto_log2_settings,
    log2_input_problem,
    looks_like_raw_intensities,
    raw_intensity_stats,
    warn_if_not_intensities,
    warn_if_raw_intensities,
)

REAL = Path(os.environ.get("SELBAYES_DATA", "/nonexistent"))
HAVE_MICRO = (REAL / "microarray" / "sorlie_X.csv.gz").is_file()
HAVE_PAPER = (REAL / "srbct_X.csv.gz").is_file() and (REAL / "colon_X.csv.gz").is_file()
needs_data = pytest.mark.skipif(not (HAVE_MICRO and HAVE_PAPER),
                                reason="benchmark data not found in $SELBAYES_DATA")
RAW_SETS = {"borovecki", "chowdary", "nakayama"}


def test_intensity_log2_matches_clip_then_log2():
    rng = np.random.default_rng(0)
    X = rng.normal(500, 3000, size=(7, 11))
    out = IntensityLog2(floor=100, ceiling=16000).fit_transform(X)
    np.testing.assert_array_equal(out, np.log2(np.clip(X, 100, 16000)))
    assert out.min() == pytest.approx(np.log2(100)) and out.max() <= np.log2(16000)
    pos = np.abs(X) + 1.0
    np.testing.assert_allclose(IntensityLog2(floor=None).fit_transform(pos), np.log2(pos))
    assert np.shares_memory(X, out) is False  # input untouched
    assert X.min() < 100


def test_intensity_log2_pandas_names_and_pipeline():
    X = pd.DataFrame({"gA": [1.0, 10.0, 100.0, 1000.0], "gB": [0.0, 2.0, 4.0, 8.0]})
    t = IntensityLog2(floor=1.0).set_output(transform="pandas").fit(X)
    out = t.transform(X)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["gA", "gB"]
    assert list(t.get_feature_names_out()) == ["gA", "gB"]
    np.testing.assert_allclose(out["gA"], [0.0, np.log2(10), np.log2(100), np.log2(1000)])
    pipe = make_pipeline(IntensityLog2(floor=1.0), LogisticRegression())
    pipe = clone(pipe).fit(X, [0, 0, 1, 1])
    assert pipe.predict_proba(X).shape == (4, 2)


def test_intensity_log2_keeps_dataframe_columns_without_set_output():
    X = pd.DataFrame({"gA": [1.0, 10.0], "gB": [4.0, 8.0]}, index=["s1", "s2"])
    out = IntensityLog2().fit_transform(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["gA", "gB"] and list(out.index) == ["s1", "s2"]
    np.testing.assert_array_equal(out.to_numpy(), np.log2(X.to_numpy()))
    # arrays stay arrays; get_feature_names_out names array input x0, x1, ...
    t = IntensityLog2().fit(X.to_numpy())
    assert isinstance(t.transform(X.to_numpy()), np.ndarray)
    assert list(t.get_feature_names_out()) == ["x0", "x1"]
    # set_output(transform="default") of a fitted DataFrame transformer: still a DataFrame
    assert isinstance(IntensityLog2().set_output(transform="default").fit_transform(X),
                      pd.DataFrame)


@pytest.mark.filterwarnings("ignore:MCMC diagnostics failed")
def test_pipeline_with_intensity_log2_keeps_gene_names():
    """The README's pipeline: the classifier's selected_features_ are the gene names. (The
    names pass through the estimators' shared base class whatever the fitting method; the
    plug-in fit spares make test a model compilation that only this test would need.)"""
    from selbayes import HierarchicalGaussianClassifier

    rng = np.random.default_rng(4)
    y = np.repeat(["a", "b"], 12)
    genes = [f"GENE{j}" for j in range(20)]
    raw = pd.DataFrame(rng.lognormal(6, 0.5, size=(24, 20)), columns=genes)
    raw.loc[y == "b", ["GENE3", "GENE7"]] *= 8.0                   # two strong markers
    pipe = make_pipeline(IntensityLog2(),
                         HierarchicalGaussianClassifier(k=4, method="plugin",
                                                        random_state=0, progressbar=False))
    pipe.fit(raw, y)
    selected = list(pipe[-1].selected_features_)
    assert len(selected) == 4 and set(selected) <= set(genes)
    assert {"GENE3", "GENE7"} <= set(selected)
    assert list(pipe[-1].feature_names_in_) == genes


def test_log2_input_check_flags_log_scale_and_z_scores_only():
    rng = np.random.default_rng(5)
    raw = rng.lognormal(6, 1.5, size=(30, 200))            # intensities: pass
    assert log2_input_problem(raw, floor=1.0) is None
    # Affymetrix-like average differences: many values below the floor and negative, but a
    # long right tail (the documented golub/singh preprocessing): pass
    avg_diff = raw - np.quantile(raw, 0.55)
    assert np.mean(avg_diff < 10) > 0.5
    assert log2_input_problem(avg_diff, floor=10.0) is None
    z = (np.log2(raw) - np.log2(raw).mean(0)) / np.log2(raw).std(0)     # z-scored
    msg = log2_input_problem(z, floor=1.0)
    assert msg is not None and "below the floor 1" in msg and "negative" in msg
    with pytest.warns(Log2InputWarning, match="do not look like intensities"):
        assert warn_if_not_intensities(z, floor=1.0)
    assert log2_input_problem(np.log2(raw) - 10, floor=1.0) is not None   # log ratios
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert warn_if_not_intensities(raw, floor=1.0) is False


def test_intensity_log2_fit_warns_on_logged_data_at_the_users_line():
    """In Python, too (the audit: only the command line checked): fitting IntensityLog2 on
    z-scores warns, from the user's line even inside a pipeline; intensities do not."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    z = np.random.default_rng(6).normal(size=(30, 50))
    with pytest.warns(Log2InputWarning, match=r"IntensityLog2: the values do not look like "
                                               r"intensities") as rec:
        make_pipeline(IntensityLog2(), StandardScaler()).fit(z)
    assert rec[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        IntensityLog2().fit(np.random.default_rng(6).lognormal(6, 1.5, size=(30, 50)))


@needs_data
@pytest.mark.parametrize("name", sorted(BENCHMARK_SETS))
def test_log2_input_check_on_real_sets(name):
    """No false alarm on the sets whose documented preprocessing is log2; an alarm on the
    log-scale sets given log2 with floor 1."""
    ds = load_dataset(name, REAL, preprocess=False)
    pre = BENCHMARK_SETS[name]
    if pre["transform"] == "log2":
        assert log2_input_problem(ds.X, pre["floor"], pre["ceiling"]) is None
    elif name != "subramanian":        # log-scale values 2 to 15: mostly above the floor
        assert log2_input_problem(ds.X, 1.0) is not None


@pytest.mark.parametrize("kw, match", [({"floor": 0}, "floor"), ({"floor": -1}, "floor"),
                                       ({"floor": 10, "ceiling": 5}, "ceiling"),
                                       ({"ceiling": np.inf}, "ceiling")])
def test_intensity_log2_rejects_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        IntensityLog2(**kw).fit(np.ones((2, 2)))


def test_intensity_log2_rejects_bad_input():
    with pytest.raises(ValueError, match="positive"):
        IntensityLog2(floor=None).fit_transform(np.array([[1.0, 0.0]]))
    with pytest.raises(ValueError, match="NaN|infinity"):
        IntensityLog2().fit(np.array([[1.0, np.nan]]))
    t = IntensityLog2().fit(np.ones((2, 3)))
    with pytest.raises(ValueError, match="features"):
        t.transform(np.ones((2, 4)))


def test_only_if_raw_logs_raw_intensities_and_passes_logged_values_through():
    """IntensityLog2(only_if_raw=True) decides at fit, on the training values alone, with the
    rule of the commands' --transform auto (auto_log2_settings): raw intensities get the
    floored log2 of IntensityLog2(floor=AUTO_FLOOR), logged values pass unchanged (no
    warning: nothing is logged twice), and transform follows the decision made at fit."""

    rng = np.random.default_rng(3)
    raw = rng.lognormal(5.0, 1.5, size=(30, 2000))
    raw[0, :5] = 0.0                                   # absent calls: floored, not -inf
    t = IntensityLog2(floor=AUTO_FLOOR, only_if_raw=True).fit(raw[:20])
    assert t.applied_ and auto_log2_settings(raw[:20])["transform"] == "log2"
    np.testing.assert_array_equal(t.transform(raw[20:]),
                                  np.log2(np.clip(raw[20:], AUTO_FLOOR, None)))
    logged = np.log2(raw + 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # no Log2InputWarning: it is not logged
        t = IntensityLog2(only_if_raw=True).fit(logged[:20])
    assert not t.applied_ and auto_log2_settings(logged[:20])["transform"] == "none"
    out = t.transform(logged[20:])
    np.testing.assert_array_equal(out, logged[20:])
    assert not np.shares_memory(out, logged)
    frame = pd.DataFrame(logged, columns=[f"g{j}" for j in range(2000)])
    back = IntensityLog2(only_if_raw=True).fit(frame).transform(frame)
    assert list(back.columns) == list(frame.columns)
    with pytest.raises(ValueError, match="only_if_raw must be True or False"):
        IntensityLog2(only_if_raw="yes").fit(raw)


def test_auto_floor_follows_the_units_of_intensities():
    """transform="auto"'s floor is 1 on the usual intensity scale and the 10th percentile of
    the positive values where that is lower, so intensities in other units (thousands, or
    divided by their maximum) are not flattened: after the floor and log2, data in thousands
    are the same matrix as in the original units shifted by log2(1000), except the lowest
    tenth; with floor 1 (the rule before) about 90% of them were one value."""

    rng = np.random.default_rng(4)
    raw = rng.lognormal(5.0, 1.5, size=(30, 2000))      # median ~150: floor 1 raises ~0.02%
    raw[0, :50] = 0.0                                   # absent calls
    assert auto_floor(raw) == AUTO_FLOOR == auto_log2_settings(raw)["floor"]
    for unit in (1000.0, raw.max()):
        scaled = raw / unit
        floor = auto_log2_settings(scaled)["floor"]
        assert auto_log2_settings(scaled)["transform"] == "log2"
        assert floor == auto_floor(scaled) == np.quantile(scaled[scaled > 0], 0.1)
        out = IntensityLog2(floor=floor).fit_transform(scaled)
        kept = scaled >= floor                          # at least 90% of the positive values
        assert kept.sum() >= 0.9 * (scaled > 0).sum()
        np.testing.assert_allclose(out[kept], np.log2(raw[kept]) - np.log2(unit), atol=1e-12)
        # floor 1 (the rule before): in thousands P(lognormal(5, 1.5) < 1000) =
        # Phi((ln 1000 - 5) / 1.5) = 0.898 of the entries become 0 (all but one divided by the
        # maximum); over 60 000 entries its SE is 0.0012, so 0.85 is 40 SE below
        assert np.mean(IntensityLog2(floor=AUTO_FLOOR).fit_transform(scaled) == 0) > 0.85
        assert "raw intensities on a smaller scale" in log2_input_problem(scaled, AUTO_FLOOR)
        assert log2_input_problem(scaled, floor) is None
        with pytest.warns(RawIntensityWarning, match=r"IntensityLog2\(floor='auto'\) in a "
                          r"pipeline \(here a floor of"):
            warn_if_raw_intensities(scaled)              # not floor 1, which would flatten
    with pytest.warns(RawIntensityWarning, match=r"IntensityLog2\(floor=1.0\) in a pipeline"):
        warn_if_raw_intensities(raw)
    assert auto_floor(np.zeros((3, 4))) == AUTO_FLOOR      # nothing positive: no quantile


@pytest.mark.parametrize("zero_share", [0.5, 0.8, 0.95])
def test_logged_sparse_counts_are_not_raw_and_sparse_counts_are(zero_share):
    """The raw-intensity criterion reads the positive values: log2(x + 1) of counts with many
    zeros is log-scale data (it was logged again by --transform auto once zeros passed about
    70%: the spike at 0 read as a long right tail), the counts themselves are raw, and so are
    intensities with absent calls."""
    rng = np.random.default_rng(6)
    counts = (rng.poisson(rng.lognormal(1.0, 1.5, size=2000), size=(100, 2000))
              * (rng.random((100, 2000)) > zero_share)).astype(float)
    assert not looks_like_raw_intensities(np.log2(counts + 1.0))
    assert auto_log2_settings(np.log2(counts + 1.0))["transform"] == "none"
    assert looks_like_raw_intensities(counts)
    raw = rng.lognormal(5.0, 1.5, size=(30, 500)) * (rng.random((30, 500)) > zero_share)
    assert looks_like_raw_intensities(raw)
    stats = raw_intensity_stats(raw)
    positive = raw[raw > 0]
    assert stats["median"] == np.median(positive) and stats["min"] == 0.0


def test_floor_auto_is_decided_at_fit():
    """IntensityLog2(floor="auto") takes auto_floor of the training values (floor_) and
    applies that floor to later data; with only_if_raw=True it is the commands' rule."""

    rng = np.random.default_rng(5)
    raw = rng.lognormal(5.0, 1.5, size=(30, 500)) / 1000
    t = IntensityLog2(floor="auto", only_if_raw=True).fit(raw[:20])
    assert t.applied_ and t.floor_ == auto_floor(raw[:20]) == auto_log2_settings(raw[:20])[
        "floor"]
    np.testing.assert_array_equal(t.transform(raw[20:]),
                                  np.log2(np.clip(raw[20:], t.floor_, None)))
    assert IntensityLog2(floor=3.0).fit(raw).floor_ == 3.0
    assert IntensityLog2(floor=None).fit(raw).floor_ is None
    with pytest.raises(ValueError, match="floor must be a positive finite number, None or"):
        IntensityLog2(floor="lowest").fit(raw)
    with pytest.raises(ValueError, match="must exceed the floor"):
        IntensityLog2(floor="auto", ceiling=1e-9).fit(raw)
    with pytest.raises(ValueError, match=r"ceiling \(50\) must exceed the floor \(100\)$"):
        IntensityLog2(floor=100, ceiling=50).fit(raw)


def test_raw_check_on_simulated_intensities():
    rng = np.random.default_rng(1)
    raw = rng.lognormal(5.0, 1.5, size=(30, 2000))     # Affymetrix-like: median ~150
    assert looks_like_raw_intensities(raw)
    assert not looks_like_raw_intensities(np.log2(raw))
    assert not looks_like_raw_intensities(np.log2(raw) - 7.0)  # centred logs (negatives)
    assert not looks_like_raw_intensities(rng.normal(size=(30, 200)))
    assert not looks_like_raw_intensities(rng.uniform(0, 1, size=(30, 200)))  # no tail
    with pytest.warns(RawIntensityWarning, match="IntensityLog2"):
        assert warn_if_raw_intensities(raw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not warn_if_raw_intensities(np.log2(raw))


def test_load_dataset_unknown_name_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="unknown data set 'nope'; known: borovecki"):
        load_dataset("nope")
    with pytest.raises(FileNotFoundError, match="datamicroarray"):
        load_dataset("golub", data_home=tmp_path)


@needs_data
@pytest.mark.parametrize("name", ["sorlie", "colon", "srbct", "borovecki"])
def test_raw_check_on_real_sets(name):
    ds = load_dataset(name)
    assert not looks_like_raw_intensities(ds.X)
    raw = load_dataset(name, preprocess=False)
    assert raw.preprocessing == {k: BENCHMARK_SETS[name][k]
                                 for k in ("transform", "floor", "ceiling")}
    if name in RAW_SETS | {"colon"}:
        assert looks_like_raw_intensities(raw.X)
    if name != "sorlie":
        np.testing.assert_allclose(ds.X.to_numpy(), raw.transformer().fit_transform(raw.X))


@needs_data
@pytest.mark.slow
def test_load_dataset_all_eleven():
    shapes = {"borovecki": (31, 22283), "chowdary": (104, 22283), "golub": (72, 7129),
              "gravier": (168, 2905), "nakayama": (105, 22283), "pomeroy": (60, 7128),
              "singh": (102, 12600), "sorlie": (85, 456), "subramanian": (50, 10100),
              "srbct": (83, 2308), "colon": (62, 2000)}
    assert set(shapes) == set(BENCHMARK_SETS)
    for name, shape in shapes.items():
        ds = load_dataset(name)
        assert ds.X.shape == shape and len(ds.y) == shape[0] and ds.preprocessed
        assert np.isfinite(ds.X.to_numpy()).all()
        assert not looks_like_raw_intensities(ds.X), name
        if name in RAW_SETS:
            assert looks_like_raw_intensities(load_dataset(name, preprocess=False).X), name


def test_gaussian_fit_warns_on_raw_intensities_at_the_users_line(monkeypatch):
    # The estimator says to take logs, naming the user's call; binary models never warn.
    import warnings

    from selbayes import BinaryNaiveBayesClassifier, HierarchicalGaussianClassifier

    rng = np.random.default_rng(0)
    raw = rng.lognormal(6, 1.5, size=(20, 50))
    y = np.repeat([0, 1], 10)
    est = HierarchicalGaussianClassifier(k=3)
    # stop right after the input checks: only the warning matters here
    monkeypatch.setattr(type(est), "_prepare_features",
                        lambda self, *a, **k: (_ for _ in ()).throw(RuntimeError("stop")))
    with pytest.warns(RawIntensityWarning, match="Take logs") as record:
        with pytest.raises(RuntimeError, match="stop"):
            est.fit(raw, y)
    assert record[0].filename == __file__
    # also through the default stack (it pointed at its own line in _linear_stack.py)
    from selbayes import LinearStackedClassifier

    stack = LinearStackedClassifier(HierarchicalGaussianClassifier(k_grid=(3, 5)))
    with pytest.warns(RawIntensityWarning, match="Take logs") as record:
        with pytest.raises(RuntimeError, match="stop"):
            stack.fit(raw, y)
    assert record[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error", RawIntensityWarning)
        with pytest.raises(RuntimeError, match="stop"):
            est.fit(np.log2(raw), y)
        nb = BinaryNaiveBayesClassifier(k=3)
        monkeypatch.setattr(type(nb), "_prepare_features",
                            lambda self, *a: (_ for _ in ()).throw(RuntimeError("stop")))
        with pytest.raises(RuntimeError, match="stop"):
            nb.fit((raw > 400).astype(float), y)


@needs_data
def test_chowdary_says_its_samples_are_matched_pairs_and_they_are():
    # The design note (load_dataset's description) against the data: samples 2i - 1 and 2i
    # share their class in all 52 pairs, and a sample's nearest sample by correlation over
    # the genes is its pair far more often than the 1 in 103 of chance.
    ds = load_dataset("chowdary")
    assert "Design: 52 tumours, each measured twice" in ds.description
    y = ds.y.to_numpy()
    assert np.array_equal(y[0::2], y[1::2])
    Z = ds.X.to_numpy(dtype=float)
    Z = (Z - Z.mean(1, keepdims=True)) / Z.std(1, keepdims=True)
    C = Z @ Z.T
    np.fill_diagonal(C, -np.inf)
    assert np.mean(C.argmax(1) == (np.arange(len(y)) ^ 1)) > 0.5


def test_log2_of_log_scale_values_is_warned_of():
    """IntensityLog2() on values that are log2 already (RMA-like, 2 to 14: above the floor, so
    the floor check did not see them) warns that log2 would compress them a second time;
    only_if_raw=True passes them through without a word; raw intensities are logged quietly."""
    rng = np.random.default_rng(61905)
    logged = rng.normal(8.0, 1.5, size=(30, 200)).clip(2.0, 14.0)
    with pytest.warns(Log2InputWarning, match=r"the values look log-scale already \(from 2 to "
                                              r"1\d(\.\d)?, not right-skewed"):
        IntensityLog2().fit(logged)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        step = IntensityLog2(only_if_raw=True).fit(logged)
        IntensityLog2().fit(2.0 ** logged)                   # raw: logged without a word
    assert step.applied_ is False


_RAW = np.random.default_rng(4).lognormal(4, 1, size=(8, 3))
_WITH_NAN = np.where(np.eye(8, 3, dtype=bool), np.nan, _RAW)


@pytest.mark.parametrize("kw, exc, phrase", [
    # a bool is not a number (floor=True was floor 1; ceiling=True said 'ceiling (1) must
    # exceed the floor (1)')
    ({"floor": True}, TypeError, "floor must be a positive finite number, None or 'auto'"),
    ({"ceiling": True}, TypeError, "ceiling must be a positive finite number or None"),
    ({"floor": [1.0]}, TypeError, "floor must be a positive finite number"),
    ({"floor": "Auto"}, ValueError, "floor must be a positive finite number, None or 'auto'"),
    ({"ceiling": "3"}, ValueError, "ceiling must be a positive finite number or None"),
    ({"ceiling": np.nan}, ValueError, "ceiling must be a positive finite number"),
])
def test_intensity_log2_refuses_non_numbers(kw, exc, phrase):
    with pytest.raises(exc, match=phrase):
        IntensityLog2(**kw).fit(_RAW)


@pytest.mark.parametrize("X, exc, phrase", [
    (_RAW[:, 0], ValueError, "X must be 2-D"),
    (_RAW[None], ValueError, "X must be 2-D"),
    (_WITH_NAN, ValueError, r"X contains 3 NaN .* the first is at row 0, column 0"),
    (np.full((8, 3), "a"), TypeError, "X must be numeric"),
    (pd.DataFrame({"g1": _RAW[:, 0], "note": ["x"] * 8}), TypeError,
     r"X has non-numeric columns: \['note'\]"),
    (_RAW + 1j, ValueError, "X is complex"),
])
@pytest.mark.parametrize("step", ["fit", "transform"])
def test_intensity_log2_names_bad_x(X, exc, phrase, step):
    t = IntensityLog2()
    if step == "transform":
        t.fit(_RAW)
    with pytest.raises(exc, match=phrase):
        getattr(t, step)(X)


@pytest.mark.parametrize("call, exc, phrase", [
    (lambda: IntensityLog2().transform(_RAW), ValueError, "not fitted yet"),
    (lambda: IntensityLog2().fit(_RAW).transform(_RAW[:, :2]), ValueError,
     "X has 2 features, but IntensityLog2 is expecting 3"),
    # the module's checks: None gave an answer, text was NumPy's 'could not convert string'
    (lambda: looks_like_raw_intensities(None), TypeError, "X must be a matrix of numbers"),
    (lambda: auto_log2_settings(pd.DataFrame({"a": ["x", "y"]})), TypeError,
     "X must hold numbers only"),
    (lambda: auto_floor(np.full((2, 2), "a")), TypeError, "X must hold numbers only"),
    (lambda: warn_if_raw_intensities(3.0), ValueError, r"X must be a matrix"),
    (lambda: log2_input_problem(_RAW[None]), ValueError, "X must be a matrix"),
    (lambda: log2_input_problem(_RAW + 1j), TypeError, "X is complex"),
    # floor and stacklevel of the checks (floor=-1 or True was used as given)
    (lambda: log2_input_problem(_RAW, floor=-1.0), ValueError,
     "floor must be a positive finite number or None"),
    (lambda: log2_input_problem(_RAW, floor=True), TypeError, "floor must be a positive"),
    (lambda: warn_if_not_intensities(_RAW, floor="3"), ValueError, "floor must be a positive"),
    (lambda: warn_if_not_intensities(_RAW, ceiling=0.0), ValueError, "ceiling must be"),
    (lambda: warn_if_not_intensities(_RAW, stacklevel="x"), ValueError,
     "stacklevel must be a positive integer"),
    (lambda: warn_if_raw_intensities(_RAW, stacklevel=-1), ValueError,
     "stacklevel must be a positive integer"),
])
def test_intensity_checks_name_bad_input(call, exc, phrase):
    with pytest.raises(exc, match=phrase):
        call()


def test_tags_say_a_fit_is_required():
    """transform before fit raises NotFittedError, as its docstring says; the tag said no fit
    was needed when only_if_raw=False."""
    from sklearn.exceptions import NotFittedError
    from sklearn.utils import get_tags

    from selbayes.preprocessing import IntensityLog2

    t = IntensityLog2(only_if_raw=False)
    assert get_tags(t).requires_fit
    with pytest.raises(NotFittedError):
        t.transform(np.ones((2, 2)))
