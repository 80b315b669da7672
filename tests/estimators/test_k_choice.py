"""The record of an inner cross-validation, KChoice: how it prints, plots and is stored
(selbayes.estimators._k_choice). Its rules are tested on real curves in test_inner_cv.py."""

import numpy as np

from selbayes.estimators._k_choice import KChoice
from tests.estimators._choices import same_choice


def test_kchoice_prints_as_a_table_and_round_trips_through_constant_data():
    import xarray as xr

    ch = KChoice(k=10, decorrelate=5.0, temperature=2.0,
                 grid=[(5, None, 1.0), (10, 5.0, 2.0), (20, None, 1.5)],
                 score=np.array([0.41, 0.3, 0.52]), se=np.array([0.05, 0.04, 0.06]),
                 criterion="inner_cv_log_score_plugin", n_splits=5)
    text = str(ch)
    assert repr(ch) == text and "array(" not in text
    assert text.startswith("KChoice: k = 10, decorrelate = 5.0, temperature = 2")
    # the criterion in words, not its internal name
    assert "mean -log p(true class)" in text and "inner_cv_log_score" not in text
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:1] == ["k"])
    assert lines[head].split() == ["k", "decorrelate", "temperature", "score", "se"]
    assert lines[head + 1].split() == ["5", "None", "1", "0.4100", "0.0500"]
    assert lines[head + 2].split() == ["*", "10", "5", "2", "0.3000", "0.0400"]   # chosen
    back = KChoice.from_constant_data(xr.Dataset(ch.to_constant_data()), k=10, decorrelate=5.0,
                                      temperature=2.0, criterion=ch.criterion, n_splits=5)
    same_choice(back, ch)


def test_kchoice_plot_draws_the_profile_in_k_and_marks_the_chosen_k():
    """Each k's point is the best of its settings, with its own SE as the error bar."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ch = KChoice(k=20, decorrelate=None, temperature=2.0,
                 grid=[(50, None, 1.0), (5, None, 1.0), (20, None, 1.0), (20, None, 2.0),
                       (5, None, 2.0)],
                 score=np.array([0.5, 0.45, 0.41, 0.3, 0.6]),
                 se=np.array([0.01, 0.02, 0.03, 0.04, 0.05]),
                 criterion="inner_cv_log_score_plugin", n_splits=5)
    ax = ch.plot()
    line = ax.lines[0]
    assert line.get_xdata().tolist() == [5, 20, 50]                  # sorted by k
    assert line.get_ydata().tolist() == [0.45, 0.3, 0.5]             # the best T at each k
    bars = ax.collections[0].get_segments()                          # +-1 SE of those rows
    np.testing.assert_allclose([seg[1, 1] - seg[0, 1] for seg in bars], [0.04, 0.08, 0.02])
    marks = [ln for ln in ax.lines if ln.get_linestyle() == ":"]
    assert len(marks) == 1 and marks[0].get_xdata()[0] == 20        # the chosen k
    assert ax.get_xscale() == "log" and "best setting at each k" in [
        t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(ax.figure)
    fig, given = plt.subplots()
    assert ch.plot(ax=given) is given
    plt.close(fig)
