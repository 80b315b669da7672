"""Which df the default's t prior chooses with and without the omitted genes' factor, at the
same k (plug-in fits on all cases of four development sets, as in dev_sets.py). Writes
omitted_factor.json.

    python reports/ppc_t_tails/omitted_factor.py     (about 5 minutes)
"""

from dev_sets import plugin_fit, write_results  # this script's folder is on sys.path

from selbayes.datasets import load_dataset

SETS = ["srbct", "chowdary", "nakayama", "borovecki"]     # the largest z in dev_sets.json


def main():
    rows = {}
    for name in SETS:
        ds = load_dataset(name)
        X, y = ds.X.to_numpy(), ds.y.to_numpy()
        corrected = plugin_fit(X, y)
        uncorrected = plugin_fit(X, y, k=corrected.k_, correct_selection=False)
        rows[name] = {"k": int(corrected.k_), "df_corrected": corrected.t_df_,
                      "df_uncorrected": uncorrected.t_df_}
        print(name, rows[name], flush=True)
    write_results("omitted_factor", rows)


if __name__ == "__main__":
    main()
