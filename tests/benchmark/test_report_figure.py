"""The benchmark's pooled reliability figure (selbayes.benchmark._report.reliability_figure):
every panel shown has its x axis labelled somewhere below it, also where the last row is not
full (the panels above the hidden ones had neither tick labels nor the axis label)."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from selbayes.benchmark._report import reliability_figure


@pytest.mark.parametrize("n_methods", [3, 5, 7])
def test_each_column_labels_its_lowest_shown_panel(n_methods, tmp_path, monkeypatch):
    rng = np.random.default_rng(n_methods)
    methods = [f"m{i}" for i in range(n_methods)]
    cases = pd.concat([pd.DataFrame({"method": m, "confidence": rng.uniform(0.5, 1.0, 100),
                                     "correct": rng.uniform(size=100) < 0.8}) for m in methods])
    kept = []
    monkeypatch.setattr(plt, "close", kept.append)          # keep the figure to look at it
    assert reliability_figure(cases, methods, tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 0
    fig = kept[-1]
    fig.canvas.draw()
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert len(shown) == n_methods
    ncols = min(4, n_methods)
    for col in range(ncols):
        in_col = [ax for i, ax in enumerate(shown) if i % ncols == col]
        lowest = in_col[-1]
        assert lowest.get_xlabel() == "top-label probability"
        assert any(t.get_text() for t in lowest.get_xticklabels() if t.get_visible())
