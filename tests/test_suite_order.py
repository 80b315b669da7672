"""make test hands the longest test files to its workers first (tests/conftest.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _conftest():
    spec = importlib.util.spec_from_file_location("_root_conftest", TESTS / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_conftest_names_existing_files():
    # a renamed or removed file would silently drop out of the order
    names = _conftest().LONGEST_FILES
    assert len(set(names)) == len(names)
    missing = [name for name in names if not (TESTS.parent / name).is_file()]
    assert not missing, f"tests/conftest.py LONGEST_FILES names files that do not exist: {missing}"


def test_the_named_files_come_first_in_their_order_and_each_file_stays_whole():
    class Item:
        def __init__(self, nodeid):
            self.nodeid = nodeid

    conftest = _conftest()
    first, second = conftest.LONGEST_FILES[:2]
    ids = ["tests/a.py::t1", "tests/a.py::t2", f"{second}::t1", f"{second}::t2", "tests/b.py::t1",
           f"{first}::t1", f"{first}::t2"]
    items = [Item(i) for i in ids]
    conftest.pytest_collection_modifyitems(items)
    assert [item.nodeid for item in items] == [
        f"{first}::t1", f"{first}::t2", f"{second}::t1", f"{second}::t2",
        "tests/a.py::t1", "tests/a.py::t2", "tests/b.py::t1"]
