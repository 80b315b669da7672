"""The fixture of the command-line tests: a classifier fit that records what reached it."""

from __future__ import annotations

import numpy as np
import pytest

from ._helpers import _Stop


@pytest.fixture
def captured_fit(monkeypatch):
    """The classifier's fit replaced by one that records its settings and data, then stops
    (exit 2) before any sampling."""
    from selbayes.estimators import HierarchicalGaussianClassifier

    seen = {}

    def fake_fit(self, X, y, groups=None):
        seen.update(params=self.get_params(), X=X, y=np.asarray(y), groups=groups)
        raise _Stop("stopped by the test")

    monkeypatch.setattr(HierarchicalGaussianClassifier, "fit", fake_fit)
    return seen
