"""Evaluating fitted classifiers: calibration and losses, sampler diagnostics, cross-validation
and plots.

The modules are private (:mod:`~selbayes.evaluation._calibration`,
:mod:`~selbayes.evaluation._diagnostics`, :mod:`~selbayes.evaluation._cross_validation`,
:mod:`~selbayes.evaluation._folds` (every split of the package), :mod:`~selbayes.evaluation._ppc`,
:mod:`~selbayes.evaluation._loo_check`, :mod:`~selbayes.evaluation._label_check` and
:mod:`~selbayes.evaluation._replicates` (the checks ``fit`` runs),
:mod:`~selbayes.evaluation._prior_checks`, :mod:`~selbayes.evaluation._plots`); the names below
are the public API. Each is imported on first use (``selbayes.evaluation.reliability_diagram``
imports matplotlib then), so importing an estimator does not import xarray or matplotlib.
"""

from .._compat import package_attributes as _package_attributes

# public name -> its private module (imported on first use)
_NAMES = {
    **dict.fromkeys(["reliability_table", "flag_miscalibrated_bins", "calibration_summary",
                     "error_gap_test",
                     "bayes_decision", "expected_vs_actual_loss", "random_loss_matrices",
                     "check_loss", "check_proba", "encode_outcome", "case_losses"],
                    "_calibration"),
    **dict.fromkeys(["SamplingWarning", "PriorBoundaryWarning", "GridBoundaryWarning", "check",
                     "sampler_summary", "warn_from_user_line"], "_diagnostics"),
    **dict.fromkeys(["cross_validate", "CrossValidationResult", "fit_fold", "load_folds"],
                    "_cross_validation"),
    **dict.fromkeys(["make_folds", "check_splits", "stratified_folds", "stratified_splitter",
                     "repeated_stratified_folds"], "_folds"),
    # not the function loo_check: selbayes.evaluation.loo_check is the former public module for
    # one more release (selbayes._compat)
    **dict.fromkeys(["InfluentialCaseWarning", "PARETO_K_THRESHOLD"], "_loo_check"),
    **dict.fromkeys(["SuspectLabelWarning", "held_out_label_check", "LABEL_CHECK_ALPHA"],
                    "_label_check"),
    **dict.fromkeys(["ReplicateWarning", "replicate_groups", "replicate_labels"], "_replicates"),
    **dict.fromkeys(["reliability_diagram", "predictive_scatter", "error_vs_k", "trace_log_tau",
                     "f_statistic_plot", "sbc_rank_plot", "sbc_histogram_band",
                     "sbc_ecdf_band"], "_plots"),
    **dict.fromkeys(["PriorDataConflictWarning", "f_statistic_check", "f_statistic_survival",
                     "conflict_message", "check_fit", "check_inputs", "FAMILY_LEVEL",
                     "MAX_CHECKED", "MAX_DRAWS"], "_ppc"),
    **dict.fromkeys(["PRIOR_TAIL", "prior_boundary_checks", "prior_boundary_messages"],
                    "_prior_checks"),
}

__all__ = list(_NAMES)


# the names above imported on first use; the old module paths (selbayes.evaluation.<module>)
# for one release, with a FutureWarning
__getattr__, __dir__ = _package_attributes(__name__, _NAMES)
