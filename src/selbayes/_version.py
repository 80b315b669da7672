"""The package's version, and the versions of what shapes its results (for reports)."""

__version__ = "0.1.0"

#: The packages whose versions a report records.
_PACKAGES = ("selbayes", "numpy", "scipy", "pandas", "pymc", "pytensor", "nutpie", "arviz",
             "scikit-learn", "joblib", "matplotlib")


def versions() -> dict:
    """Versions of the packages that shape the results, and the machine."""
    import os
    import platform
    from importlib import metadata

    out = {}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    if out.get("selbayes") is None:
        out["selbayes"] = __version__
    out["python"] = platform.python_version()
    out["platform"] = platform.platform()
    out["cpu_count"] = os.cpu_count()
    return out
