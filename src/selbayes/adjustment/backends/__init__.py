"""The selection-adjustment Ops' implementations, one private module per backend (as pytensor's
``link/<backend>/dispatch``).

* :mod:`._numpy_kernels`: the NumPy evaluations behind ``perform`` (written against an array
  namespace, so the JAX implementation reuses them);
* :mod:`._c`: the C code of the ``"table"`` evaluation (PyMC's default CVM backend);
* :mod:`._numba`: compiled kernels registered with pytensor's numba dispatcher (NUMBA mode and
  nutpie never fall back to object mode);
* :mod:`._jax`: the registration with pytensor's JAX dispatcher (when JAX is installed).

Import order inside :mod:`selbayes.adjustment`: ``_numpy_kernels`` and ``_c`` know nothing of the
Op; :mod:`selbayes.adjustment._base` uses them; ``_numba`` and ``_jax`` register implementations
for the base class; the statistic modules (``_fstat_op``, ``_corr_op``, ``_mixture_op``) import
the base and these two registrations. This package's ``__init__`` imports nothing, so that the
base can import ``_numpy_kernels`` without loading the registrations (which import the base).
Nothing here is public API: the Ops are :mod:`selbayes.adjustment`'s.
"""

from ..._compat import package_attributes as _package_attributes

__all__: list[str] = []

# selbayes.adjustment.backends.numba, ...: the former public modules, for one release (warns)
__getattr__, __dir__ = _package_attributes(__name__)
