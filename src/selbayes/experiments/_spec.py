"""Reading and validating reproduction specs (TOML files under ``models/experiments/``).

The schema mechanism (:class:`Field`, :func:`validate`, errors naming file, section and key) is
:mod:`selbayes._spec`, shared with the SBC specs. This module adds the sections shared by
every reproduction; each experiment type (see :mod:`selbayes.experiments`) adds its own keys.

``--quick`` deep-merges the spec's ``[quick]`` table (same sections and keys, any subset) over
the full design before validation.
"""

from __future__ import annotations

import numpy as np

from .._parallel import Task, dict_diff, settings_hash
from .._spec import Field, Spec, SpecError, merge_schema, read_toml, validate

__all__ = ["Field", "Spec", "SpecError", "COMMON_SCHEMA", "merge_schema", "read_toml", "validate",
           "settings_hash", "dict_diff"]

# Sections shared by every reproduction. Experiment types add keys (e.g. [data] simulator
# settings, [priors]) and may add sections of their own.
COMMON_SCHEMA: dict[str, dict[str, Field]] = {
    "experiment": {
        "name": Field("str", "identifier; default output folder reports/<name>"),
        "model": Field("str", "experiment type: which runner executes the spec"),
        "title": Field("str", "one-line title for the report", default=""),
        "paper": Field("str", "the paper reproduced (seed file)", default=""),
        "spec": Field("str", "the specification file the settings come from", default=""),
        "description": Field("str", "free text for the report", default=""),
    },
    "data": {
        "source": Field("str", "where the cases come from", choices=("simulate",)),
        "n_train": Field("int", "training cases", minimum=2),
        "n_test": Field("int", "test cases", minimum=1),
    },
    "sampler": {
        "name": Field("str", "NUTS implementation (estimator's `sampler`)", default="auto",
                      choices=("auto", "nutpie", "pymc", "numpyro", "blackjax")),
        "draws": Field("int", "posterior draws per chain", default=1000, minimum=1),
        "tune": Field("int", "tuning (warm-up) iterations per chain", default=1000, minimum=0),
        "chains": Field("int", "independent chains", default=4, minimum=1),
        "target_accept": Field("float", "NUTS target acceptance", default=0.9, positive=True),
        "max_predict_draws": Field("int", "posterior draws used for prediction", default=1000,
                                   minimum=1),
    },
    "seeds": {
        "data": Field("int", "seed of the simulated data set", minimum=0),
        "split": Field("int", "seed of the random training/test split", minimum=0),
        "fit": Field("int", "root seed of the MCMC runs (one child per fit)", minimum=0),
        "loss": Field("int", "seed of the random loss matrices", default=0, minimum=0),
        "baselines": Field("int", "seed of the scikit-learn baselines", default=0, minimum=0),
    },
    "evaluation": {
        "n_bins": Field("int", "reliability-table bins on [0, 1]", default=10, minimum=2),
        "n_loss_matrices": Field("int", "random loss matrices averaged over", default=100,
                                 minimum=1),
        "loss_log_sd": Field("float", "sd of log loss: off-diagonal loss ~ exp(N(0, sd^2))",
                             default=2.0, minimum=0.0),
    },
    "reference": {},  # free-form reported numbers; checked by the experiment type
}


def task_seed(root: int, *keys: int) -> int:
    """A fit's seed: one 32-bit draw of SeedSequence([root, *keys]), independent of run order."""
    ss = np.random.SeedSequence([int(root), *(int(k) for k in keys)])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def fit_seed(root: int, k, corrected: bool) -> int:
    """The seed of the fit at ``k`` kept features (``"all"``: no selection), corrected or not."""
    return task_seed(root, 0 if k == "all" else int(k), int(corrected))



def selection_tasks(spec, fit_id, include_all: bool, **params) -> list[Task]:
    """The fits of a selection experiment, seeded by :func:`fit_seed`: corrected, then
    uncorrected, for each k of ``[selection] k``, then (``include_all``) one fit on all
    features. ``fit_id(k, method)`` names a fit; ``params`` join every fit's parameters."""
    root, tasks = spec["seeds"]["fit"], []
    for k in spec["selection"]["k"]:
        for corrected in (True, False):
            method = "corrected" if corrected else "uncorrected"
            tasks.append(Task(fit_id(k, method), {"k": k, "method": method, "corrected": corrected,
                                                  **params, "seed": fit_seed(root, k, corrected)}))
    if include_all:
        tasks.append(Task(fit_id("all", "no_selection"),
                          {"k": "all", "method": "no_selection", "corrected": False, **params,
                           "seed": fit_seed(root, "all", False)}))
    return tasks

def check_k_list(where: str, ks, p: int, include_all: bool | None = None) -> None:
    """The ``[selection] k`` list: not empty (unless ``include_all`` adds the fit on all
    features; None: the spec type has no such key), no repeats, every k < p."""
    if not ks and not include_all:
        clause = "" if include_all is None else " and include_all is false"
        raise SpecError(f"{where}: [selection] k is empty{clause}: nothing to fit")
    if len(set(ks)) != len(ks):
        raise SpecError(f"{where}: [selection] k has repeated values: {ks}")
    bad = [k for k in ks if k >= p]
    if bad:
        hint = "" if include_all is None else " (use include_all for all features)"
        raise SpecError(f"{where}: [selection] k values {bad} must be < [data] p = {p}{hint}")


def check_reliability_reference(where: str, table, name: str, methods, n_bins: int) -> None:
    """Check a ``[reference.<name>.<label>.<method>]`` reliability table from a paper.

    Each entry holds ``count``, ``pred`` and ``actual``, lists of ``n_bins`` numbers (nan for
    empty bins), for a method in ``methods``.
    """
    if not isinstance(table, dict):
        raise SpecError(f"{where}: [reference] {name} must be a table")
    for label, by_method in table.items():
        if not isinstance(by_method, dict):
            raise SpecError(f"{where}: [reference.{name}.{label}] must be a table")
        for method, cols in by_method.items():
            key = f"[reference.{name}.{label}.{method}]"
            if method not in methods:
                raise SpecError(f"{where}: {key}: method must be one of {list(methods)}")
            if not isinstance(cols, dict) or set(cols) != {"count", "pred", "actual"}:
                raise SpecError(f"{where}: {key} must hold exactly the keys count, pred, actual")
            for col, values in cols.items():
                if not isinstance(values, list) or len(values) != n_bins:
                    raise SpecError(f"{where}: {key} {col} must be a list of n_bins = {n_bins} "
                                    "numbers (nan for empty bins)")

