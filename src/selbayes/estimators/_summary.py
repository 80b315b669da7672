"""What a fitted classifier is, in a few lines: ``clf.summary()`` in Python and what
``selbayes fit`` prints, written once.

The lines read only the fitted attributes (the selection, the choices of the inner
cross-validation, the checks, the stack's weights), so a loaded fit summarises as the fit did.
Where a line says what to do, it says it in the caller's terms: Python's arguments, or the
command line's options (``command_line=True``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["summary_lines"]


def summary_lines(clf, *, model: str | None = None, command_line: bool = False,
                  groups=None) -> list[str]:
    """The summary of a fitted selbayes classifier, one string per line.

    Parameters
    ----------
    clf : fitted selbayes classifier
        A selection classifier (``HierarchicalGaussianClassifier``, ...) or one built around
        the Gaussian classifier (``LinearStackedClassifier``, ``StackedGaussianClassifier``).
    model : str, optional
        The model's name on the first line (the command line's ``--model``); by default the
        class name of the (inner) selection classifier.
    command_line : bool, default False
        Name remedies as the command line's options (``--draws``, ``--groups``), not as
        Python's arguments.
    groups : str, optional
        The ``--groups`` the command was given (``"none"``, ``"auto"``, a file), for the
        replicate lines.

    Returns
    -------
    list of str
        What was fitted (samples, features, classes), k and how it was chosen, gamma, the
        first kept features, the prior, temperature and label noise, the MCMC diagnostics,
        the label and replicate checks; for a stack, its weights and inner scores.

    Raises
    ------
    AttributeError
        If ``clf`` is not fitted (``clf.summary()`` checks that first and says so).

    Examples
    --------
    >>> from selbayes.estimators import HierarchicalGaussianClassifier
    >>> clf = HierarchicalGaussianClassifier().fit(X, y)          # doctest: +SKIP
    >>> print("\\n".join(summary_lines(clf)))                      # doctest: +SKIP
    """
    inner = getattr(clf, "estimator_", None)
    base = inner if inner is not None else clf
    lines = _selection_lines(base, model or type(base).__name__, command_line, groups)
    if hasattr(clf, "linear_"):
        lines += _linear_stack_lines(clf)
    elif inner is not None and hasattr(clf, "weights_"):
        lines.append("stacked: weights " + ", ".join(f"{w:.2f}" for w in clf.weights_))
    return lines


def _selection_lines(clf, model: str, command_line: bool, groups) -> list[str]:
    """The lines of a fitted selection classifier: k, the first genes, gamma, temperature,
    diagnostics."""
    sel = clf.selection_
    counts = np.asarray(sel.class_counts, dtype=np.int64)
    n = int(counts.sum())
    p = int(getattr(clf, "n_features_in_", sel.n_features))
    shown = ", ".join(f"{c} ({int(m)})" for c, m in zip(clf.classes_, counts, strict=True))
    lines = [f"fitted: {model}, {n} samples x {p} features; classes {shown}"]
    k = int(len(sel.indices))
    how = ""
    choice = getattr(clf, "k_choice_", None)
    if choice is not None and getattr(clf, "k", None) == "auto":
        ks = sorted({int(g[0]) for g in choice.grid})
        grouped = (f", {choice.extra['n_groups']} groups kept whole"
                   if "n_groups" in choice.extra else "")
        how = (f" (chosen by {choice.n_splits}-fold inner CV{grouped} from "
               f"{', '.join(map(str, ks))})")
    stat = {"f": "F", "abs_corr": "|correlation|"}.get(str(sel.statistic), str(sel.statistic))
    lines.append(f"k: {k}{how}; threshold gamma: {float(sel.threshold):.4g} "
                 f"({stat} of the last kept feature; {p - k} omitted at or below it)")
    names = [str(v) for v in clf.selected_features_]
    more = f", ... ({len(names) - 8} more)" if len(names) > 8 else ""
    lines.append(f"selected (best first): {', '.join(names[:8])}{more}")
    markers = getattr(clf, "marker_probabilities_", None)
    if markers is not None:   # the two-groups prior: each kept gene's P(real marker | data)
        shown = ", ".join(f"{name} {float(prob):.2f}" for name, prob in
                          zip(names[:8], np.asarray(markers)[:8], strict=False))
        lines.append(f"P(real marker), two-groups prior: {shown}{more}")
    if getattr(clf, "prior_choice_", None) is not None:
        pc = clf.prior_choice_
        lines.append(f"prior on the class means: {pc.label} (chosen by inner CV from "
                     f"{', '.join(pc.labels)})")
    elif getattr(clf, "t_df_", None) is not None:
        lines.append(f"t prior: {float(clf.t_df_):g} degrees of freedom (chosen by the data)")
    temp = getattr(clf, "temperature_", None)
    if isinstance(temp, int | float) and np.isfinite(temp) and float(temp) != 1.0:
        lines.append(f"temperature: {float(temp):.3g} (test-time log odds divided by it)")
    eps = getattr(clf, "label_noise_", None)
    if isinstance(eps, int | float) and float(eps) > 0:
        how = ("share chosen by inner CV; " if getattr(clf, "label_noise", None) == "cv"
               else "")
        lines.append(f"label noise: {float(eps):.3g} ({how}probabilities mixed with the class "
                     "frequencies by this much)")
    elif getattr(clf, "label_noise", None) == "cv":
        lines.append("label noise: 0 (chosen by inner CV: no case predicted badly enough to "
                     "need it)")
    lines.append(_diagnostics_line(clf, command_line))
    lines += _label_lines(clf)
    found = getattr(clf, "replicate_groups_", None)     # None: groups given, or no inner CV
    if found is not None:
        lines += _replicate_lines(found, n, groups, command_line)
    return lines


def _diagnostics_line(clf, command_line: bool) -> str:
    diag = getattr(clf, "diagnostics_", None)
    if diag is None and getattr(clf, "method", None) == "plugin":
        return ("diagnostics: none (plug-in: hyperparameters at their mode, independent "
                "draws, no chain to converge)")
    if diag is None:
        return "diagnostics: none (no MCMC draws: deterministic computation)"
    if diag.attrs.get("ok", True):
        return f"diagnostics: R-hat and ESS pass ({len(diag)} parameters checked)"
    failures = diag.attrs.get("failures") or ["see diagnostics_"]
    # the failure names its remedy; these are the run's lengths where it is set
    where = "--draws, --tune, --chains" if command_line else "draws=, tune=, chains="
    return f"diagnostics: FAIL: {failures[0]} ({where})"


def _label_lines(clf) -> list[str]:
    """The held-out label check of ``loo_checks_`` (the inner CV's probability of each
    case's own label), where the fit ran it."""
    checks = getattr(clf, "loo_checks_", None)
    if checks is None or "suspect_label" not in checks:
        return []
    from ..evaluation._label_check import LABEL_CHECK_ALPHA, flagged_cases

    n_bad = int(checks["suspect_label"].sum())
    if n_bad == 0:
        return ["labels: none contradicted by the held-out predictions (the inner CV without "
                "label noise; a case is named when (classes - 1) x its probability of its own "
                f"class is below {LABEL_CHECK_ALPHA:g} / samples)"]
    return [f"labels: {n_bad} contradicted by their held-out predictions: "
            f"{flagged_cases(checks, with_p=False)} (check for a sample swap or a wrong "
            "label)"]


def _replicate_lines(found, n: int, groups, command_line: bool) -> list[str]:
    """The ``replicates:`` lines for a fit's ``replicate_groups_`` (``found``) among ``n``
    samples: the groups kept whole by the inner folds and those not, with what to do
    (``groups``: the ``--groups`` given, None for the default)."""
    from ..evaluation._replicates import NEAR_COPY, PAIR_SHARE, replicate_message

    if not len(found):
        return ["replicates: no samples far more alike among themselves than any others "
                "(pairs to groups of 5 looked for)"]
    if command_line:
        none, declare = "--groups none", "pass --groups auto or --groups FILE"
    else:
        none, declare = "groups=None", "fit with groups='auto' or groups=labels"
    kept = found["kept"].to_numpy(dtype=bool)
    out = []
    if kept.any():
        k = found[kept]
        out.append(f"replicates: {len(k)} of {n} samples in {k['group'].nunique()} group(s) "
                   "far more alike among themselves than any others, kept whole by the inner "
                   f"folds (replicate_groups_ of the fit; {none} takes every sample as "
                   "independent)")
    rest = found[~kept]
    if len(rest):
        why = (none if groups == "none" else
               f"less alike than the near-copies kept by default: correlation below "
               f"{NEAR_COPY:g}")
        warned = replicate_message(rest, n) is not None
        out.append(f"replicates: {len(rest)} of {n} samples in {rest['group'].nunique()} "
                   "group(s) far more alike among themselves than any others, not kept whole "
                   f"({why}; replicate_groups_ of the fit; "
                   + (f"if they are replicates or samples of one patient, {declare})"
                      if warned else
                      f"too few to warn: a warning needs {PAIR_SHARE:.0%} of the samples and "
                      "at least 4)"))
    return out


def inner_predictions(refits) -> str:
    """What the stack's weights were fitted on: the Gaussian model refitted on every inner
    fold, on some (a fold the classifier cannot be fitted on keeps the plug-in scores), on
    none, or the plug-in by choice (``refits`` None)."""
    if refits is None:
        return "the inner cross-validation's plug-in"
    done, folds = refits
    if done == folds:
        return "refitted on each inner fold"
    why = "a class has no training case there, or fewer than two classes of two cases"
    if done == 0:
        return f"the inner cross-validation's plug-in on all {folds} inner folds ({why})"
    return f"refitted on {done} of {folds} inner folds (the plug-in on the others: {why})"


def _linear_stack_lines(clf) -> list[str]:
    """The stack's weights, inner scores and the L1 gate of a LinearStackedClassifier."""
    w, sc = clf.weights_, clf.inner_scores_
    lines = [f"stacked with a Bayesian probit regression of all {clf.linear_.Z.shape[1]} "
             f"features: weights {w[0]:.2f} (the gaussian model) and {w[1]:.2f} (the linear "
             f"model); inner log loss {sc['gaussian']:.3f}, {sc['linear']:.3f} and "
             f"{sc['stack']:.3f} (the stack), nats; the gaussian model's inner predictions: "
             + inner_predictions(clf.inner_refits_)]
    if clf.l1_gate_ is not None and clf.l1_gate_.get("inner_folds_fitted", [1])[0] == 0:
        # its inner log loss would be ln G, the 1/G its slot predicts: no score of L1's
        lines.append("L1 logistic regression: could not be fitted on any inner fold (a class "
                     "with too few training cases, or too few groups for its search for C): "
                     "not in the stack")
    elif clf.l1_gate_ is not None:
        g = clf.l1_gate_
        done, folds = g.get("inner_folds_fitted", [None, None])
        part = ("" if done is None or done == folds else
                f" (fitted on {done} of the {folds} inner folds; 1/G on the others)")
        lines.append(f"L1 logistic regression: inner log loss {sc['l1']:.3f} nats{part}; its "
                     f"cross-validated gain in the stack {g['gain']:+.4f} nats per case, z "
                     f"{g['z']:.2f} against the gate's {clf.l1_gate:g}: "
                     + ("the gate opened, but L1 cannot be fitted (a class of one training "
                        "case, or groups its search for C cannot split): not in the stack"
                        if g.get("unfittable") else
                        "not in the stack" if not g["open"] else
                        f"in the stack, weight {w[2]:.2f}" if w[2] > 0 else
                        "the gate opened, but the weights fitted on all inner cases give it 0"))
    return lines
