"""JSON records shared by the library's resumable runs (cross-validation) and the reproduction
layer (selbayes.experiments): numpy values to strict JSON, and the difference of two settings
dicts, used to refuse resuming a run whose stored settings differ."""

from __future__ import annotations

import json
import math

import numpy as np

__all__ = ["jsonable", "canonical", "dict_diff"]


def jsonable(obj):
    """Convert numpy scalars/arrays to Python objects and non-finite floats to None."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        v = float(obj)
        return v if math.isfinite(v) else None
    return obj


def canonical(obj) -> str:
    """Key-order-independent JSON text of ``obj`` (what settings hashes are taken of)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def dict_diff(old: dict, new: dict, prefix: str = "") -> list[str]:
    """Dotted keys whose values differ between two nested dicts, as 'key: old -> new'."""
    out = []
    for key in sorted(set(old) | set(new), key=str):
        a, b = old.get(key, "<absent>"), new.get(key, "<absent>")
        name = f"{prefix}{key}"
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(dict_diff(a, b, name + "."))
        elif canonical(a) != canonical(b):
            out.append(f"{name}: {a!r} -> {b!r}")
    return out
