"""numba's fast math on and off: what selbayes's default (off) costs in sampling time, and
whether a seeded fit is the same in the process that compiled its model and in a later one.

selbayes turns pytensor's ``numba__fastmath`` off (``selbayes._compile_cache
.configure_pytensor``): with it on, the code numba compiles in a process and the same code read
back from the cache round differently in the last bits, and a seeded MCMC fit then draws other
samples in the process that compiled its model than in every later process.

For each setting, in its own empty cache folder: a fresh process fits (and compiles) the model,
then a second process fits it again from the caches (the compiled-vs-loaded comparison);
then ``--repeats`` (default 3) more processes time the warm fit alone (seconds of ``fit``, the
model read from the cache), alternating the settings so that a slow spell hits both. Models:
the Gaussian classifier (two classes, n = 60, p = 500, k = 10 and k = 100, 4 chains x 1000
tuning + 1000 draws, nutpie) and the binary naive Bayes classifier by MCMC (k = 10). Ratios of
the medians within this one run.

Run: ``.venv/bin/python benchmarks/bench_fastmath.py`` (about 5 minutes on 2 cores). Writes
benchmarks/results/fastmath.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _notes import run_line, write_results

OUT = Path(__file__).resolve().parent / "results" / "fastmath.md"
ROOT = Path(__file__).resolve().parents[1]

FIT = r"""
import json, sys, time, warnings
import numpy as np
import selbayes
warnings.simplefilter("ignore")
which, k = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
y = np.repeat([0, 1], 30)
if which == "gaussian":
    X = rng.normal(size=(60, 500))
    X[:, :10] += y[:, None]
    clf = selbayes.HierarchicalGaussianClassifier(k=k, random_state=1, progressbar=False)
else:
    X = (rng.random((60, 500)) < 0.3 + 0.2 * y[:, None] * (np.arange(500) < 10)).astype(int)
    clf = selbayes.BinaryNaiveBayesClassifier(k=k, method="mcmc", random_state=1,
                                              progressbar=False)
t0 = time.perf_counter()
clf.fit(X, y)
sec = time.perf_counter() - t0
ss = clf.idata_["sample_stats"]
print(json.dumps({"seconds": sec, "proba": clf.predict_proba(X).tolist(),
                  "divergent": float(ss["diverging"].values.mean()),
                  "depth": float(ss["depth"].values.mean()) if "depth" in ss else None}))
"""

MODELS = (("gaussian", 10), ("gaussian", 100), ("naive_bayes", 10))


def run(which, k, cache, fastmath):
    env = {**os.environ, "SELBAYES_CACHE_DIR": str(cache), "MPLBACKEND": "Agg",
           "PYTENSOR_FLAGS": f"numba__fastmath={fastmath}"}
    res = subprocess.run([sys.executable, "-c", FIT, which, str(k)], env=env,
                         capture_output=True, text=True, timeout=1800, cwd=ROOT)
    if res.returncode:
        raise RuntimeError(res.stderr[-3000:])
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3, help="timed warm fits per setting")
    a = ap.parse_args(argv)
    t_start = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for which, k in MODELS:
            diff, secs, stats = {}, {True: [], False: []}, {}
            for fm in (True, False):
                cache = Path(tmp) / f"{which}_{k}_{fm}"
                first, second = run(which, k, cache, fm), run(which, k, cache, fm)
                diff[fm] = float(np.abs(np.subtract(first["proba"], second["proba"])).max())
                stats[fm] = (second["divergent"], second["depth"])
            for _ in range(a.repeats):
                for fm in (True, False):
                    secs[fm].append(run(which, k, Path(tmp) / f"{which}_{k}_{fm}", fm)[
                        "seconds"])
            med = {fm: float(np.median(s)) for fm, s in secs.items()}
            rows.append((which, k, med[True], med[False], med[False] / med[True], diff[True],
                         diff[False], *stats[True], *stats[False]))
            print(rows[-1], flush=True)
    lines = [
        "# numba's fast math: sampling time, and the first process against later ones",
        "",
        run_line(f"python benchmarks/bench_fastmath.py --repeats {a.repeats}", t_start),
        "",
        "Default settings (4 chains x 1000 + 1000, nutpie); two classes, n = 60, p = 500 (see "
        "the script). Seconds of a warm `fit` (model read from the cache), median of "
        f"{a.repeats} processes; the largest difference of the predicted probabilities "
        "between the process that compiled the model and the next one, same seed; the share "
        "of divergent transitions and the mean tree depth of NUTS in that next process.",
        "",
        "| model | k | fast math on, s | off (the default), s | ratio off / on | "
        "compiled vs loaded, on | compiled vs loaded, off | divergent share, on / off | "
        "mean tree depth, on / off |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {w} | {k} | {on:.1f} | {off:.1f} | {r:.2f} | {d_on:.1e} | {d_off:.1e} | "
              f"{v_on:.3f} / {v_off:.3f} | {t_on:.1f} / {t_off:.1f} |"
              for w, k, on, off, r, d_on, d_off, v_on, t_on, v_off, t_off in rows]
    write_results(OUT, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
