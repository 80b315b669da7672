"""Is the two-groups prior's share of null genes identified by the data?

The check tested by ``run.py`` beside this file (rule in README.md). Written as
``selbayes.evaluation._identification`` before the run (commit b39bb81); not adopted by the
rule, so it was moved here unchanged (it is not run by ``fit``).

Under ``effect_prior="two_groups"`` a share pi0 of the genes has no class difference and the
rest a normal slab of scale 1 / sqrt(tau_mu). When the real effects are tiny (noncentrality
well below 1 per gene), a null gene and a marker gene have nearly the same F distribution:
the omitted genes' factor and the kept genes' class means then fix only a combination of pi0
and tau_mu, and the corrected posterior is a flat ridge from "half the genes are small
markers" to "nearly every kept gene is a null gene in the tail of the F distribution". NUTS
may settle anywhere along it; at the second end the kept genes' effects are shrunk to nothing
and the probabilities are near coin flips, although sampling diagnostics and the predictive
check of the F statistics pass (the data are consistent with every point of the ridge).
Found in the plasmode suite (``reports/plasmode/two_groups_dense_weak``: pi0's 90% interval
0.75 to 0.998, mean marker probability 0.07, predicted log odds with sd 0.12 against the
truth's 8.75).

The sign is both at once: pi0's posterior spread over a wide interval, and the kept genes
mostly called null. Either alone is normal (a wide pi0 with clear markers: few genes, the
markers still recognised; most kept genes null with a sharp pi0: a sparse signal that the
data pin down). The thresholds (90% interval wider than :data:`PI0_WIDTH`, mean marker
probability below :data:`MARKER_PROBABILITY`) were fixed before they were tested on the
plasmode suite (``reports/plasmode/two_groups_ridge_check``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["WeakIdentificationWarning", "two_groups_identification", "identification_message",
           "PI0_WIDTH", "MARKER_PROBABILITY"]

#: The check fires when pi0's central 90% posterior interval is wider than this ...
PI0_WIDTH = 0.2

#: ... and the mean posterior marker probability of the kept genes is below this.
MARKER_PROBABILITY = 0.1


class WeakIdentificationWarning(UserWarning):
    """The data do not pin down a part of the model that the predictions depend on.

    Proposed for the Gaussian classifier's ``fit`` under ``effect_prior="two_groups"`` (not
    adopted: README.md beside this file), to be emitted when the
    share of null genes pi0 is spread over a wide interval and the kept genes are mostly
    called null: the posterior lies on a ridge along which the predictions range from
    sensible to coin flips (:func:`two_groups_identification`).

    Examples
    --------
    >>> issubclass(WeakIdentificationWarning, UserWarning)
    True
    """


def two_groups_identification(pi0, marker_probabilities, *, width: float = PI0_WIDTH,
                              marker_probability: float = MARKER_PROBABILITY) -> dict:
    """Summaries of a two-groups fit that show a weakly identified share of null genes.

    Parameters
    ----------
    pi0 : array-like
        Posterior draws of the share of null genes (any shape; flattened), each in [0, 1].
    marker_probabilities : array-like of shape (k,)
        Each kept gene's posterior probability of being a marker (the fit's
        ``marker_probabilities_``), each in [0, 1].
    width : float
        The check fires when pi0's central 90% interval is wider than this ...
    marker_probability : float
        ... and the mean of ``marker_probabilities`` is below this.

    Returns
    -------
    dict
        ``pi0_q05``, ``pi0_median``, ``pi0_q95``, ``pi0_width`` (q95 - q05),
        ``mean_marker_probability`` (floats) and ``weak`` (bool: both conditions hold).

    Raises
    ------
    ValueError
        If either input is empty, not finite or outside [0, 1].

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ridge = two_groups_identification(rng.uniform(0.75, 1.0, 4000), np.full(50, 0.07))
    >>> ridge["weak"], round(ridge["pi0_width"], 2)
    (True, 0.22)
    >>> two_groups_identification(rng.beta(400, 2, 4000), np.full(5, 0.99))["weak"]
    False
    """
    pi0 = np.asarray(pi0, dtype=float).reshape(-1)
    probs = np.asarray(marker_probabilities, dtype=float).reshape(-1)
    for name, v in (("pi0", pi0), ("marker_probabilities", probs)):
        if v.size == 0:
            raise ValueError(f"{name} is empty")
        if not np.all(np.isfinite(v)) or v.min() < 0 or v.max() > 1:
            raise ValueError(f"{name} must hold finite probabilities in [0, 1]; it has values "
                             f"from {np.nanmin(v):g} to {np.nanmax(v):g}"
                             + (" and non-finite ones" if not np.all(np.isfinite(v)) else ""))
    q05, q50, q95 = np.quantile(pi0, [0.05, 0.5, 0.95])
    mean_prob = float(probs.mean())
    return {"pi0_q05": float(q05), "pi0_median": float(q50), "pi0_q95": float(q95),
            "pi0_width": float(q95 - q05), "mean_marker_probability": mean_prob,
            "weak": bool(q95 - q05 > width and mean_prob < marker_probability)}


def identification_message(result: dict) -> str | None:
    """The warning text for a :func:`two_groups_identification` result, or None.

    Parameters
    ----------
    result : dict
        Output of :func:`two_groups_identification`.

    Returns
    -------
    str or None
        None unless ``result["weak"]``.

    Examples
    --------
    >>> identification_message({"weak": False}) is None
    True
    """
    if not result["weak"]:
        return None
    return (f"the two-groups prior's share of null genes is not identified by these data: "
            f"pi0's 90% interval is {result['pi0_q05']:.2f} to {result['pi0_q95']:.2f} and the "
            f"kept genes' mean marker probability is {result['mean_marker_probability']:.2f}. "
            "This happens when the effects are tiny and spread over many genes; the "
            "probabilities may then be near coin flips. Use effect_prior='t_auto' (the "
            "default) for prediction; marker_probabilities_ are not informative here")
