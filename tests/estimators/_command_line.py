"""What the wrappers' save/load tests share: ``selbayes predict`` on a saved file."""

import numpy as np
import pandas as pd


def assert_command_line_predicts(path, X, expected, tmp_path):
    """``selbayes predict`` of the saved fit at ``path`` on the rows of ``X`` (written to a
    CSV with columns x0, x1, ...) gives ``expected`` (n, G) in its last G columns."""
    from selbayes.cli import main

    pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])]).to_csv(tmp_path / "x.csv")
    assert main(["predict", str(path), "--x", str(tmp_path / "x.csv"), "-o",
                 str(tmp_path / "p.csv")]) == 0
    got = pd.read_csv(tmp_path / "p.csv", index_col=0)
    g = expected.shape[1]
    np.testing.assert_allclose(got.iloc[:, -g:].to_numpy(), expected, rtol=1e-6)
