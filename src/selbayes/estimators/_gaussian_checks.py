"""What the hierarchical Gaussian classifier checks after it fits, and before it predicts.

:class:`GaussianChecks` holds the classifier's check hooks (the base class,
:class:`~selbayes.estimators._base.SelectionClassifier`, calls them; see its ``_fit``): the
ArviZ groups the checks read (``log_likelihood``, ``posterior_predictive``), the prior
boundaries and the predictive check of the kept F statistics (a prior-data conflict), the
training labels its held-out predictions contradict, samples that look like replicates, a
value chosen at an end of its grid, and, at predict time, test rows far from the training
data. Each warns with its own class (:mod:`selbayes.evaluation`) and a table on the fitted
classifier (``prior_checks_``, ``ppc_checks_``, ``loo_checks_``, ``replicate_groups_``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..evaluation._prior_checks import prior_boundary_checks

if TYPE_CHECKING:             # the posterior record the classifier's fit hands its hooks
    from ._gaussian import _GaussianPosterior

__all__ = ["GaussianChecks", "FAR_FROM_TRAINING", "FAR_ONE_FEATURE"]

#: A test row is far from the training data (:class:`FarFromTrainingWarning`) when the median
#: over the kept features of its distance to the nearest class mean, in predictive standard
#: deviations, exceeds this. Set on the model, not on data: a row drawn from a class's
#: predictive is at most |z| from the nearest class mean on each feature, so the median
#: exceeds 4 with probability at most 2 P(z > 4) = 6e-5 at k = 1 and far less at larger k
#: (about 0.7 typically). Checked, not chosen, on the out-of-fold test samples of the eleven
#: development sets (at most 2.4, reports/far_from_training); log2 applied twice gives about
#: 6, raw intensities against a fit on log2 values 100 and more.
FAR_FROM_TRAINING = 4.0

#: A test row has a value far from the training data on one kept feature
#: (:class:`FarFromTrainingWarning`) when that feature lies more than this many predictive
#: standard deviations from every class mean: a fill value (-999, 1e10) or a unit error in
#: one gene, which the median over the kept features does not see. The class densities are
#: averages of normal ones over the posterior draws, so a feature's log odds grow with its
#: distance, and one such value decides the probabilities alone (a value of -999 in a
#: kept gene of unit scale gave probability exactly 1). Set far above what real samples
#: show: the largest distance of any kept gene of any out-of-fold test sample of the eleven
#: development sets was 24, and 10 or more was common in one set (12 of subramanian's 50
#: samples); a bound of 50 is a value about 2^25 times off on the log2 scale of a gene of
#: SD 0.5 (reports/far_from_training). With ``decorrelate`` the distances are those of the
#: decorrelated features, over which one gene's fill value spreads: the row is then named by
#: the scale check (median over the kept features), without the gene.
FAR_ONE_FEATURE = 50.0


class GaussianChecks:
    """The check hooks of :class:`~selbayes.estimators.HierarchicalGaussianClassifier` (a
    mixin before :class:`~selbayes.estimators._base.SelectionClassifier` in its bases: its
    ``_check_diagnostics`` extends the base class's). They read what the classifier's fit
    stores: ``idata_``, ``selection_``, ``k_choice_``, ``label_noise_``, the fitted priors
    (``_fitted_priors``) and the predictive moments (``pred_mean_``, ``pred_precision_``).

    Examples
    --------
    >>> from selbayes.estimators import HierarchicalGaussianClassifier
    >>> [c.__name__ for c in HierarchicalGaussianClassifier.__mro__[1:3]]
    ['GaussianChecks', 'SelectionClassifier']
    """

    def _add_checks(self, posterior: _GaussianPosterior, y_index) -> None:
        """``log_likelihood``, ``posterior_predictive``, ``observed_data`` and the training
        data in ``constant_data``, for ArviZ
        (:func:`selbayes.models._gaussian_checks.arviz_groups`)."""
        import xarray as xr

        from .._validation import check_random_state
        from ..models._gaussian_checks import arviz_groups

        seed = None if self.random_state is None else int(self.random_state) + 1
        have = self.idata_.children
        groups = arviz_groups(
            self.idata_.posterior.to_dataset(), posterior.X, y_index, check_random_state(seed),
            observed=have["observed_data"].to_dataset() if "observed_data" in have else None,
            constant=have["constant_data"].to_dataset() if "constant_data" in have else None)
        for name, ds in groups.items():
            self.idata_[name] = xr.DataTree(ds)

    def _check_diagnostics(self, posterior: _GaussianPosterior | None = None) -> None:
        """Convergence diagnostics (base class), then
        :func:`~selbayes.evaluation.prior_boundary_checks`: a
        :class:`~selbayes.evaluation.PriorBoundaryWarning` names every
        hyperparameter whose posterior lies far in its prior's tail (``prior_checks_``,
        with each one's ``prior_pull``); then the mixed
        predictive check of the kept F statistics (:func:`selbayes.evaluation.check_fit`,
        ``ppc_checks_``), which warns on a prior-data conflict; the held-out check of the
        training labels (:meth:`_check_labels`); and the check for samples that look like
        replicates (:meth:`_check_replicates`)."""
        super()._check_diagnostics(posterior)
        self._check_labels(posterior)
        self._check_replicates(posterior)
        if "posterior" not in self.idata_.children:
            return
        from ..evaluation._diagnostics import PriorBoundaryWarning, warn_from_user_line
        from ..evaluation._ppc import check_fit
        from ..evaluation._prior_checks import prior_boundary_messages

        # The within-class variance of the features the model saw (in its units).
        scale = getattr(posterior, "within_var", float("nan"))
        # Selection by F keeps the least noisy of p features: their tau_x may lie as far out
        # as the largest of p prior draws (the paper's own model warned falsely otherwise).
        table = prior_boundary_checks(self.idata_, self._fitted_priors(),
                                      n_features=self.selection_.n_features)
        self.prior_checks_ = table
        if table["held"].any():
            for msg in prior_boundary_messages(table, scale):
                warn_from_user_line(msg, PriorBoundaryWarning)
        self.ppc_checks_ = check_fit(self.idata_, self.selection_, self._fitted_priors())

    def plot_ppc(self, ax=None):
        """Draw the predictive check of the kept features' F statistics that ``fit`` ran
        (``ppc_checks_``): each kept feature at its F against the fitted model's mixed
        predictive for a selected feature, with a band of binomial noise; features the model
        cannot produce are red and named (:func:`selbayes.evaluation.f_statistic_plot`).

        Parameters
        ----------
        ax : matplotlib Axes, optional

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier has not been fitted.
        ValueError
            If the fit does not store the posterior draws or the F statistics (a file saved
            by an older selbayes).

        Examples
        --------
        >>> clf = HierarchicalGaussianClassifier(effect_prior="normal").fit(X, y)  # doctest: +SKIP
        >>> clf.plot_ppc().figure.savefig("f_check.png")                          # doctest: +SKIP
        """
        from sklearn.utils.validation import check_is_fitted

        from ..evaluation._plots import f_statistic_plot
        from ..evaluation._ppc import check_inputs

        check_is_fitted(self, "idata_")
        inputs = check_inputs(self.idata_, self.selection_, self._fitted_priors())
        if inputs is None:
            raise ValueError("the predictive check needs the posterior draws of the "
                             "hyperparameters and the kept features' F statistics, and this "
                             "fit does not store them (a file saved by an older selbayes): "
                             "fit the classifier again")
        return f_statistic_plot(**inputs, ax=ax)

    def _held_out_log_proba(self) -> np.ndarray | None:
        """Every training case's held-out log probabilities (n, G) under the chosen candidate
        of the inner cross-validation, without a label-noise share; None without inner CV
        (a fixed k with a fixed ``label_noise``, as a rule) or when only a share
        above 0 was scored."""
        choice = self.k_choice_
        if choice is None or choice._chosen_row() is None:
            return None
        if "share_case_log_proba" in choice.extra:          # label_noise="cv": every share
            return choice._chosen_case_log_proba(share=0.0)
        if "case_log_proba" in choice.extra and self.label_noise_ == 0.0:
            return choice._chosen_case_log_proba()
        return None

    def _check_replicates(self, posterior) -> None:
        """A :class:`~selbayes.evaluation.ReplicateWarning` where the training samples come in
        groups far more alike than any other samples and ``fit`` got no ``groups``
        (:func:`selbayes.evaluation.replicate_groups`, found before the inner
        cross-validation, which takes such samples as independent)."""
        from ..evaluation._diagnostics import warn_from_user_line
        from ..evaluation._replicates import ReplicateWarning, replicate_message, with_sample_ids

        found = getattr(self, "replicate_groups_", None)
        if found is None or posterior is None or posterior.y_index is None:
            return                        # not looked for
        if posterior.case_names is not None:
            # the samples by their ids too, as loo_checks_ names them
            self.replicate_groups_ = found = with_sample_ids(found, posterior.case_names)
        found = found[~found["kept"]]     # those kept whole by the inner folds need no warning
        message = replicate_message(found, posterior.y_index.size, posterior.case_names)
        if message is not None:
            warn_from_user_line(message, ReplicateWarning)

    def _check_labels(self, posterior) -> None:
        """:func:`selbayes.evaluation._label_check.held_out_label_check` on the inner
        cross-validation's held-out predictions: a
        :class:`~selbayes.evaluation.SuspectLabelWarning` names every training case whose
        own label the model, fitted without it, finds implausible; the columns join
        ``loo_checks_``."""
        import pandas as pd

        from ..evaluation._label_check import held_out_label_check

        log_proba = self._held_out_log_proba()
        if log_proba is None or posterior is None or posterior.y_index is None \
                or np.isnan(log_proba).any():
            return        # a diagnostic never stops a fit that has otherwise succeeded
        y_index, names = posterior.y_index, posterior.case_names
        n = y_index.size
        # inner CV may have left out the single cases of their classes (inner_cv_cases): the
        # others are checked among the classes the inner folds split, under their own case
        # numbers, and the left-out cases' rows stay empty
        cases = self.k_choice_.extra.get("cases", np.arange(n))
        table = held_out_label_check(
            log_proba, np.unique(y_index[cases], return_inverse=True)[1],
            case_names=None if names is None else [names[i] for i in cases],
            case_numbers=cases,
            source=f"inner {self.k_choice_.n_splits}-fold cross-validation at k = "
                   f"{self.k_choice_.k}, genes selected inside the folds")
        if cases.size < n:
            table = table.set_index("case").reindex(pd.RangeIndex(n, name="case"))
            table = table.reset_index()
        pareto = getattr(self, "loo_checks_", None)     # the base class's PSIS-LOO table
        if pareto is not None and len(pareto) == len(table):
            extra = table[["held_out_proba", "label_p_value", "suspect_label"]]
            self.loo_checks_ = pd.concat([pareto.reset_index(drop=True),
                                          extra.reset_index(drop=True)], axis=1)
        else:
            self.loo_checks_ = table

    def _warn_grid_ends(self, k_cap: int) -> None:
        """:class:`~selbayes.evaluation.GridBoundaryWarning` when a value chosen by
        inner CV is at an end of its grid where the inner curve still falls
        (:func:`selbayes.estimators._k_choice.grid_end_messages`)."""
        from ..evaluation._diagnostics import GridBoundaryWarning, warn_from_user_line
        from ._k_choice import grid_end_messages

        for m in grid_end_messages(self.k_choice_, k_cap=k_cap,
                                   k_auto=self.k == "auto" and self.threshold is None,
                                   t_auto=self.temperature == "auto"):
            warn_from_user_line(m + " (the inner cross-validation curve is in k_choice_)",
                                GridBoundaryWarning)

    def _warn_far_from_training(self, X_sel, warned=()) -> None:
        """Warn about rows whose kept features are mostly far from every class's predictive
        distribution (:data:`FAR_FROM_TRAINING`): another scale or transform than in fit.
        Rows ``warned`` of already (outside the training range) are not named twice."""
        from .._validation import warn_at_user
        from ._base import FarFromTrainingWarning, _dense

        Z = _dense(X_sel)
        mean = self.pred_mean_.mean(axis=0)                        # (k, G)
        sd = 1.0 / np.sqrt(self.pred_precision_.mean(axis=0))
        nearest = np.full(Z.shape, np.inf)
        for g in range(mean.shape[1]):          # a loop over classes keeps memory at n x k
            nearest = np.minimum(nearest, np.abs(Z - mean[:, g]) / sd[:, g])
        distance = np.median(nearest, axis=1)
        far = np.setdiff1d(np.flatnonzero(distance > FAR_FROM_TRAINING), warned)
        if far.size:
            # the rows travel with the warning (.rows), so that a caller holding the sample
            # ids (selbayes predict) can name them
            warning = FarFromTrainingWarning(
                f"{far.size} of {Z.shape[0]} rows of X (positions {far[:5].tolist()}) lie far "
                f"from the training data on most of the {Z.shape[1]} kept features (median "
                f"distance to the nearest class mean {np.median(distance[far]):.3g} predictive "
                f"SDs; about 0.7 for samples like the training ones): their probabilities are "
                f"extrapolations. Check that X is on the scale of fit and transformed as there "
                f"(log2 taken once, or not at all, as in fit), and for a batch effect")
            warning.rows = far.tolist()
            warn_at_user(warning, FarFromTrainingWarning)
        self._warn_one_feature_far(nearest, np.union1d(far, warned))

    def _warn_one_feature_far(self, nearest, warned) -> None:
        """Warn about rows with one kept feature beyond :data:`FAR_ONE_FEATURE` predictive SDs
        from every class mean (``nearest``: (n_rows, k) distances to the nearest class mean),
        naming the feature; rows ``warned`` of already are not named twice."""
        from .._validation import warn_at_user
        from ._base import FarFromTrainingWarning

        worst = nearest.argmax(axis=1)
        distance = nearest[np.arange(nearest.shape[0]), worst]
        rows = np.setdiff1d(np.flatnonzero(distance > FAR_ONE_FEATURE), warned)
        if not rows.size:
            return
        names = self.selected_features_.astype(str)
        said = "; ".join(f"'{names[worst[i]]}' {distance[i]:.3g}" for i in rows[:5])
        warning = FarFromTrainingWarning(
            f"{rows.size} of {nearest.shape[0]} rows of X (positions {rows[:5].tolist()}) have "
            f"a kept feature far from every class's predictive distribution (predictive SDs "
            f"from the nearest class mean: {said}; samples like the training ones lie within "
            f"a few, and real outliers rarely beyond 25): a fill value (-999, 1e10) or a unit "
            f"error? The probabilities of such a row rest on that one value. Check it, or set "
            f"it to the training mean of its feature")
        warning.rows = rows.tolist()
        warn_at_user(warning, FarFromTrainingWarning)
