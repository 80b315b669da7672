"""All of a compiled model's data in one ``pm.Data`` vector.

nutpie calls a compiled model through a numba ``cfunc`` that unpacks every shared variable
(``pm.Data``) of the model from its user-data record, once in the logp wrapper and once in the
expand wrapper; numba types and compiles that unpacking code anew for every variable and
every model. The default Gaussian model has eight arrays of data; packed, each new shape in a
process that has compiled another compiles in 0.64 of the time (7.6 to 9.3 s against 11.2
to 12.3 s on the 2-core development machine; naive Bayes, five arrays: 0.85;
``benchmarks/results/first_fit.md``, ``python benchmarks/bench_first_fit.py
--compile-only``). The models' compiled form
(:func:`selbayes.models._nutpie.sample_compiled`) therefore holds every array of its data
in one float64 vector named :data:`PACKED_NAME`, and reads each named array as a static slice
of it, reshaped (and cast back where its dtype is not float64). Slices of constant bounds
have static shapes, so pytensor needs no runtime shape checks for them.

The models built for reading (``build_model``) keep one named ``pm.Data`` per array.

The layout is the sorted names of the data dict that do not start with an underscore (the
model-layer contract of :mod:`selbayes.models._nutpie`), each array raveled in C order.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PACKED_NAME", "packed_layout", "pack", "packed_views", "data_reader"]

#: Name of the one ``pm.Data`` of a packed model.
PACKED_NAME = "packed_data"

# float64 holds integers exactly up to 2**53
_EXACT_INT = 2 ** 53


def packed_layout(data: dict) -> tuple:
    """The arrays a packed model reads, in packing order.

    Parameters
    ----------
    data : dict
        A model's data (``model_data``): names without a leading underscore are arrays.

    Returns
    -------
    tuple of (str, tuple of int, numpy.dtype)
        Name, shape and dtype of each array, sorted by name.

    Examples
    --------
    >>> import numpy as np
    >>> packed_layout({"b": np.zeros((2, 3)), "a": np.float64(1.0), "_op": None})
    (('a', (), dtype('float64')), ('b', (2, 3), dtype('float64')))
    """
    return tuple((name, np.shape(data[name]), np.asarray(data[name]).dtype)
                 for name in sorted(data) if not name.startswith("_"))


def pack(data: dict) -> np.ndarray:
    """The data's arrays as one float64 vector, in :func:`packed_layout` order.

    Parameters
    ----------
    data : dict
        A model's data.

    Returns
    -------
    numpy.ndarray of shape (total size,), float64

    Raises
    ------
    ValueError
        If an array is neither numeric nor boolean, or holds integers that float64 cannot
        represent exactly (|value| > 2**53).

    Examples
    --------
    >>> import numpy as np
    >>> pack({"b": np.array([[1, 2], [3, 4]]), "a": np.float64(0.5)})
    array([0.5, 1. , 2. , 3. , 4. ])
    """
    parts = []
    for name, _, dtype in packed_layout(data):
        value = np.asarray(data[name])
        if dtype.kind not in "biuf":
            raise ValueError(f"model data {name!r} has dtype {dtype}; a packed model holds "
                             "numbers only")
        if dtype.kind in "iu" and value.size and np.abs(value).max() > _EXACT_INT:
            raise ValueError(f"model data {name!r} holds integers beyond 2**53, which "
                             "float64 cannot hold exactly")
        parts.append(value.astype(np.float64).ravel())
    return np.concatenate(parts) if parts else np.zeros(0)


def packed_views(data: dict) -> dict:
    """Create the one ``pm.Data`` of a packed model and return each array as a view of it.

    Must be called inside the model's context.

    Parameters
    ----------
    data : dict
        A model's data; its values become the ``pm.Data``'s first value.

    Returns
    -------
    dict
        Name -> pytensor variable of the array's shape and dtype (named as the array), a
        static slice of the ``pm.Data`` :data:`PACKED_NAME`.

    Examples
    --------
    >>> import numpy as np, pymc as pm
    >>> data = {"b": np.array([[1.0, 2.0], [3.0, 4.0]]), "a": np.float64(0.5)}
    >>> with pm.Model() as model:
    ...     views = packed_views(data)
    >>> [v.name for v in model.data_vars], views["b"].type.shape, views["b"].eval()[1, 0]
    (['packed_data'], (2, 2), np.float64(3.0))
    """
    import pymc as pm
    import pytensor.tensor as pt

    vector = pack(data)
    packed = pm.Data(PACKED_NAME, vector, shape=vector.shape)
    views, start = {}, 0
    for name, shape, dtype in packed_layout(data):
        size = int(np.prod(shape, dtype=np.int64))
        view = packed[start] if shape == () else packed[start:start + size].reshape(shape)
        if dtype != np.float64:
            view = pt.cast(view, "bool" if dtype.kind == "b" else str(dtype))
        view.name = name
        views[name] = view
        start += size
    return views


def data_reader(data: dict, *, packed: bool):
    """How a model builder reads its data: ``read(name, **pm_data_kwargs)`` -> variable.

    Must be called inside the model's context. Unpacked (the model built for reading), each
    array becomes a ``pm.Data`` of its name with the keywords given (``dims``); packed (the
    compiled form), all arrays are views of one ``pm.Data`` (:func:`packed_views`, created
    here) and the keywords are not used.

    Parameters
    ----------
    data : dict
        A model's data.
    packed : bool
        Whether the model is the compiled form.

    Returns
    -------
    callable

    Examples
    --------
    >>> import numpy as np, pymc as pm
    >>> data = {"v": np.arange(3.0), "n": np.float64(2.0)}
    >>> with pm.Model() as model:
    ...     read = data_reader(data, packed=True)
    ...     v = read("v", dims="feature")
    >>> [d.name for d in model.data_vars], v.name
    (['packed_data'], 'v')
    """
    import pymc as pm

    if not packed:
        return lambda name, **kw: pm.Data(name, data[name], **kw)
    views = packed_views(data)
    return lambda name, **kw: views[name]
