"""What a fitted estimator sets against what its class docstring's Attributes section lists."""

from __future__ import annotations

import inspect
import re


def documented_attributes(cls) -> set[str]:
    """The names listed in the numpydoc Attributes section of ``cls`` (``a, b : type`` lines,
    each name counted)."""
    doc = inspect.getdoc(cls) or ""
    m = re.search(r"^Attributes\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, re.S | re.M)
    assert m, f"{cls.__name__} has no Attributes section"
    names = set()
    for line in m.group(1).splitlines():
        head = re.match(r"^([A-Za-z_][\w, ]*?)\s*:(\s|$)", line)    # unindented: an entry
        if head:
            names.update(n.strip() for n in head.group(1).split(","))
    return names


def undocumented_fitted_attributes(estimator) -> list[str]:
    """The public fitted attributes (scikit-learn's trailing underscore) of ``estimator`` that
    its class docstring does not list, in sorted order."""
    fitted = {a for a in vars(estimator) if a.endswith("_") and not a.startswith("_")}
    return sorted(fitted - documented_attributes(type(estimator)))
