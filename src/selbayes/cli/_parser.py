"""The argument parser of ``selbayes`` (:func:`build_parser`), the argparse types of its
options, and the commands contributed by optional modules (``selbayes benchmark``)."""

from __future__ import annotations

import argparse
import importlib.util

from .._version import __version__

# The prior families `selbayes fit --prior` offers are the estimator's effect_prior families
# (settings in one place: selbayes.models.EFFECT_PRIORS, imported here as PRIOR_FAMILIES):
# add a family there and it appears in --prior's choices and help.
from ..benchmark._cli import DROP_MISSING_HELP
from ..models._priors import EFFECT_PRIOR_CV_GRID
from ..models._priors import EFFECT_PRIORS as PRIOR_FAMILIES
from ._classifiers import MODELS
from ._commands import _cmd_cache, _cmd_demo, _cmd_reproduce, _cmd_sbc
from ._fit import _cmd_fit
from ._predict import _cmd_predict


def _seed(text: str) -> int:
    """argparse type of --seed: the estimators' random_state, an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0; got {text!r}")
    return value


def _l1_gate(text: str):
    """argparse type of --l1-gate: a finite number (the gate's z) or "off" (no L1 model)."""
    import math

    if text.strip().lower() == "off":
        return "off"
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a number or 'off'; got {text!r}")
    return value


def _add_run_options(p: argparse.ArgumentParser, folder: str) -> None:
    p.add_argument("spec", help=f"spec (TOML), e.g. {folder}/<name>.toml")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--out", default=None,
                       help="output folder; resumes from the fits found there (default: "
                       "selbayes_runs/<spec name>, <spec name>_quick with --quick; never the "
                       "committed reports/)")
    where.add_argument("--update-report", action="store_true",
                       help="write into the committed report's folder, reports/<spec name>, "
                       "resuming from its stored fits and rewriting its report (what "
                       "'make reproduce' and 'make sbc' do)")
    p.add_argument("--quick", action="store_true",
                   help="the spec's shrunken design (documented in the spec), for tests")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--jobs", type=int, default=1,
                       help="parallel local processes (default 1; -1: all cores)")
    group.add_argument("--scheduler", default=None,
                       help="dask.distributed scheduler address (needs selbayes[distributed])")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    """Build the ``selbayes`` argument parser and its sub-commands.

    Each sub-command stores its handler in ``args.func``; :func:`main` calls it.

    Returns
    -------
    argparse.ArgumentParser
        The parser; ``parse_args`` raises ``SystemExit`` (status 2) on invalid arguments.

    Examples
    --------
    >>> from selbayes.cli import build_parser
    >>> args = build_parser().parse_args(
    ...     ["reproduce", "models/experiments/li2009_gaussian_simulation.toml", "--quick",
    ...      "--jobs", "2"])
    >>> args.command, args.spec, args.quick, args.jobs, args.scheduler, args.out
    ('reproduce', 'models/experiments/li2009_gaussian_simulation.toml', True, 2, None, None)
    >>> args.update_report                      # writes into reports/ only when asked
    False
    >>> build_parser().parse_args(["demo"]).seed
    2009
    >>> a = build_parser().parse_args(["fit", "--x", "X.csv", "--y", "y.csv", "-o", "f.nc"])
    >>> a.k is None, a.transform, a.prior           # the models' own defaults (k: auto)
    (True, None, None)
    """
    parser = argparse.ArgumentParser(
        prog="selbayes",
        description="Bayesian classification with a selected subset of features, "
        "calibrated by conditioning on the selection.",
    )
    parser.add_argument("--version", action="version", version=f"selbayes {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="fit corrected and uncorrected models on simulated data")
    demo.add_argument("--out", default="demo_output",
                      help="folder for the plot (default: %(default)s)")
    demo.add_argument("--data", default="simulated", choices=["simulated", "srbct"],
                      help="dataset (default: %(default)s)")
    demo.add_argument("--quick", action="store_true", help="smaller design, for tests")
    demo.add_argument("--seed", type=int, default=2009, help="random seed (default: %(default)s)")
    demo.set_defaults(func=_cmd_demo)

    rep = sub.add_parser("reproduce", help="run a paper experiment from its spec; resumes")
    _add_run_options(rep, "models/experiments")
    rep.set_defaults(func=_cmd_reproduce)

    sbc = sub.add_parser("sbc", help="simulation-based calibration of a model; resumes")
    _add_run_options(sbc, "models/sbc")
    sbc.set_defaults(func=_cmd_sbc)

    fit = sub.add_parser(
        "fit", help="fit a classifier to a matrix and labels; save it (.nc)",
        description="Fit a classifier (by default the recommended one: the hierarchical "
        "Gaussian model, k chosen by inner cross-validation, stacked with a Bayesian probit "
        "regression of all features and, where the inner cases show a clear gain (--l1-gate), "
        "L1 logistic regression) and save it for 'selbayes predict'. Prints k, the "
        "first selected features, the threshold gamma, the temperature, the MCMC "
        "diagnostics verdict, the training labels its held-out predictions contradict, the "
        "stacking weights and the L1 model's gate.")
    fit.add_argument("--x", required=True,
                     help="samples x features: CSV/TSV with a header row of feature names "
                     "(optional first column of sample ids), or .h5ad")
    fit.add_argument("--y", default=None,
                     help="labels: one column (in the row order of --x), or two (sample id, "
                     "label; matched to the sample ids of --x, any order)")
    fit.add_argument("--label-column", default=None,
                     help="the label column of --y when it has more than two columns")
    fit.add_argument("--label-key", default=None, help="for .h5ad: the obs column of labels")
    fit.add_argument("--layer", default=None, help="for .h5ad: a layer instead of X")
    fit.add_argument("--groups", default=None,
                     help="gaussian, --k auto: a groups CSV laid out as --y (one column of "
                     "group labels in row order, or sample id and group). The samples of one "
                     "group (technical replicates, several samples of one patient) are kept "
                     "in one fold of the inner cross-validation that chooses k and weighs the "
                     "stack. Without it (or 'near_copies'), the groups of samples far more "
                     "alike than any others that the fit finds are kept whole where their "
                     "members all correlate at 0.8 or more (near-copies, such as technical "
                     "replicates); 'auto': every group it finds (it also finds less alike "
                     "pairs, such as two preparations of one tumour); 'none': every sample "
                     "taken as independent")
    fit.add_argument("--group-key", default=None,
                     help="for .h5ad with --label-key: the obs column of groups (as --groups)")
    fit.add_argument("--k", default=None,
                     help="features to retain: an integer, 'auto' (chosen by inner CV) or "
                     "'all' (default: the model's own: auto for gaussian, 10 otherwise)")
    fit.add_argument("--k-grid", default=None,
                     help="gaussian, --k auto: the k tried, comma-separated (default "
                     "5,10,20,50,100,200,500,1000,2000; values of p or more become p - 1)")
    fit.add_argument("--prior", default=None, choices=[*PRIOR_FAMILIES, "auto"],
                     help="gaussian: prior family of the class means: "
                     + "; ".join(f"{k} = priors {v}" for k, v in PRIOR_FAMILIES.items())
                     + "; auto = chosen by inner CV among the t prior at df "
                     + ", ".join(f"{v:g}" for v in EFFECT_PRIOR_CV_GRID if v != "normal")
                     + " and the normal prior"
                     + " (default: t_auto)")
    fit.add_argument("--transform", default=None, choices=["auto", "none", "log2"],
                     help="preprocessing, saved with the fit and applied by 'selbayes "
                     "predict': log2 of the values clipped to [floor, ceiling]; none, the "
                     "values as given; auto (default), log2 floored at 1 (lower for values on "
                     "a smaller scale: their 10th percentile) when the values look "
                     "like raw intensities (all >= 0, strongly right-skewed; said when it "
                     "happens), as given otherwise, as 'selbayes benchmark' does")
    fit.add_argument("--floor", type=float, default=None,
                     help="--transform log2: floor (default 1.0; 100 for Affymetrix average "
                     "differences)")
    fit.add_argument("--ceiling", type=float, default=None,
                     help="--transform log2: ceiling (e.g. 16000, the scanner's saturation)")
    fit.add_argument("--drop-missing", default=None, choices=["genes", "samples"],
                     help=DROP_MISSING_HELP)
    fit.add_argument("--model", default="gaussian", choices=list(MODELS),
                     help="classifier (default: %(default)s)")
    fit.add_argument("--mcmc", action="store_true",
                     help="naive-bayes: NUTS instead of the deterministic quadrature")
    fit.add_argument("--plugin", action="store_true", default=None,
                     help="gaussian: hyperparameters at their posterior mode instead of NUTS "
                     "(method='plugin': seconds instead of minutes at k in the thousands)")
    fit.add_argument("--linear-stack", action=argparse.BooleanOptionalAction, default=None,
                     help="gaussian: stack the model with a Bayesian probit regression of "
                     "all features (for more than two classes, an ensemble of nested "
                     "dichotomies), weighted on the inner cases that chose k "
                     "(LinearStackedClassifier, the recommended model; the default with "
                     "--k auto). --no-linear-stack: the Gaussian classifier alone")
    fit.add_argument("--inner-predictive", default=None, choices=["refit", "plugin"],
                     help="gaussian, with the stack: the inner predictions its weights are "
                     "fitted on. 'refit' (the default): the model refitted with its own method "
                     "on each inner fold (one more fit per fold); 'plugin': the inner "
                     "cross-validation's plug-in predictions (no extra fits; overconfident "
                     "where effects are many and weak, which leaves the stack underconfident)")
    fit.add_argument("--l1-gate", type=_l1_gate, default=None, metavar="Z",
                     help="gaussian, with the stack: L1 logistic regression joins it as a "
                     "third model only where its cross-validated gain on the inner cases "
                     "exceeds Z standard errors (default 2); 'off': the two-model stack")
    fit.add_argument("--seed", type=_seed, default=0,
                     help="random seed, an integer >= 0 (default: %(default)s)")
    # naive-bayes integrates by quadrature unless --mcmc: the three below are MCMC's
    fit.add_argument("--draws", type=int, default=1000,
                     help="kept draws per chain (default: %(default)s; naive-bayes: with "
                     "--mcmc only)")
    fit.add_argument("--tune", type=int, default=1000,
                     help="warm-up draws per chain (default: %(default)s; naive-bayes: with "
                     "--mcmc only)")
    fit.add_argument("--chains", type=int, default=4,
                     help="chains (default: %(default)s; naive-bayes: with --mcmc only)")
    fit.add_argument("--no-progress", action="store_true", help="no progress output")
    fit.add_argument("-o", "--output", required=True,
                     help="the fitted classifier (.nc; missing folders are created)")
    fit.set_defaults(func=_cmd_fit)

    pred = sub.add_parser("predict", help="class probabilities of new samples from a saved fit")
    pred.add_argument("fit", help="a saved fit: from 'selbayes fit', or a classifier's "
                      "save() in Python")
    pred.add_argument("--x", required=True,
                      help="new samples (CSV/TSV/.h5ad); columns matched to the fit by name")
    pred.add_argument("--layer", default=None, help="for .h5ad: a layer instead of X")
    pred.add_argument("--strict", action="store_true",
                      help="samples far from the training data (FarFromTrainingWarning: "
                      "another scale or transform than in fit) are an error, exit status 2, "
                      "and nothing is written: for pipelines that must not go on with "
                      "extrapolated probabilities")
    pred.add_argument("-o", "--output", required=True,
                      help="CSV: one row per sample, a first column of sample ids (the --x "
                      "file's, under its id header or 'sample'), then one probability "
                      "column per class in the fit's class order (missing folders are "
                      "created)")
    pred.set_defaults(func=_cmd_predict)

    cache = sub.add_parser("cache", help="the compiled-model cache: where it is (and whether "
                           "the dependencies' Python bytecode is there), or empty it")
    cache.add_argument("action", choices=["info", "clear"],
                       help="info: where the cache is, its size and whether the bytecode is "
                       "there; clear: delete the compiled models")
    cache.set_defaults(func=_cmd_cache)

    # Commands contributed by optional modules (selbayes.benchmark._cli: register / run).
    if importlib.util.find_spec("selbayes.benchmark") is not None:
        try:
            from ..benchmark import _cli as bench_cli
        except ImportError:
            bench_cli = None
        if bench_cli is not None and hasattr(bench_cli, "register"):
            bench_cli.register(sub)
            bench = sub.choices.get("benchmark")
            if bench is not None and bench.get_default("func") is None \
                    and hasattr(bench_cli, "run"):
                bench.set_defaults(func=bench_cli.run)
    # --debug also after the command ("selbayes fit ... --debug"), where users put it; the
    # top-level value stands when it is not given there
    for command in sub.choices.values():
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help="show the full traceback of an error")
    return parser
