"""Inner cross-validation of the selection correction itself (``correct_selection="auto"``).

The corrected and the uncorrected model are scored by
:func:`~selbayes.estimators.choose_k` on the same inner folds with the same seeds, each at its
own best (k, T), and the lower inner cross-validated log score is chosen: a criterion that
cannot see the test folds. Why a choice at all: the correction conditions on the omitted
genes having F <= gamma as if they were independent. On real expression data whose signal is
spread over a module of correlated genes, the top F statistics can be no larger than the
largest of thousands of null F statistics; the corrected posterior then reads the kept genes
as noise and returns near coin flips, while the uncorrected fit, which ignores the selection,
is calibrated (``reports/plasmode/correlated_underconfidence``). Where the model holds, the
corrected model scores better and is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

from ._inner_choice import InnerChoice, paired_rows

__all__ = ["CorrectionChoice", "choose_correction"]

#: The candidates, in this order (ties go to the first: the corrected model).
CORRECTION_LABELS = ("corrected", "uncorrected")


@dataclass(frozen=True, kw_only=True)
class CorrectionChoice(InnerChoice):
    """Outcome of :func:`choose_correction`: the corrected and the uncorrected model's inner
    cross-validated log scores, each at its own best k and T.

    Attributes
    ----------
    labels : list of str
        "corrected", "uncorrected".
    k, temperature, score, se, diff, diff_se, chosen, k_choices
        As in :class:`~selbayes.estimators._inner_choice.InnerChoice`: each model's own best
        k and T, its inner cross-validated -log p(true class) (nats) and SE, the paired
        difference to the chosen model and its SE, the chosen index, the inner curves.

    Examples
    --------
    >>> import numpy as np
    >>> ch = CorrectionChoice(labels=["corrected", "uncorrected"],
    ...                       k=np.array([20, 500]), temperature=np.array([2.0, 40.0]),
    ...                       score=np.array([0.62, 0.35]), se=np.array([0.04, 0.05]),
    ...                       diff=np.array([0.27, 0.0]), diff_se=np.array([0.05, 0.0]),
    ...                       chosen=1)
    >>> ch.label, ch.corrected
    ('uncorrected', False)
    """

    _column = "model"
    _what = "models (with and without the selection correction)"
    _prefix = "correction_choice"
    _dim = "correction_candidate"

    @property
    def corrected(self) -> bool:
        """Whether the chosen model has the selection correction."""
        return self.label == "corrected"


def choose_correction(X, y, *, priors, random_state=None, **choose_k_settings
                      ) -> CorrectionChoice:
    """Choose between the corrected and the uncorrected model by inner cross-validation.

    Parameters
    ----------
    X : array-like of shape (n, p)
    y : array-like of shape (n,)
    priors : GaussianPriors or dict or None
        The priors of both candidates.
    random_state : int or numpy.random.Generator, optional
        An integer is used as it is, so the corrected candidate's inner cross-validation is
        the one a fit with ``correct_selection=True`` and this seed runs; a generator (or
        None) gives one integer first. Both candidates use the same seed (paired scores).
    **choose_k_settings
        Every other argument of :func:`~selbayes.estimators.choose_k` except ``corrected``.

    Returns
    -------
    CorrectionChoice

    Raises
    ------
    TypeError
        If ``corrected`` is passed (the candidates set it).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20); X = rng.normal(size=(40, 300)); X[:, :3] += 2.0 * y[:, None]
    >>> ch = choose_correction(X, y, priors=None, grid=[3, 30], random_state=0)
    >>> ch.labels, ch.table().shape
    (['corrected', 'uncorrected'], (2, 7))
    """
    from .._validation import check_random_state
    from ._inner_cv import choose_k

    if "corrected" in choose_k_settings:
        raise TypeError("choose_correction scores both models itself; do not pass corrected=")
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        seed = int(random_state)
    else:
        seed = int(check_random_state(random_state).integers(2 ** 31 - 1))
    fits = [choose_k(X, y, priors=priors, random_state=seed, corrected=label == "corrected",
                     **choose_k_settings) for label in CORRECTION_LABELS]
    return CorrectionChoice(labels=list(CORRECTION_LABELS), **paired_rows(fits))
