"""Fixtures shared by the tests of the reproductions."""

import pytest


@pytest.fixture
def no_figures(monkeypatch):
    """The reproductions' reports without their figures.

    Drawing them is half or more of a stubbed run's time; the tests of verdicts and of the
    bookkeeping (resume, back-ends, changed data) do not look at them. The tests that check
    the figures (``test_report_*``) draw them."""
    from selbayes.experiments import _cv, _gaussian, _gaussian_cv, _naive_bayes_cv

    monkeypatch.setattr(_gaussian, "_figures", lambda *args, **kwargs: {})
    monkeypatch.setattr(_gaussian, "_pooled_figure",
                        lambda *args, **kwargs: "reliability_pooled.png")
    for module, name in ((_cv, "plot_fig4"), (_gaussian_cv, "_scatter"),
                         (_naive_bayes_cv, "_fig2_8"), (_naive_bayes_cv, "_fig2_10")):
        monkeypatch.setattr(module, name, lambda *args, **kwargs: None)
