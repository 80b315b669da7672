"""Reading and validating reproduction specs (TOML files under ``models/experiments/``).

A spec is data: sections of typed keys (documented in ``models/README.md``). This module knows
the sections shared by every reproduction; each experiment type (see :mod:`selbayes.experiments`)
adds its own keys through a schema of :class:`Field` objects. Validation fills defaults and
raises ``ValueError`` naming the file, the section and the key at fault.

``--quick`` deep-merges the spec's ``[quick]`` table (same sections and keys, any subset) over
the full design before validation.
"""

from __future__ import annotations

import copy
import hashlib
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._records import canonical as _canonical
from .._records import dict_diff

__all__ = ["Field", "Spec", "SpecError", "COMMON_SCHEMA", "merge_schema", "read_toml", "validate",
           "settings_hash", "dict_diff"]

_MISSING = object()


class SpecError(ValueError):
    """A reproduction spec is malformed; the message names the key."""


@dataclass(frozen=True)
class Field:
    """One key of a spec section.

    Parameters
    ----------
    kind : {"int", "float", "str", "bool", "list[int]", "list[float]", "list[str]", "table",
            "int|str"}
        Type of the value ("float" accepts integers; "table" is a free-form sub-table).
    doc : str
        Meaning, shown in error messages and models/README.md.
    default : optional
        Value used when the key is absent; required when there is no default.
    minimum : float, optional
        Inclusive lower bound for numbers (each element for lists).
    positive : bool
        Strictly positive numbers.
    choices : tuple, optional
        Allowed values (each element for lists).
    """

    kind: str
    doc: str = ""
    default: Any = _MISSING
    minimum: float | None = None
    positive: bool = False
    choices: tuple | None = None

    @property
    def required(self) -> bool:
        return self.default is _MISSING

    def check(self, value, where: str):
        if self.kind.startswith("list["):
            if not isinstance(value, list):
                raise SpecError(f"{where} must be a list of {self.kind[5:-1]}; got {value!r}")
            elem = Field(self.kind[5:-1], minimum=self.minimum, positive=self.positive,
                         choices=self.choices)
            return [elem.check(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if self.kind == "table":
            if not isinstance(value, dict):
                raise SpecError(f"{where} must be a table; got {value!r}")
            return value
        if self.kind == "int|str":
            ok = isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
        elif self.kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif self.kind == "float":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if ok:
                value = float(value)
                ok = math.isfinite(value)
        elif self.kind == "str":
            ok = isinstance(value, str)
        elif self.kind == "bool":
            ok = isinstance(value, bool)
        else:  # pragma: no cover - schema error
            raise TypeError(f"unknown field kind {self.kind!r}")
        if not ok:
            raise SpecError(f"{where} must be {_article(self.kind)}; got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise SpecError(f"{where} must be one of {list(self.choices)}; got {value!r}")
        if isinstance(value, int | float) and not isinstance(value, bool):
            if self.minimum is not None and value < self.minimum:
                raise SpecError(f"{where} must be >= {self.minimum:g}; got {value!r}")
            if self.positive and not value > 0:
                raise SpecError(f"{where} must be > 0; got {value!r}")
        return value


def _article(kind: str) -> str:
    return {"int": "an integer", "float": "a finite number", "str": "a string",
            "bool": "true or false", "int|str": "an integer or a string"}.get(kind, kind)


# Sections shared by every reproduction. Experiment types add keys (e.g. [data] simulator
# settings, [priors]) and may add sections of their own.
COMMON_SCHEMA: dict[str, dict[str, Field]] = {
    "experiment": {
        "name": Field("str", "identifier; default output folder reports/<name>"),
        "model": Field("str", "experiment type: which runner executes the spec"),
        "title": Field("str", "one-line title for the report", default=""),
        "paper": Field("str", "the paper reproduced (seed file)", default=""),
        "spec": Field("str", "the specification file the settings come from", default=""),
        "description": Field("str", "free text for the report", default=""),
    },
    "data": {
        "source": Field("str", "where the cases come from", choices=("simulate",)),
        "n_train": Field("int", "training cases", minimum=2),
        "n_test": Field("int", "test cases", minimum=1),
    },
    "sampler": {
        "name": Field("str", "NUTS implementation (estimator's `sampler`)", default="auto",
                      choices=("auto", "nutpie", "pymc", "numpyro", "blackjax")),
        "draws": Field("int", "posterior draws per chain", default=1000, minimum=1),
        "tune": Field("int", "tuning (warm-up) iterations per chain", default=1000, minimum=0),
        "chains": Field("int", "independent chains", default=4, minimum=1),
        "target_accept": Field("float", "NUTS target acceptance", default=0.9, positive=True),
        "max_predict_draws": Field("int", "posterior draws used for prediction", default=1000,
                                   minimum=1),
    },
    "seeds": {
        "data": Field("int", "seed of the simulated data set", minimum=0),
        "split": Field("int", "seed of the random training/test split", minimum=0),
        "fit": Field("int", "root seed of the MCMC runs (one child per fit)", minimum=0),
        "loss": Field("int", "seed of the random loss matrices", default=0, minimum=0),
        "baselines": Field("int", "seed of the scikit-learn baselines", default=0, minimum=0),
    },
    "evaluation": {
        "n_bins": Field("int", "reliability-table bins on [0, 1]", default=10, minimum=2),
        "n_loss_matrices": Field("int", "random loss matrices averaged over", default=100,
                                 minimum=1),
        "loss_log_sd": Field("float", "sd of log loss: off-diagonal loss ~ exp(N(0, sd^2))",
                             default=2.0, minimum=0.0),
    },
    "reference": {},  # free-form reported numbers; checked by the experiment type
}
_NO_QUICK = ("experiment", "reference", "quick")


@dataclass
class Spec:
    """A validated spec: ``sections[section][key]`` with defaults filled in.

    Attributes
    ----------
    path : pathlib.Path
        The TOML file.
    quick : bool
        Whether the ``[quick]`` overrides were applied.
    sections : dict
        The validated settings (``reference`` is kept as read).
    quick_overrides : dict
        The ``[quick]`` table as written (for the report).
    """

    path: Path
    quick: bool
    sections: dict
    quick_overrides: dict = field(default_factory=dict)

    def __getitem__(self, section: str) -> dict:
        return self.sections[section]

    @property
    def name(self) -> str:
        return self.sections["experiment"]["name"]

    @property
    def model(self) -> str:
        return self.sections["experiment"]["model"]


def read_toml(path) -> dict:
    """Parse a TOML file, turning syntax errors into a ValueError that names the file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"spec file {str(path)!r} does not exist")
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path}: not valid TOML: {exc}") from exc


def merge_schema(*schemas: dict[str, dict[str, Field]]) -> dict[str, dict[str, Field]]:
    """Union of section schemas (later ones add keys or replace them)."""
    out: dict[str, dict[str, Field]] = {}
    for schema in schemas:
        for section, keys in schema.items():
            out.setdefault(section, {}).update(keys)
    return out


def _deep_merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _check_section(raw: dict, section: str, keys: dict[str, Field], where: str,
                   partial: bool = False) -> dict:
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: [{section}] must be a table; got {raw!r}")
    unknown = sorted(set(raw) - set(keys))
    if unknown:
        raise SpecError(f"{where}: unknown key(s) {unknown} in [{section}]; known keys: "
                        f"{sorted(keys)}")
    out = {}
    for key, fld in keys.items():
        if key in raw:
            out[key] = fld.check(raw[key], f"{where}: [{section}] {key}")
        elif not partial:
            if fld.required:
                raise SpecError(f"{where}: [{section}] is missing the required key {key!r} "
                                f"({fld.doc})")
            out[key] = copy.deepcopy(fld.default)
    return out


def validate(raw: dict, schema: dict[str, dict[str, Field]], path, quick: bool) -> Spec:
    """Check ``raw`` (a parsed TOML document) against ``schema`` and return a :class:`Spec`.

    Sections in ``schema`` with no keys (like ``reference``) are free-form tables. With
    ``quick`` the ``[quick]`` table is merged over the document first; its keys are checked
    against the same schema, so a typo in an override is an error too.
    """
    where = str(path)
    known = set(schema) | {"quick"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise SpecError(f"{where}: unknown section(s) {unknown}; known sections: {sorted(known)}")
    quick_raw = raw.get("quick", {})
    if not isinstance(quick_raw, dict):
        raise SpecError(f"{where}: [quick] must be a table")
    overrides = {k: v for k, v in quick_raw.items() if k != "note"}
    if "note" in quick_raw and not isinstance(quick_raw["note"], str):
        raise SpecError(f"{where}: [quick] note must be a string")
    for section, table in overrides.items():
        if section in _NO_QUICK or section not in schema:
            allowed = sorted(set(schema) - set(_NO_QUICK))
            raise SpecError(f"{where}: [quick.{section}] cannot be overridden; [quick] may "
                            f"hold the sections {allowed} (and a 'note')")
        _check_section(table, f"quick.{section}", schema[section], where, partial=True)
    doc = _deep_merge({k: v for k, v in raw.items() if k != "quick"}, overrides if quick else {})
    sections = {}
    for section, keys in schema.items():
        table = doc.get(section, {})
        if not keys:  # free-form
            if not isinstance(table, dict):
                raise SpecError(f"{where}: [{section}] must be a table")
            sections[section] = table
            continue
        if section not in doc and any(f.required for f in keys.values()):
            raise SpecError(f"{where}: the section [{section}] is missing")
        sections[section] = _check_section(table, section, keys, where)
    name = sections["experiment"]["name"]
    if not name or not all(c.isalnum() or c in "_-." for c in name):
        raise SpecError(f"{where}: [experiment] name must be a non-empty identifier (letters, "
                        f"digits, '_', '-', '.'); got {name!r}")
    return Spec(path=Path(path), quick=quick, sections=sections, quick_overrides=quick_raw)


def settings_hash(settings: dict) -> str:
    """Short SHA-256 of a JSON-serialisable settings dict (key order does not matter)."""
    return hashlib.sha256(_canonical(settings).encode()).hexdigest()[:16]


def task_seed(root: int, *keys: int) -> int:
    """A fit's seed: one 32-bit draw of SeedSequence([root, *keys]), independent of run order."""
    ss = np.random.SeedSequence([int(root), *(int(k) for k in keys)])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def check_reliability_reference(where: str, table, name: str, methods, n_bins: int) -> None:
    """Check a ``[reference.<name>.<label>.<method>]`` reliability table from a paper.

    Each entry holds ``count``, ``pred`` and ``actual``, lists of ``n_bins`` numbers (nan for
    empty bins), for a method in ``methods``.
    """
    if not isinstance(table, dict):
        raise SpecError(f"{where}: [reference] {name} must be a table")
    for label, by_method in table.items():
        if not isinstance(by_method, dict):
            raise SpecError(f"{where}: [reference.{name}.{label}] must be a table")
        for method, cols in by_method.items():
            key = f"[reference.{name}.{label}.{method}]"
            if method not in methods:
                raise SpecError(f"{where}: {key}: method must be one of {list(methods)}")
            if not isinstance(cols, dict) or set(cols) != {"count", "pred", "actual"}:
                raise SpecError(f"{where}: {key} must hold exactly the keys count, pred, actual")
            for col, values in cols.items():
                if not isinstance(values, list) or len(values) != n_bins:
                    raise SpecError(f"{where}: {key} {col} must be a list of n_bins = {n_bins} "
                                    "numbers (nan for empty bins)")

