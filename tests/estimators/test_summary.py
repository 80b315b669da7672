"""Tests of selbayes.estimators._summary: the lines of ``clf.summary()`` and of what
``selbayes fit`` prints (tests/cli/test_fit.py checks that the command prints the loaded fit's
summary)."""

from types import SimpleNamespace as NS

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from selbayes.estimators import HierarchicalGaussianClassifier
from selbayes.estimators._summary import inner_predictions, summary_lines

from ._data import two_class_gaussian


def _fitted(**attrs):
    """A stand-in for a fitted selection classifier, with only what the summary reads."""
    base = dict(selection_=NS(indices=np.array([2, 0]), statistic="f", threshold=3.5,
                              class_counts=np.array([3, 3]), n_features=5),
                classes_=np.array(["a", "b"]), n_features_in_=5,
                selected_features_=np.array(["g2", "g0"]), k="auto", k_choice_=None,
                prior_choice_=None, t_df_=None, temperature_=1.0, label_noise="cv",
                label_noise_=0.02, marker_probabilities_=None, diagnostics_=None,
                method="plugin")
    return NS(**(base | attrs))


def test_summary_shows_marker_probabilities_and_one_parenthesis():
    """The two-groups prior's P(real marker) of the kept genes is printed (it was available in
    Python only); the label-noise line has one parenthetical."""
    lines = summary_lines(_fitted(marker_probabilities_=np.array([0.97, 0.41])),
                          model="gaussian")
    assert lines[0] == "fitted: gaussian, 6 samples x 5 features; classes a (3), b (3)"
    assert "P(real marker), two-groups prior: g2 0.97, g0 0.41" in lines
    noise = next(line for line in lines if line.startswith("label noise"))
    assert noise.count("(") == 1 and "share chosen by inner CV" in noise


def test_remedies_are_named_in_the_callers_terms():
    """A failed diagnostic and replicates not kept whole: Python's arguments in Python, the
    command's options on the command line (they were the command's only)."""
    import pandas as pd

    diag = pd.DataFrame({"r_hat": [1.2]})
    diag.attrs.update(ok=False, failures=["R-hat 1.2 for tau_mu: longer runs or more chains"])
    found = pd.DataFrame({"group": [0, 0, 1, 1, 2, 2], "case": range(6), "size": 2,
                          "correlation": 0.7, "margin": 0.3, "kept": False})
    clf = _fitted(diagnostics_=diag, method="nuts", replicate_groups_=found)
    python, command = summary_lines(clf), summary_lines(clf, command_line=True)
    assert "(draws=, tune=, chains=)" in python[-2] and "(--draws, --tune, --chains)" in command[-2]
    assert "fit with groups='auto' or groups=labels" in python[-1]
    assert "pass --groups auto or --groups FILE" in command[-1]


@pytest.mark.parametrize("refits, says", [
    ((5, 5), "refitted on each inner fold"),
    ((3, 5), "refitted on 3 of 5 inner folds (the plug-in on the others: a class has no "
             "training case there"),
    ((0, 2), "the inner cross-validation's plug-in on all 2 inner folds (a class has no "
             "training case there"),
    (None, "the inner cross-validation's plug-in"),
])
def test_the_summary_says_on_what_the_stacks_weights_were_fitted(refits, says):
    """The account of the Gaussian model's inner predictions follows the stack's
    inner_refits_: where some or every inner fold could not be refitted, those folds kept the
    plug-in, and the summary does not say 'refitted'."""
    assert inner_predictions(refits).startswith(says)


def test_summary_of_a_fit_and_of_its_loaded_copy(tmp_path):
    """clf.summary() (was only printed by `selbayes fit`): the data's shape and classes, k, the
    kept genes by name; the same text after save and load; an unfitted classifier is named."""
    import pandas as pd

    X, y = two_class_gaussian(seed=63902, n=30, p=40)
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(40)])
    clf = HierarchicalGaussianClassifier(k_grid=(2, 5), method="plugin", random_state=0,
                                         progressbar=False).fit(frame, np.where(y, "b", "a"))
    text = clf.summary()
    assert text.startswith("fitted: HierarchicalGaussianClassifier, 30 samples x 40 features; "
                           "classes a (15), b (15)\nk: ")
    assert f"selected (best first): {', '.join(clf.selected_features_)}" in text
    assert type(clf).load(clf.save(tmp_path / "f.nc")).summary() == text
    with pytest.raises(NotFittedError):
        HierarchicalGaussianClassifier().summary()
