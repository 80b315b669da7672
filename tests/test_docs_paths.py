"""Every file or folder of the repository that the README and the guides under docs/ name
exists: a report moved or renamed leaves no dangling pointer in the documents users read."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# the repository's top-level folders: a name in backquotes that starts with one of them is a
# path from the repository root, wherever the document lies
TOP = ("reports", "benchmarks", "notebooks", "docs", "models", "src", "tests")
QUOTED = re.compile(r"`((?:" + "|".join(TOP) + r")/[^`\s]*)`")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def missing_paths(text: str, where: Path, root: Path = ROOT) -> list[str]:
    """The paths ``text`` names that do not exist: names in backquotes from ``root``,
    Markdown links from the folder ``where`` of the document (web addresses skipped; a name
    with a wildcard or a placeholder, ``reports/<name>/``, must match something)."""
    missing = []
    for name in QUOTED.findall(text):
        name = name.rstrip(".,;:")
        if "<" in name:
            continue                                    # a placeholder, not a path
        if any(c in name for c in "*?["):
            if not list(root.glob(name)):
                missing.append(name)
        elif not (root / name).exists():
            missing.append(name)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue                                    # http:, https:, mailto:
        if not (where / target).exists():
            missing.append(target)
    return missing


def without_old_paths(text: str) -> str:
    """The README without its table of the old module paths, which names files that moved
    on purpose (tests/test_layout.py checks that table)."""
    start = text.find("Earlier versions had a flat package")
    if start < 0:
        return text
    return text[:start] + text[text.index("\n## ", start):]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_path_a_document_names_exists(document):
    missing = missing_paths(without_old_paths(document.read_text()), document.parent)
    assert not missing, f"{document.relative_to(ROOT)} names paths that do not exist: {missing}"


def test_the_check_finds_a_missing_path(tmp_path):
    (tmp_path / "reports" / "there").mkdir(parents=True)
    text = ("`reports/there/` and `reports/gone/report.md`, [a link](reports/there) and "
            "[another](reports/nowhere.md#part), `reports/*/`, `reports/<name>/`, "
            "[web](https://example.org)")
    assert missing_paths(text, tmp_path, tmp_path) == ["reports/gone/report.md",
                                                       "reports/nowhere.md"]
