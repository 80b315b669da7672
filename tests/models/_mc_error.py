"""Delta-method Monte Carlo error of the predictive log odds that average densities over
posterior draws (the references of the plug-in's Monte Carlo tests)."""

import numpy as np
from scipy.stats import norm


def log_odds_mc_sd(x_test, mean, precision):
    """Monte Carlo standard deviation of each test case's predicted log odds (class 1 - class
    0) under the factorised (per-feature averages over draws) and the joint (average over
    draws of the product over features) estimators, by the delta method from the same draws.

    Parameters
    ----------
    x_test : ndarray of shape (m, k)
    mean, precision : ndarray of shape (S, k, G)
        Per-draw predictive means and precisions (``selbayes.models.predictive_moments``);
        given fixed hyperparameters the features' draws are independent of each other, so the
        factorised variance is the sum over features of each feature's.

    Returns
    -------
    fact, joint : ndarray of shape (m,)
    """
    S = mean.shape[0]
    logf = norm.logpdf(x_test[None, :, :, None], mean[:, None],
                       1 / np.sqrt(precision[:, None]))                  # (S, m, k, G)
    # factorised: sum over features of the error of log(mean over draws), per class
    r = np.exp(logf - logf.max(0))
    r = r / r.mean(0)                                                    # f / its mean
    fact = np.sqrt(((r[..., 1] - r[..., 0]).var(0) / S).sum(-1))
    # joint: the error of log(mean over draws of the product over features)
    lj = logf.sum(2)                                                     # (S, m, G)
    q = np.exp(lj - lj.max(0))
    q = q / q.mean(0)
    joint = np.sqrt((q[..., 1] - q[..., 0]).var(0) / S)
    return fact, joint
