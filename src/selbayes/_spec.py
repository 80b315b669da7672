"""Declarative TOML specs: one schema mechanism for reproduction and SBC specs.

A spec is data: sections of typed keys. A schema is ``{section: {key: Field}}``; a
:class:`Field` gives the key's type, its default (or that it is required, or that it may be
left out), bounds and allowed values. :func:`validate` checks a parsed TOML document against a
schema, fills defaults, and raises :class:`SpecError` (a ``ValueError``) naming the file, the
section and the key at fault, also for unknown sections and keys.

``quick=True`` deep-merges the spec's ``[quick]`` table (same sections and keys, any subset; a
free-text ``note``) over the full design before validation; the overrides are checked against
the same schema, so a typo in one is an error too.

Used by the reproductions (``models/experiments/*.toml`` with ``[experiment] model = ...``, see
:mod:`selbayes.experiments`) and by simulation-based calibration (``models/sbc/*.toml`` with
``[sbc] model = ...``, see :func:`selbayes.sbc.load_sbc_spec`).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Field", "Spec", "SpecError", "OMIT", "read_toml", "merge_schema", "validate",
           "load", "check_section", "dataclass_schema"]

_MISSING = object()
#: Default of a key that may be left out and is then absent from the validated section (the
#: code reading the spec has the default, e.g. a dataclass it is passed to).
OMIT = object()


class SpecError(ValueError):
    """A spec is malformed; the message names the file, the section and the key."""


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
        Value used when the key is absent; required when there is no default; :data:`OMIT`:
        optional, and left out of the validated section when absent.
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
        The validated settings (free-form sections are kept as read).
    quick_overrides : dict
        The ``[quick]`` table as written (for the report).
    header : str
        The section naming the ``model`` (and optionally the ``name``) of the spec:
        ``"experiment"`` for reproductions, ``"sbc"`` for SBC specs.
    """

    path: Path
    quick: bool
    sections: dict
    quick_overrides: dict = field(default_factory=dict)
    header: str = "experiment"

    def __getitem__(self, section: str) -> dict:
        return self.sections[section]

    def get(self, section: str, default=None):
        """The section, or ``default`` when the schema has no such section."""
        return self.sections.get(section, default)

    @property
    def name(self) -> str:
        """``[<header>] name``, or the file name without ``.toml`` when there is none."""
        return self.sections[self.header].get("name") or self.path.stem

    @property
    def model(self) -> str:
        return self.sections[self.header]["model"]


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


def check_section(raw: dict, section: str, keys: dict[str, Field], where: str,
                  partial: bool = False) -> dict:
    """Check one table against its keys: unknown keys, types, required keys, defaults.

    ``section`` is the name shown in messages (e.g. ``"reference.thesis"``); ``partial``
    checks only the keys present (``[quick]`` overrides).
    """
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
        elif not partial and fld.default is not OMIT:
            if fld.required:
                raise SpecError(f"{where}: [{section}] is missing the required key {key!r} "
                                f"({fld.doc})")
            out[key] = copy.deepcopy(fld.default)
    return out


def validate(raw: dict, schema: dict[str, dict[str, Field]], path, quick: bool, *,
             header: str = "experiment", no_quick: tuple = ("experiment", "reference"),
             required_sections: tuple = ()) -> Spec:
    """Check ``raw`` (a parsed TOML document) against ``schema`` and return a :class:`Spec`.

    Parameters
    ----------
    raw : dict
        The parsed TOML document (see :func:`read_toml`).
    schema : dict
        ``{section: {key: Field}}``; a section with no keys (like ``reference``) is a
        free-form table.
    path : path-like
        The file, named in error messages.
    quick : bool
        Merge the ``[quick]`` table over the document first; its keys are checked against the
        same schema either way, so a typo in an override is an error too.
    header : str, default "experiment"
        The section holding ``model`` (and optionally ``name``, which must then be an
        identifier).
    no_quick : tuple of str
        Sections ``[quick]`` may not override.
    required_sections : tuple of str
        Sections that must be present even when all their keys are optional (a section with
        a required key is always required).

    Returns
    -------
    Spec

    Raises
    ------
    SpecError
        Naming the file, the section and the key: an unknown section or key, a missing
        required section or key, a value of the wrong type or out of range.
    """
    where = str(path)
    no_quick = (*no_quick, "quick")
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
        if section in no_quick or section not in schema:
            allowed = sorted(set(schema) - set(no_quick))
            raise SpecError(f"{where}: [quick.{section}] cannot be overridden; [quick] may "
                            f"hold the sections {allowed} (and a 'note')")
        check_section(table, f"quick.{section}", schema[section], where, partial=True)
    doc = _deep_merge({k: v for k, v in raw.items() if k != "quick"}, overrides if quick else {})
    sections = {}
    for section, keys in schema.items():
        table = doc.get(section, {})
        if not keys:  # free-form
            if not isinstance(table, dict):
                raise SpecError(f"{where}: [{section}] must be a table")
            sections[section] = table
            continue
        if section not in doc and (section in required_sections
                                   or any(f.required for f in keys.values())):
            raise SpecError(f"{where}: the section [{section}] is missing")
        sections[section] = check_section(table, section, keys, where)
    name = sections[header].get("name", Path(path).stem)
    if not name or not all(c.isalnum() or c in "_-." for c in name):
        raise SpecError(f"{where}: [{header}] name must be a non-empty identifier (letters, "
                        f"digits, '_', '-', '.'); got {name!r}")
    return Spec(path=Path(path), quick=quick, sections=sections, quick_overrides=quick_raw,
                header=header)


_KINDS = {"int": "int", "float": "float", "str": "str", "bool": "bool",
          "float | None": "float", "int | None": "int",
          "tuple[float, ...] | None": "list[float]"}


def dataclass_schema(cls, exclude: tuple = (), doc: str = "") -> dict[str, Field]:
    """Optional keys (:data:`OMIT`) of a section whose values are passed to ``cls(**section)``.

    Types come from the dataclass's annotations; defaults stay with the dataclass. Keys not in
    ``exclude`` whose type is not a plain number, string or bool are skipped.
    """
    out = {}
    for f in dataclasses.fields(cls):
        # annotations are strings under ``from __future__ import annotations``, else types
        kind = _KINDS.get(f.type if isinstance(f.type, str) else
                          f.type.__name__ if isinstance(f.type, type) else str(f.type))
        if f.name in exclude or kind is None:
            continue
        out[f.name] = Field(kind, doc or f"{cls.__name__}.{f.name}", default=OMIT)
    return out


def load(path, quick: bool, *, header: str, models, schema_for, what: str = "model",
         **options) -> Spec:
    """Read a spec whose ``[<header>] model`` decides its schema, and validate it.

    Parameters
    ----------
    path : path-like
        The TOML file.
    quick : bool
        Apply the ``[quick]`` overrides.
    header : str
        The section naming the model (``"experiment"``, ``"sbc"``).
    models : collection of str
        The known models.
    schema_for : callable
        ``schema_for(model) -> {section: {key: Field}}``.
    what : str
        What a model is, for the error message ("experiment type", "SBC model").
    **options
        Passed to :func:`validate` (``no_quick``, ``required_sections``).

    Returns
    -------
    Spec

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    SpecError
        Naming the file, the section and the key (see :func:`validate`); first of all when
        ``[<header>] model`` is missing or unknown.
    """
    raw = read_toml(path)
    head = raw.get(header)
    if not isinstance(head, dict) or "model" not in head:
        raise SpecError(f"{path}: the section [{header}] with the key 'model' is required "
                        f"(known: {sorted(models)})")
    if head["model"] not in models:
        raise SpecError(f"{path}: [{header}] model = {head['model']!r} is not a known {what}; "
                        f"known: {sorted(models)}")
    return validate(raw, schema_for(head["model"]), path, quick, header=header, **options)
