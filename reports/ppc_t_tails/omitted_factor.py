"""Which df the default's t prior chooses with and without the omitted genes' factor, at the
same k (plug-in fits on all cases of four development sets). Writes omitted_factor.json.

    python reports/ppc_t_tails/omitted_factor.py     (about 5 minutes)
"""

import json
import warnings
from pathlib import Path

import selbayes
from selbayes.datasets import load_dataset

HERE = Path(__file__).parent
SETS = ["srbct", "chowdary", "nakayama", "borovecki"]     # the largest z in dev_sets.json


def main():
    rows = {}
    for name in SETS:
        ds = load_dataset(name)
        X, y = ds.X.to_numpy(), ds.y.to_numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            corrected = selbayes.HierarchicalGaussianClassifier(
                method="plugin", random_state=0, progressbar=False).fit(X, y)
            uncorrected = selbayes.HierarchicalGaussianClassifier(
                k=corrected.k_, method="plugin", correct_selection=False, random_state=0,
                progressbar=False).fit(X, y)
        rows[name] = {"k": int(corrected.k_), "df_corrected": corrected.t_df_,
                      "df_uncorrected": uncorrected.t_df_}
        print(name, rows[name], flush=True)
    settings = {"method": "plugin", "random_state": 0, "fit on": "all cases",
                "versions": selbayes._version.versions()}
    (HERE / "omitted_factor.json").write_text(json.dumps({"settings": settings, "sets": rows},
                                                         indent=1) + "\n")


if __name__ == "__main__":
    main()
