"""JAX implementations of the selection-adjustment Ops, registered with pytensor's dispatcher.

The table, Monte Carlo and convolution evaluations run the NumPy kernels of
:mod:`selbayes.adjustment.backends._numpy_kernels` with ``xp=jax.numpy`` (one arithmetic for
both backends). The lattice's kernel has a shape set by the (traced) counts, so it is evaluated
on the host through ``jax.pure_callback``. Importing this module registers the implementation
when JAX is installed and does nothing otherwise (the statistic modules import it).
"""

from __future__ import annotations

import numpy as np

from .._base import SelectionAdjustment
from ._numpy_kernels import KERNELS

__all__ = ["jax_selection_adjustment"]

try:
    import jax
    import jax.numpy as jnp
    from pytensor.link.jax.dispatch import jax_funcify
except ImportError:  # JAX not installed: pytensor's JAX mode is unavailable anyway
    jax = jnp = jax_funcify = None


def jax_selection_adjustment(op, node=None, **kwargs):
    """The JAX function of one selection-adjustment Op (pytensor's ``jax_funcify``).

    Parameters
    ----------
    op : SelectionAdjustment
        Any subclass; its ``evaluation``, ``spacing`` and ``derivative`` fix the function.
    node : pytensor Apply, optional
        Unused.
    **kwargs
        Ignored (pytensor's dispatcher arguments).

    Returns
    -------
    callable
        ``f(x, *inputs) -> jax array`` with the shape of x, as the Op's ``perform``.

    Raises
    ------
    ImportError
        If JAX is not installed.

    Examples
    --------
    >>> from selbayes.adjustment import fstat_parameters
    >>> op, params = fstat_parameters([10, 10], 4.0, 4.0)
    >>> f = jax_selection_adjustment(op)                   # doctest: +SKIP
    >>> float(f(0.0, *params.values())) < 0                # doctest: +SKIP
    True
    """
    if jax is None:
        raise ImportError("the JAX implementation needs jax (pip install 'selbayes[jax]')")
    derivative, h, evaluation = op.derivative, op.spacing, op.evaluation
    if evaluation != "lattice":
        fn = KERNELS[evaluation]

        def selection_adjustment_jax(x, *params):
            return fn(x, *params, h, derivative, xp=jnp)

        return selection_adjustment_jax

    lattice = KERNELS["lattice"]

    def selection_adjustment_lattice_jax(x, counts, theta, prefix):
        def host(xv, cv, tv, pv):
            return np.asarray(lattice(np.asarray(xv), np.asarray(cv), np.asarray(tv),
                                      np.asarray(pv), 0.0, derivative),
                              dtype=np.float64)

        return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, jnp.float64),
                                 x, counts, theta, prefix)

    return selection_adjustment_lattice_jax


if jax_funcify is not None:
    jax_funcify.register(SelectionAdjustment)(jax_selection_adjustment)
