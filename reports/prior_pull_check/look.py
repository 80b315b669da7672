"""README.md's rule: the prior-boundary check with the prior pull, on the fits the quantile
rule was built for, on the simulated fold that warned falsely, on data with no signal, and
(reported) on the development sets.

Run from the repository root: ``python reports/prior_pull_check/look.py``; writes ``look.md``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
DEV_SETS = ("golub", "pomeroy", "subramanian", "borovecki", "singh", "gravier", "colon",
            "chowdary")


def fit_and_check(clf, X, y) -> tuple[bool, str]:
    """(whether fit warned PriorBoundaryWarning, the checks' rows beyond the limits)."""
    from selbayes.evaluation import GridBoundaryWarning, PriorBoundaryWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(X, y)
    warned = any(issubclass(w.category, PriorBoundaryWarning)
                 and not issubclass(w.category, GridBoundaryWarning) for w in caught)
    tab = clf.prior_checks_
    out = tab[(tab["median"] < tab["prior_low"]) | (tab["median"] > tab["prior_high"])]
    shown = "; ".join(f"{r.parameter} median {r.median:.3g}, pull {r.prior_pull:.2f}"
                      for r in out.head(3).itertuples()) + (" ..." if len(out) > 3 else "")
    return warned, shown or "none beyond the limits"


def must_warn() -> list[tuple[str, bool, str]]:
    from selbayes import HierarchicalGaussianClassifier
    from tests.estimators._data import two_class_gaussian

    X, y = two_class_gaussian(1)
    base = dict(draws=200, tune=200, chains=1, random_state=0, progressbar=False)
    units = dict(k=4, temperature=1.0, standardize=False, effect_prior="normal")
    rows = []
    for label, Xs, kw in (("X x 1000, unstandardised", 1000.0 * X, units),
                          ("X / 1000, unstandardised", X / 1000.0, units),
                          ("w_x hyperprior, X x 100, unstandardised", 100.0 * X,
                           {**units, "priors": {"w_x_alpha": 1.0, "w_x": 1.0}})):
        rows.append((label, *fit_and_check(HierarchicalGaussianClassifier(**base, **kw), Xs, y)))
    return rows


def simulated_fold():
    from selbayes import HierarchicalGaussianClassifier

    rng = np.random.default_rng(43960)
    n, p, G = 176, 12500, 4
    delta = np.zeros((G, p))
    idx = rng.choice(p, 200, replace=False)
    delta[:, idx] = 0.6 * rng.standard_normal((G, 200))
    y = rng.integers(0, G, n)
    X = rng.standard_normal((n, p)) + delta[y]
    return fit_and_check(HierarchicalGaussianClassifier(random_state=0, progressbar=False), X, y)


def no_signal():
    from selbayes import HierarchicalGaussianClassifier

    rng = np.random.default_rng(43961)
    X, y = rng.standard_normal((60, 2000)), np.repeat([0, 1], 30)
    clf = HierarchicalGaussianClassifier(k=10, temperature=1.0, effect_prior="normal",
                                         random_state=0, progressbar=False)
    return fit_and_check(clf, X, y)


def development_sets() -> list[str]:
    from selbayes.benchmark._methods import make_method
    from selbayes.benchmark._runner import _preprocessor, resolve_dataset

    lines = ["| set | warns | beyond the limits |", "|---|---|---|"]
    for name in DEV_SETS:
        ds = resolve_dataset(name)
        X = ds.X.to_numpy(dtype=np.float64)
        pre = _preprocessor(ds.preprocessing)
        if pre is not None:
            X = pre.fit_transform(X)
        classes, y = np.unique(np.asarray(ds.y).astype(str), return_inverse=True)
        train = np.random.default_rng(0).permutation(len(y))[: int(0.8 * len(y))]
        est = make_method("selbayes", len(classes), random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X[train], y[train])
        tab = est.estimator_.prior_checks_
        beyond = tab[(tab["median"] < tab["prior_low"]) | (tab["median"] > tab["prior_high"])]
        tm = tab[tab["variable"] == "tau_mu"].iloc[0]
        lines.append(f"| {name} | {'yes' if tab['held'].any() else 'no'} | "
                     f"{len(beyond)} (tau_mu at its prior's {100 * tm.prior_cdf:.1f}th "
                     "percentile) |")
    return lines


def main() -> None:
    lines = ["# The prior pull on the checks' cases (made by look.py)", "",
             "| case | warns | beyond the limits (median, prior pull in posterior SDs) |",
             "|---|---|---|"]
    verdict = []
    for label, warned, shown in must_warn():
        lines.append(f"| {label} (must warn) | {'yes' if warned else 'no'} | {shown} |")
        verdict.append(warned)
    warned, shown = simulated_fold()
    lines.append(f"| simulated fold, 12 500 genes, 4 classes (must not warn) | "
                 f"{'yes' if warned else 'no'} | {shown} |")
    verdict.append(not warned)
    warned, shown = no_signal()
    lines.append(f"| no signal, normal prior, k = 10 (warns if beyond the limits) | "
                 f"{'yes' if warned else 'no'} | {shown} |")
    beyond = shown != "none beyond the limits"
    verdict.append(warned == beyond)
    lines += ["", "Rule (README.md, written before the run): "
              + ("**adopted**." if all(verdict) else "**not adopted**."), "",
              "## The development sets (default fits on 80% of each set; decides nothing)",
              ""]
    lines += development_sets()
    text = "\n".join(lines) + "\n"
    (HERE / "look.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
