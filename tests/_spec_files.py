"""Writing edited copies of the shipped reproduction specs, for the reproduction tests."""

from __future__ import annotations

from pathlib import Path


def edited_spec_text(spec: Path, **replace) -> str:
    """The text of ``spec`` with each ``old=new`` pair replaced (every ``old`` must occur)."""
    text = Path(spec).read_text()
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    return text


def write_spec(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    """Write ``text`` to ``tmp_path / name`` and return the path."""
    path = Path(tmp_path) / name
    path.write_text(text)
    return path
