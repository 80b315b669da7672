"""The alpha- and theta-free kernel of the mixture's selection factor, compiled (numba).

One implementation for the two compiled users: the numba implementation of
:class:`selbayes.adjustment.op.MixtureAdjustment` and the label sweep of
:mod:`selbayes.models._mixture_fast`. The NumPy form is
:func:`selbayes.adjustment.mixture._kernel_from_prefix`.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["lattice_kernel", "log_factorials"]


@numba.njit(cache=True, error_model="numpy")
def log_factorials(n):
    """lf[i] = log(i!), i = 0..n."""
    lf = np.empty(n + 1)
    for i in range(n + 1):
        lf[i] = math.lgamma(i + 1.0)
    return lf


@numba.njit(cache=True, error_model="numpy")
def lattice_kernel(n00, n01, n10, n11, t, lf):
    """K[m0, m1] = P(lattice point in H+ | m0 ones in component 0, m1 in component 1).

    The compiled form of :func:`selbayes.adjustment.mixture._kernel_from_prefix`: a = ones
    among the y = 0 cases of component 0 (hypergeometric given m0), c = likewise in component
    1, H+ = {a + c <= t[m0 + m1]}; ``lf`` is the table of log factorials
    (:func:`log_factorials`).
    """
    N0 = n00 + n01
    N1 = n10 + n11
    hyp0 = np.zeros((N0 + 1, n00 + 1))
    for m0 in range(N0 + 1):
        for a in range(max(0, m0 - n01), min(n00, m0) + 1):
            hyp0[m0, a] = math.exp(lf[n00] - lf[a] - lf[n00 - a] + lf[n01] - lf[m0 - a]
                                   - lf[n01 - m0 + a] - lf[N0] + lf[m0] + lf[N0 - m0])
    F1 = np.zeros((N1 + 1, n10 + 2))
    for m1 in range(N1 + 1):
        acc = 0.0
        for c in range(n10 + 1):
            if m1 - c >= 0 and m1 - c <= n11:
                acc += math.exp(lf[n10] - lf[c] - lf[n10 - c] + lf[n11] - lf[m1 - c]
                                - lf[n11 - m1 + c] - lf[N1] + lf[m1] + lf[N1 - m1])
            F1[m1, c + 1] = acc
        F1[m1, n10 + 1] = 1.0
    K = np.empty((N0 + 1, N1 + 1))
    for m0 in range(N0 + 1):
        for m1 in range(N1 + 1):
            tt = t[m0 + m1]
            s = 0.0
            for a in range(n00 + 1):
                j = tt - a + 1
                if j < 0:
                    j = 0
                elif j > n10 + 1:
                    j = n10 + 1
                s += hyp0[m0, a] * F1[m1, j]
            K[m0, m1] = s
    return K
