"""What the command-line tests share: the one error line, a small two-class data set in files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("selbayes: error: ")
    return err[0]


def _two_class_files(tmp_path, n=12, p=6, *, ids=True):
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b"], n // 2)
    X = pd.DataFrame(rng.normal(size=(n, p)) + (y == "b")[:, None],
                     columns=[f"g{j}" for j in range(p)],
                     index=pd.Index([f"s{i}" for i in range(n)], name="sample"))
    X.to_csv(tmp_path / "X.csv", index=ids)
    pd.DataFrame({"id": X.index, "label": y}).to_csv(tmp_path / "y.csv", index=False)
    return X, y


class _Stop(ValueError):
    pass
