"""The check that a classifier wrapping Gaussian fits warns about feature names in its own name.

scikit-learn's warning for a DataFrame after a fit on an array names the class whose check
ran; in a stack that was the wrapped ``HierarchicalGaussianClassifier``, which the user never
built by hand.
"""

import warnings

import numpy as np
import pandas as pd


def assert_frame_after_array_fit_warns_once_as(clf, X):
    """``clf`` was fitted on the array ``X``: predicting from a DataFrame of it warns once,
    naming ``clf``'s class, and returns the array's probabilities."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        filters = list(warnings.filters)
        for predict in (clf.predict_proba, clf.predict_log_proba):
            named = predict(pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])]))
            np.testing.assert_allclose(named, predict(X), rtol=1e-12)
        # no filter added (a process-wide filter would silence other threads' warnings too)
        assert warnings.filters == filters
    about_names = [str(w.message) for w in caught if "feature names" in str(w.message)]
    assert len(about_names) == 2, about_names           # one per prediction
    own = type(clf).__name__
    assert all(f"{own} was fitted without feature names" in m for m in about_names), about_names
    assert not any("HierarchicalGaussianClassifier" in m for m in about_names), about_names
