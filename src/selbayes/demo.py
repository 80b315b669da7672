"""``selbayes demo``: the README's main job.

Simulates data from the design of Li 2009's simulation (G = 6 classes, tau_mu = tau_nu = 100,
alpha_x = 4, w_x = 1, 200 training cases), scaled down (fewer features, test cases and draws) to
finish in a few minutes on 2 cores; keeps the k = 10 features with the largest F; fits the
hierarchical Gaussian classifier with and without the selection correction; prints both
reliability tables for P(y = class 0), the expected and actual error rates and the AMLP; and
saves a reliability diagram.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd

from ._validation import make_folder

# Scaled design: (p, n_test, draws, tune, chains); quick is for the test suite.
#: Demo designs: features p, test cases n_test, NUTS draws and tuning steps per chain, chains.
DESIGNS = {
    # 4 chains x 1000 draws: with 2 x 500 R-hat of a few components lands just above 1.01.
    "full": dict(p=4000, n_test=3000, draws=1000, tune=1000, chains=4),
    "quick": dict(p=600, n_test=500, draws=150, tune=150, chains=2),
}


def _side_by_side(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    parts = []
    for name, t in tables.items():
        t = t.set_index("bin")[["count", "mean_predicted", "observed_fraction"]]
        t.columns = pd.MultiIndex.from_product([[name], ["#", "Pred", "Actual"]])
        parts.append(t)
    return pd.concat(parts, axis=1)


def run_demo(out: str = "demo_output", data: str | None = None, quick: bool = False,
             seed: int = 2009, k: int = 10) -> int:
    """Run the demo: fit the corrected and uncorrected classifiers and compare their calibration.

    Simulates ``200 + n_test`` cases with ``p`` features from the Li 2009 design (6 classes,
    tau_mu = tau_nu = 100), trains on the first 200, keeps the ``k`` features with the largest
    F statistic, fits :class:`~selbayes.estimators.HierarchicalGaussianClassifier`
    with and without the selection correction (NUTS), prints both reliability tables of
    P(y = class 0) and a summary (error rates, AMLP, Brier score, posterior median of
    log tau_mu, wall time in seconds), and writes ``out/reliability.png``. The full design
    (:data:`DESIGNS` ``["full"]``) takes a few minutes on 2 cores; the quick one is for tests.

    Parameters
    ----------
    out : str or Path
        Folder for the reliability diagram (created if missing).
    data : {None, "simulated", "srbct"}
        Dataset: ``None`` or ``"simulated"`` for the simulation above; ``"srbct"`` runs the
        SRBCT real-data demo instead.
    quick : bool
        Use the smaller design ``DESIGNS["quick"]`` (fewer features, test cases and draws).
    seed : int
        Seed of the simulation and of the samplers.
    k : int
        Number of features kept by the F-statistic selection, 1 <= k < p.

    Returns
    -------
    int
        Process exit status, 0 on success.

    Raises
    ------
    SystemExit
        If ``data`` names an unavailable dataset.

    Examples
    --------
    >>> from selbayes.demo import DESIGNS, run_demo
    >>> run_demo(out="demo_output", quick=True)       # doctest: +SKIP
    >>> DESIGNS["quick"]
    {'p': 600, 'n_test': 500, 'draws': 150, 'tune': 150, 'chains': 2}
    >>> run_demo(data="iris")
    Traceback (most recent call last):
    ...
    SystemExit: demo dataset 'iris' is not available yet; use the simulated default
    """
    import matplotlib

    matplotlib.use("Agg")
    from .datasets._simulate import gaussian_classification
    from .estimators._gaussian import EXACT_MODEL, HierarchicalGaussianClassifier
    from .evaluation import _calibration as calibration
    from .evaluation import _plots as plots

    if data == "srbct":
        from .experiments._gaussian_cv import run_demo as run_srbct_demo

        return run_srbct_demo(out=out, quick=quick, seed=seed, k=k)
    if data not in (None, "simulated"):
        raise SystemExit(f"demo dataset {data!r} is not available yet; use the simulated default")
    design = DESIGNS["quick" if quick else "full"]
    out_dir = make_folder(out, "out")
    n_train = 200
    sim = gaussian_classification(n_train + design["n_test"], design["p"], 6, tau_mu=100.0,
                                  tau_nu=100.0, alpha_x=4.0, w_x=1.0, random_state=seed)
    train, test = sim.take(np.arange(n_train)), sim.take(np.arange(n_train, sim.n_samples))
    print(f"selbayes demo: {sim!r}; {n_train} training and {test.n_samples} test cases; "
          f"keep k = {k} features by F")

    from ._compile_cache import cache_dir

    print(f"(the first fit of a model shape compiles it, 10-60 s; the compiled code is cached "
          f"in {cache_dir()}, so a second run starts in about a second)", flush=True)
    probas, summaries, tables = {}, {}, {}
    for corrected in (True, False):
        name = "corrected" if corrected else "uncorrected"
        print(f"fitting the {name} model...", flush=True)
        t0 = time.perf_counter()
        clf = HierarchicalGaussianClassifier(
            k=k, correct_selection=corrected, draws=design["draws"], tune=design["tune"],
            chains=design["chains"], random_state=seed, progressbar=False, **EXACT_MODEL)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            clf.fit(train.X, train.y)
        _explain_warnings(caught, name)
        proba = clf.predict_proba(test.X)
        elapsed = time.perf_counter() - t0
        probas[name] = proba
        summaries[name] = {**calibration.calibration_summary(proba, test.y),
                           "posterior median log tau_mu":
                               float(np.median(np.log(clf.idata_.posterior["tau_mu"]))),
                           "fit + predict seconds": elapsed}
        tables[name] = calibration.reliability_table(proba[:, 0], test.y == 0)
        if corrected:
            print(f"gamma (smallest retained F) = {clf.selection_.threshold:.3f}; "
                  f"p - k = {clf.selection_.n_omitted} omitted features")

    with pd.option_context("display.width", 120, "display.precision", 3):
        print("\nReliability of P(y = class 0) on the test cases (cf. Li 2009 Table 1):")
        print(_side_by_side(tables).to_string(na_rep="-"))
        summary = pd.DataFrame(summaries).loc[
            ["error_rate", "expected_error_rate", "error_gap_p_value", "amlp", "brier",
             "posterior median log tau_mu", "fit + predict seconds"]]
        print("\nSummary (true log tau_mu = log 100 = 4.61; error_gap_p_value: the chance that "
              "a calibrated\npredictor's expected error misses its actual one by as much, "
              "selbayes.evaluation.error_gap_test):")
        print(summary.to_string(float_format=lambda v: f"{v:.3f}"))
    ax = plots.reliability_diagram(
        {name: (probas[name][:, 0], test.y == 0) for name in probas},
        title=f"Demo: reliability of P(y = class 0), k = {k}")
    path = out_dir / "reliability.png"
    ax.figure.savefig(path, dpi=110, bbox_inches="tight")
    print(f"\nreliability diagram written to {path}")
    return 0


def _explain_warnings(caught, name: str) -> None:
    """Show the fit's warnings with a line saying what a diagnostic failure means here."""
    for w in caught:
        text = str(w.message)
        if "MCMC diagnostics" in text:
            print(f"note ({name} fit): {text.splitlines()[0]} -- the convergence checks are "
                  "strict (R-hat <= 1.01, ESS >= 400 per component); values just past them "
                  "mean the posterior summaries carry a little more Monte Carlo error, not a "
                  "wrong model. More draws (draws=, chains=) remove the note.")
            for line in text.splitlines()[1:]:
                print(f"    {line.strip()}")
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
