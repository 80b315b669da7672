"""Tests for selbayes.evaluation._plots: structure of the figures, files written, SBC band
coverage."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from selbayes.evaluation import (  # noqa: E402
    error_vs_k,
    f_statistic_plot,
    predictive_scatter,
    reliability_diagram,
    reliability_table,  # noqa: E402
    sbc_ecdf_band,
    sbc_histogram_band,
    sbc_rank_plot,
    trace_log_tau,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _bars(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def test_reliability_diagram_structure_and_file(tmp_path):
    rng = np.random.default_rng(0)
    p = rng.beta(0.5, 2.0, size=500)  # leaves the top bins empty
    y = rng.random(500) < p
    table = reliability_table(p, y)
    n_full = int((table["count"] > 0).sum())
    assert n_full < 10
    ax = reliability_diagram(p, y)
    assert len(_bars(ax.count_ax)) == n_full
    heights = sorted(b.get_height() for b in _bars(ax.count_ax))
    assert heights == sorted(table.loc[table["count"] > 0, "count"].tolist())
    # error-bar markers at (mean predicted, observed) of the non-empty bins
    x, yy = ax.lines[1].get_data()
    np.testing.assert_allclose(x, table.loc[table["count"] > 0, "mean_predicted"])
    np.testing.assert_allclose(yy, table.loc[table["count"] > 0, "observed_fraction"])
    # the diagonal
    np.testing.assert_allclose(ax.lines[0].get_xydata(), [[0, 0], [1, 1]])
    out = tmp_path / "rel.png"
    ax.figure.savefig(out)
    assert out.stat().st_size > 1000


def test_reliability_diagram_overlay_and_existing_axes():
    rng = np.random.default_rng(1)
    p = rng.uniform(size=300)
    y = rng.random(300) < p
    fig, ax = plt.subplots()
    out = reliability_diagram({"corrected": (p, y), "uncorrected": reliability_table(p**2, y)},
                              ax=ax, show_counts=True)
    assert out is ax
    n_expected = (reliability_table(p, y)["count"] > 0).sum() + (
        reliability_table(p**2, y)["count"] > 0).sum()
    assert len(_bars(ax.count_ax)) == n_expected
    assert [t.get_text() for t in ax.get_legend().get_texts()][1:] == ["corrected",
                                                                       "uncorrected"]
    ax2 = reliability_diagram(reliability_table(p, y), show_counts=False)
    assert ax2.count_ax is None
    with pytest.raises(ValueError, match="outcome"):
        reliability_diagram(p)


def test_predictive_scatter():
    rng = np.random.default_rng(2)
    pu = rng.uniform(size=800)
    pc = 0.5 + 0.6 * (pu - 0.5)
    y = rng.random(800) < pc
    ax = predictive_scatter(pc, pu, y)
    cols = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(cols) == 2
    assert sum(len(c.get_offsets()) for c in cols) == 800
    in_class = next(c for c in cols if c.get_label() == "in class")
    assert len(in_class.get_offsets()) == y.sum()
    # x is uncorrected, y corrected
    np.testing.assert_allclose(in_class.get_offsets(), np.column_stack([pu[y], pc[y]]))
    ax = predictive_scatter(pc, pu, y, max_points=500, random_state=0)
    cols = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert sum(len(c.get_offsets()) for c in cols) == 500
    with pytest.raises(ValueError, match="same length"):
        predictive_scatter(pc, pu[:5])


def _fig2_table():
    rows = []
    for method, gap in (("corrected", 0.0), ("uncorrected", 0.1)):
        for k in (10, 50, 200, 1000):
            rows.append({"k": k, "method": method, "error_rate": 0.3, "expected_error_rate":
                         0.3 - gap, "actual_loss": 1.0 + gap, "expected_loss": 1.0 - gap,
                         "amlp": 0.7 + gap})
    return pd.DataFrame(rows)


def test_error_vs_k(tmp_path):
    fig = error_vs_k(_fig2_table())
    visible = [a for a in fig.axes if a.get_visible()]
    assert [a.get_title() for a in visible] == ["error rate", "average loss", "AMLP"]
    assert len(visible[0].lines) == 4  # actual + expected for two methods
    assert len(visible[2].lines) == 2
    styles = {ln.get_label(): ln.get_linestyle() for ln in visible[0].lines}
    assert styles["corrected"] == "-" and styles["uncorrected, expected"] == "--"
    markers = {ln.get_label(): ln.get_marker() for ln in visible[0].lines}
    assert markers["corrected"] == "o" and markers["uncorrected"] == "x"
    np.testing.assert_allclose(visible[0].lines[0].get_xdata(), [10, 50, 200, 1000])
    fig.savefig(tmp_path / "fig2.png")
    assert (tmp_path / "fig2.png").exists()
    with pytest.raises(ValueError, match="metric"):
        error_vs_k(pd.DataFrame({"k": [1], "method": ["a"]}))


def _tau_tree(rng, center):
    vals = np.exp(center + 0.2 * rng.normal(size=(2, 100)))
    return xr.DataTree.from_dict({"/posterior": xr.Dataset(
        {"tau_mu": (("chain", "draw"), vals)},
        coords={"chain": [0, 1], "draw": np.arange(100)})})


def test_trace_log_tau():
    rng = np.random.default_rng(3)
    fits = {"corrected": _tau_tree(rng, np.log(100)), "uncorrected": _tau_tree(rng, 2.0)}
    fig = trace_log_tau(fits, reference=100.0)
    ax_t, ax_d = fig.axes
    # 2 fits x 2 chains + the reference line
    assert len(ax_t.lines) == 5
    np.testing.assert_allclose(ax_t.lines[-1].get_ydata(), np.log(100))
    np.testing.assert_allclose(ax_t.lines[0].get_ydata(),
                               np.log(fits["corrected"]["posterior"]["tau_mu"].values[0]))
    assert ax_t.lines[0].get_linestyle() == "-" and ax_t.lines[2].get_linestyle() == "--"
    # the density of the uncorrected fit peaks near its centre (log tau = 2)
    grid, pdf = ax_d.lines[1].get_data()
    assert abs(grid[np.argmax(pdf)] - 2.0) < 0.15
    single = trace_log_tau(fits["corrected"])
    assert len(single.axes[0].lines) == 2
    with pytest.raises(ValueError, match="not a posterior variable"):
        trace_log_tau(fits["corrected"], var="tau_nu")
    # a plug-in fit repeats the mode in every draw: no trace or density to draw (it drew a
    # flat line and an empty density centred on 0, with arviz's "single value" warning)
    flat = xr.DataTree.from_dict({"/posterior": xr.Dataset(
        {"tau_mu": (("chain", "draw"), np.full((1, 50), 15.6))})})
    with pytest.raises(ValueError, match=r"tau_mu of fit 'plug-in' is the same in every draw "
                                         r"\(15\.6\), so there is no trace or posterior "
                                         r"density to draw: a fit with method='plugin'"):
        trace_log_tau({"mcmc": fits["corrected"], "plug-in": flat})


def test_sbc_histogram_band_values():
    ranks = np.arange(100) % 10  # L = 9: each rank value 10 times
    h = sbc_histogram_band(ranks, 9, n_bins=5)
    assert h["counts"].tolist() == [20] * 5
    np.testing.assert_allclose(h["expected"], 20)
    from scipy.stats import binom

    np.testing.assert_allclose(h["lower"], binom.ppf(0.005, 100, 0.2))
    np.testing.assert_allclose(h["upper"], binom.ppf(0.995, 100, 0.2))
    # unequal bins: 10 rank values in 3 bins -> widths 4, 3, 3 (exact expected counts)
    h3 = sbc_histogram_band(ranks, 9, n_bins=3)
    assert h3["counts"].tolist() == [40, 30, 30]
    np.testing.assert_allclose(h3["expected"], [40, 30, 30])
    with pytest.raises(ValueError, match="0..9"):
        sbc_histogram_band([0, 10], 9)


def test_sbc_ecdf_band_is_simultaneous():
    # the band for N replicates, L draws must contain a whole uniform-rank ECDF with
    # probability ~ 0.95
    N, L = 100, 49
    rng = np.random.default_rng(4)
    band = sbc_ecdf_band(rng.integers(0, L + 1, N), L, prob=0.95, random_state=1)
    i = np.round(band["z"] * (L + 1)).astype(int)
    sims = rng.integers(0, L + 1, size=(2000, N))
    sims.sort(axis=1)
    ecdf = np.stack([np.searchsorted(s, i, side="left") for s in sims]) / N
    inside = np.all((ecdf >= band["lower"]) & (ecdf <= band["upper"]), axis=1)
    cover = inside.mean()
    assert abs(cover - 0.95) < 4 * np.sqrt(0.95 * 0.05 / 2000) + 0.01
    # pointwise coverage is higher than simultaneous
    assert np.all((band["lower"] <= band["z"]) & (band["z"] <= band["upper"]))


def test_sbc_rank_plot_uniform_vs_overconfident(tmp_path):
    rng = np.random.default_rng(5)
    L, N = 99, 200
    uniform = rng.integers(0, L + 1, N)
    # overconfident posterior: the truth falls in the tails of the draws (U-shaped ranks)
    u = rng.beta(0.4, 0.4, N)
    u_shaped = np.floor(u * (L + 1)).astype(int)
    fig = sbc_rank_plot({"tau_mu": uniform, "alpha": u_shaped}, L, n_bins=10)
    assert len(fig.axes) == 4
    assert len(_bars(fig.axes[0])) == 10
    assert sum(b.get_height() for b in _bars(fig.axes[0])) == N
    res = fig.sbc_results
    assert res["tau_mu"]["ecdf"]["inside"]
    assert not res["alpha"]["ecdf"]["inside"]
    fig.savefig(tmp_path / "sbc.png")
    assert (tmp_path / "sbc.png").stat().st_size > 1000
    fig2 = sbc_rank_plot(np.column_stack([uniform, uniform]), L)
    assert len(fig2.axes) == 4
    with pytest.raises(TypeError, match="integers"):
        sbc_rank_plot(np.array(["a"]), L)


def test_reliability_bars_stay_within_zero_and_one():
    """A bin of few cases near 0 or 1 has a wide bar; it stops at the ends of [0, 1] instead
    of running past the frame (a 3-case bin at 0.67 was drawn up to 1.25)."""
    import matplotlib

    matplotlib.use("Agg")
    from selbayes.evaluation import reliability_diagram

    prob = np.array([0.65, 0.67, 0.69, 0.05, 0.06, 0.95, 0.96, 0.97])
    outcome = np.array([1, 1, 0, 0, 0, 1, 1, 1], dtype=bool)
    ax = reliability_diagram(prob, outcome, n_bins=5)
    ends = [seg[:, 1] for coll in ax.collections if hasattr(coll, "get_segments")
            for seg in coll.get_segments()]
    assert ends and all(0.0 <= e.min() and e.max() <= 1.0 for e in ends)


def _central_selected_f(seed, gamma=4.0):
    """F statistics of features without class differences (two classes of 20), kept above
    gamma: draws from the model with tau_mu w_x = infinity."""
    from scipy import stats

    f = stats.f.rvs(1, 38, size=6000, random_state=seed)
    return f[f > gamma]


def test_f_statistic_plot_under_the_model_and_with_strong_markers(tmp_path):
    """Kept F drawn from the model lie on its curve, inside the band, and none is named;
    three markers far beyond it are red and named, and only they."""
    f = _central_selected_f(69901)
    ax = f_statistic_plot(f, [np.inf], [20, 20], 4.0, 4.0)
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(points) == 1 and len(points[0].get_offsets()) == f.size
    assert len(ax.texts) == 0
    # the curve is the central F's conditional tail (an independent closed form)
    from scipy import stats

    x, curve = ax.lines[0].get_data()
    np.testing.assert_allclose(curve, stats.f.sf(x, 1, 38) / stats.f.sf(4.0, 1, 38),
                               rtol=1e-8, atol=1e-12)
    strong = np.concatenate([f, [150.0, 200.0, 300.0]])
    names = [f"g{j}" for j in range(f.size)] + ["m0", "m1", "m2"]
    ax = f_statistic_plot(strong, [np.inf], [20, 20], 4.0, 4.0, features=names)
    assert {a.get_text() for a in ax.texts} == {"m0", "m1", "m2"}
    red = [c for c in ax.collections if isinstance(c, PathCollection)][1]
    np.testing.assert_array_equal(np.sort(red.get_offsets()[:, 0]), [150.0, 200.0, 300.0])
    ax.figure.savefig(tmp_path / "f_check.png")
    assert (tmp_path / "f_check.png").stat().st_size > 0


@pytest.mark.parametrize("f, threshold, prob, match", [
    ([], 4.0, 0.95, "at least one"),
    ([5.0, 3.0], 4.0, 0.95, "all at or above the threshold 4"),
    ([5.0, np.nan], 4.0, 0.95, "finite"),
    ([5.0], 0.0, 0.95, "must be positive"),
    ([5.0], 4.0, 1.0, "prob must lie in"),
])
def test_f_statistic_plot_refuses_bad_input(f, threshold, prob, match):
    with pytest.raises(ValueError, match=match):
        f_statistic_plot(f, [np.inf], [20, 20], threshold, 4.0, prob=prob)


def test_f_statistic_plot_takes_the_weakest_kept_feature_at_gamma():
    """With k given, gamma is the weakest kept feature's F (and recomputed it may fall below it
    in the last digits): drawn, at a share of 1/k, not refused."""
    f = np.array([4.0 * (1 - 1e-13), 6.0, 9.0])
    ax = f_statistic_plot(f, [np.inf], [20, 20], 4.0, 4.0)
    points = [c for c in ax.collections if isinstance(c, PathCollection)][0].get_offsets()
    np.testing.assert_allclose(np.sort(points[:, 1]), [1 / 3, 2 / 3, 1.0])
