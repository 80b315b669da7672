"""A Bayesian probit regression on all genes (``selbayes.models.fit_linear_probit``, first
written beside this script as ``bayes_linear_ep.py``: normal prior on the weights, their
scale integrated over its prior with expectation propagation's marginal likelihood) stacked
beside the default by the inner cross-validation: an offline check (plug-in posterior for the
default). The rule is in README.md (written before the run).

The same rows as ``../linear_component_probe/`` (its ``stacked_rows``, one definition) with
this component in place of L2 logistic regression: ``pi_noise_cv`` (the control, reproducing
``../label_noise_cv/``), ``choose_blep``, ``stack_blep`` (the candidate) and ``blep`` (the
component refitted on all training cases). Run:
``python reports/plasmode/bayes_linear_ep/run.py [jobs]`` (resumes from ``results.jsonl``),
then ``compare.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: replicates, inner folds, the run)

_spec = importlib.util.spec_from_file_location(
    "linear_component_probe_run", HERE.parent / "linear_component_probe" / "run.py")
probe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(probe)   # its stacked_rows, one definition


def blep_log_proba(rep, X_train, y_train, X_test):
    """(m, 2) log probabilities of the Bayesian all-genes component (no random state: the
    fit is deterministic)."""
    from selbayes.models import fit_linear_probit

    return fit_linear_probit(X_train, y_train).predict_log_proba(X_test)


def one_replicate(scenario_name, rep):
    return probe.stacked_rows(scenario_name, rep, blep_log_proba,
                              ("choose_blep", "stack_blep", "blep"), "blep")


def main() -> int:
    return offline.run_all(one_replicate, HERE / "results.jsonl", ("k", "chose", "weight"))


if __name__ == "__main__":
    raise SystemExit(main())
