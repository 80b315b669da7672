"""C code of the selection-adjustment Ops' ``"table"`` evaluation (pytensor's CVM / C backends).

PyMC's default backend compiles an Op with C code into the model's C module; the other
evaluation methods have no C code and run their NumPy ``perform``
(:mod:`selbayes.adjustment.backends._numpy_kernels`). The loop below is the same arithmetic as
the NumPy and numba kernels: Horner's rule on the quintic piece of x, the tails of ``edges``
outside the table.
"""

from __future__ import annotations

__all__ = ["C_CODE_VERSION", "table_c_code"]

#: Bump when the C text changes (pytensor's ``c_code_cache_version``).
C_CODE_VERSION = (1,)


def table_c_code(x, coef, edges, z, fail, spacing, derivative):
    """The C block that writes l(x) (or dl/dx) of a quintic table into the output array.

    Parameters
    ----------
    x, coef, edges : str
        C names of the input arrays: x (float64, any shape), coef (float64, (6, m)), edges
        (float64, (8,), ``EDGE_KEYS`` order).
    z : str
        C name of the output array (allocated here with the shape of x).
    fail : str
        pytensor's failure statement (``sub["fail"]``).
    spacing : float
        Knot spacing of the table, in units of x (written into the code as a constant).
    derivative : bool
        Write dl/dx instead of l.

    Returns
    -------
    str
        The C block (its own scope; releases what it acquires).

    Examples
    --------
    >>> code = table_c_code("x", "coef", "edges", "z", "FAIL;", 0.05, False)
    >>> "const double h = 0.05;" in code and "FAIL;" in code
    True
    """
    deriv = 1 if derivative else 0
    h = repr(float(spacing))
    return f"""
        {{
        PyArrayObject* xc = PyArray_GETCONTIGUOUS({x});
        PyArrayObject* cc = PyArray_GETCONTIGUOUS({coef});
        PyArrayObject* ec = PyArray_GETCONTIGUOUS({edges});
        if (PyArray_DIMS(cc)[0] != 6 || PyArray_SIZE(ec) != 8) {{
            Py_XDECREF(xc); Py_XDECREF(cc); Py_XDECREF(ec);
            PyErr_SetString(PyExc_ValueError,
                            "selection adjustment: coef must be (6, m) and edges (8,)");
            {fail}
        }}
        Py_XDECREF({z});
        {z} = (PyArrayObject*)PyArray_NewLikeArray(xc, NPY_CORDER, NULL, 0);
        if (!{z}) {{ Py_XDECREF(xc); Py_XDECREF(cc); Py_XDECREF(ec); {fail} }}
        const double* xp = (const double*)PyArray_DATA(xc);
        const double* cp = (const double*)PyArray_DATA(cc);
        const double* e = (const double*)PyArray_DATA(ec);
        double* zp = (double*)PyArray_DATA({z});
        const npy_intp m = PyArray_DIMS(cc)[1];
        const npy_intp n = PyArray_SIZE(xc);
        const double h = {h};
        for (npy_intp i = 0; i < n; ++i) {{
            const double xi = xp[i];
            double v;
            if (xi < e[0] || xi > e[1]) {{
                const int lo = xi < e[0];
                const double d = lo ? xi - e[0] : xi - e[1];
                const double l0 = lo ? e[2] : e[5], dl = lo ? e[3] : e[6], r = lo ? e[4] : e[7];
                if ({deriv}) v = r == 0.0 ? dl : dl * exp(r * d);
                else v = r == 0.0 ? l0 + dl * d : l0 + dl * expm1(r * d) / r;
            }} else {{
                const double pos = (xi - e[0]) / h;
                npy_intp k = (npy_intp)floor(pos);
                if (k < 0) k = 0;
                if (k > m - 1) k = m - 1;
                const double t = pos - (double)k;
                if ({deriv}) {{
                    v = 5.0 * cp[5 * m + k];
                    for (int j = 4; j > 0; --j) v = v * t + j * cp[j * m + k];
                    v /= h;
                }} else {{
                    v = cp[5 * m + k];
                    for (int j = 4; j >= 0; --j) v = v * t + cp[j * m + k];
                }}
            }}
            zp[i] = v;
        }}
        Py_DECREF(xc); Py_DECREF(cc); Py_DECREF(ec);
        }}
        """
