"""The selection-adjustment Ops' implementations, one module per backend (as pytensor's
``link/<backend>/dispatch``).

* :mod:`.numpy_kernels`: the NumPy evaluations behind ``perform`` (written against an array
  namespace, so the JAX implementation reuses them);
* :mod:`.c`: the C code of the ``"table"`` evaluation (PyMC's default CVM backend);
* :mod:`.numba`: compiled kernels registered with pytensor's numba dispatcher (NUMBA mode and
  nutpie never fall back to object mode);
* :mod:`.jax`: the registration with pytensor's JAX dispatcher (when JAX is installed).

Import order inside :mod:`selbayes.adjustment`: ``numpy_kernels`` and ``c`` know nothing of the
Op; :mod:`selbayes.adjustment.base` uses them; ``numba`` and ``jax`` register implementations for
the base class; the statistic modules (``fstat_op``, ``corr_op``, ``mixture_op``) import the
base and these two registrations. This package's ``__init__`` imports nothing, so that the base
can import ``numpy_kernels`` without loading the registrations (which import the base).
"""
