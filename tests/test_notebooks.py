"""The notebooks in ``notebooks/``: stored with outputs, and executing top to bottom.

The execution tests run only with ``pytest --run-notebooks`` (``make notebooks``): each executes
a notebook with nbclient in the ``python3`` kernel of this interpreter's environment, fails on
any cell error, and then runs one extra cell in the same kernel that reports a few key results,
which are checked against what the notebook claims (e.g. the corrected model's expected error is
closer to its actual error than the uncorrected model's). The structural tests always run.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT_S = 1800
MARKER = "__SELBAYES_NOTEBOOK_CHECK__"

# Code run after the notebook, in its kernel; it must print MARKER + a JSON dict.
PROBES = {
    "01_selection_bias": """
import json, sys
import numpy as np
print("{marker}" + json.dumps({{
    "prefix": sys.prefix,
    "gap_corrected": float(summary.loc["expected - actual", "corrected"]),
    "gap_uncorrected": float(summary.loc["expected - actual", "uncorrected"]),
    "log_tau_mu": {{n: float(np.median(np.log(f.idata_.posterior["tau_mu"].values)))
                   for n, f in fits.items()}},
    "true_tau_mu": float(sim.tau_mu),
}}))
""",
    "02_your_data": """
import json, sys
import numpy as np
P = clf.predict_proba(X_test)
risk = P @ L                          # expected loss of each guess, per case
col = {{c: i for i, c in enumerate(clf.classes_)}}
rows = np.arange(len(P))
print("{marker}" + json.dumps({{
    "prefix": sys.prefix,
    "data": DATA,
    "n_classes": int(len(clf.classes_)),
    "error_rate": float(summary.loc["error_rate", "stack"]),
    "reload_same": bool(same),
    "png": bool(reliability_png.is_file() and reliability_png.stat().st_size > 1000),
    "bayes_ok": bool(np.all(risk[rows, [col[c] for c in cautious]]
                            <= risk[rows, [col[c] for c in plain]] + 1e-12)),
    "bayes_min": bool(np.allclose(risk[rows, [col[c] for c in cautious]], risk.min(axis=1))),
}}))
""",
    "03_reproduce_paper": """
import json, sys
m = result.results["metrics"]
gaps = {{f"{{r['k']}}-{{r['method']}}": r["expected_error_rate"] - r["error_rate"] for r in m}}
print("{marker}" + json.dumps({{
    "prefix": sys.prefix,
    "quick": bool(result.results["quick"]),
    "report": bool(result.report_path.is_file()),
    "figures": all((result.out_dir / f).is_file() for f in result.results["figures"].values()),
    "gaps": gaps,
}}))
""",
    "04_naive_bayes": """
import json, sys
import numpy as np
print("{marker}" + json.dumps({{
    "prefix": sys.prefix,
    "gap_corrected": float(summary.loc["expected - actual", "corrected"]),
    "gap_uncorrected": float(summary.loc["expected - actual", "uncorrected"]),
    # posterior mass above alpha = 100, and the 0.5% and 99.5% quantiles of alpha
    "alpha": {{n: [float(np.exp(f.quadrature_fit_.log_alpha_weights)[
                      f.quadrature_fit_.alpha_grid > 100].sum()),
                  *[float(f.quadrature_fit_.alpha_grid[np.searchsorted(
                      np.cumsum(np.exp(f.quadrature_fit_.log_alpha_weights)), q)])
                    for q in (0.005, 0.995)]]
              for n, f in fits.items()}},
    "true_alpha": float(sim.alpha),
}}))
""",
    "05_mixture": """
import json, sys
import numpy as np
la = {{n: np.log(f.idata_.posterior["alpha"].values) for n, f in fits.items()}}
print("{marker}" + json.dumps({{
    "prefix": sys.prefix,
    "gap_corrected": float(summary.loc["expected - actual", "corrected"]),
    "gap_uncorrected": float(summary.loc["expected - actual", "uncorrected"]),
    "ece": {{n: float(summary.loc["ece", n]) for n in fits}},
    # 5%, 50%, 95% posterior quantiles of log alpha
    "log_alpha": {{n: [float(q) for q in np.quantile(v, [0.05, 0.5, 0.95])]
                  for n, v in la.items()}},
    "true_log_alpha": float(np.log(sim.alpha)),
    "agreement": {{n: float(f.idata_.posterior["zy_agreement"].mean())
                  for n, f in fits.items()}},
    "true_agreement": float(true_agreement),
    # fraction of test cases with P(y = 1) outside [0.1, 0.9]
    "outer": {{n: float(np.mean((p[:, 1] < 0.1) | (p[:, 1] > 0.9)))
              for n, p in probas.items()}},
}}))
""",
    "06_obf": """
import json, sys
import numpy as np
cal = tables["matched proper prior"]
jp = tables["Jeffreys, L = 0.1"]
big = cal["count"] >= 100
mid = (jp["bin"] >= 3) & (jp["bin"] <= 8)
print("{marker}" + json.dumps({{
    "prefix": sys.prefix,
    "recovery": {{m: {{"var": float(r["variance-only found (of 10)"]),
                      "mean": float(r["mean-only found (of 10)"]),
                      "fp": float(r["false positives"])}}
                 for m, r in recovery.iterrows()}},
    "calib_max_abs_z": float(np.max(np.abs((cal["observed_fraction"] - cal["mean_predicted"])
                                           / cal["se"])[big])),
    "calib_n_bins": int(big.sum()),
    "jeffreys_min_overstatement": float(np.min((jp["mean_predicted"]
                                                - jp["observed_fraction"])[mid])),
    "errors": {{f"{{s}} | {{c}}": float(v) for (s, c), v in clf_table["error_rate"].items()}},
    "correction_refused": bool(correction_refused),
}}))
""",
    "07_error_estimation": """
import json, sys
import numpy as np
def _stats(df, name):
    d = df[name] - df["true"]
    return [float(d.mean()), float(d.std() / np.sqrt(len(d))), float(np.sqrt(np.mean(d**2)))]
print("{marker}" + json.dumps({{
    "prefix": sys.prefix,
    "one": {{"true": eps_true, "bee": ev.bee, "bee_rms": ev.bee_rms,
             "cv": ev.cross_validation, "cv_rms": ev.cross_validation_rms,
             "resub": ev.resubstitution, "resub_rms": ev.resubstitution_rms,
             "mc_mean": float(mc_mean), "mc_sd": float(mc_sd), "n_post": int(N_POST)}},
    "n_sim": int(len(sims)),
    "gauss": {{n: _stats(sims, n) for n in ["BEE", "CV", "resubstitution"]}},
    "gauss_pred_rms": float(np.sqrt(np.mean(sims["BEE_rms"] ** 2))),
    "mse_gap": [float(mse_gap), float(mse_gap_se)],
    "disc": {{n: _stats(disc, n) for n in ["BEE", "LOO", "resubstitution"]}},
    "disc_pred_rms": float(np.sqrt(np.mean(disc["BEE_rms"] ** 2))),
    "disc_bound_ok": bool(bound_ok),
}}))
""",
    "08_benchmark_your_data": """
import json, sys
print("{marker}" + json.dumps({{
    "prefix": sys.prefix, "n_methods": int(res.summary.shape[0]),
    "finite_amlp": bool(np.isfinite(res.summary["amlp"]).all()), "raw_detected": bool(raw),
    "report": bool((Path(OUT) / "report.md").is_file()),
    "png": bool(reliability_png.is_file() and reliability_png.stat().st_size > 1000),
}}))
""",
    "09_pymc_user_model": """
import json, sys
print("{marker}" + json.dumps({{
    "prefix": sys.prefix, "samplers": list(samplers), "same_selection": same_selection,
    "tau": {{n: [float(r["median"]), float(r["MCSE of median"])]
             for n, r in tau_table.iterrows()}},
    "mean_abs": {{n: float(r["mean |P - P_selbayes|"]) for n, r in agreement.iterrows()}},
    "errors": {{n: [float(r["test error"]), float(r["expected error"])]
               for n, r in agreement.iterrows()}},
    "true_log_tau_mu": float(np.log(sim.tau_mu)),
}}))
""",
}


def _execute(path: Path, extra_params: str = "") -> dict:
    """Execute a notebook (in memory) plus its probe cell; return the probe's dict."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    if extra_params:
        params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        assert params, f"{path.name} has no cell tagged 'parameters'"
        params[0].source += "\n" + extra_params
    probe = PROBES[path.stem].format(marker=MARKER)
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    # kernel "python3" resolves to this interpreter (jupyter_client substitutes sys.executable
    # for a kernelspec's "python"); the probe's sys.prefix confirms it.
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()   # raises CellExecutionError on the first failing cell
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", f"{path.name}: {out.ename}: {out.evalue}"
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs
                   if o.output_type == "stream" and o.name == "stdout")
    assert MARKER in text, f"{path.name}: probe printed nothing: {nb.cells[-1].outputs}"
    result = json.loads(text.split(MARKER, 1)[1])
    assert Path(result["prefix"]).resolve() == Path(sys.prefix).resolve(), (
        f"the notebook kernel ran in {result['prefix']}, not in this environment {sys.prefix}")
    return result


@pytest.fixture
def run_notebooks(request):
    if not request.config.getoption("--run-notebooks"):
        pytest.skip("notebooks execute only with --run-notebooks (make notebooks)")


# ------------------------------------------------------------------------------ structure
def test_notebooks_present():
    names = {p.stem for p in NOTEBOOKS}
    assert {"01_selection_bias", "02_your_data", "03_reproduce_paper"} <= names
    assert names <= set(PROBES), f"add a probe for {sorted(names - set(PROBES))}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_stored_executed(path):
    """Committed with outputs, in order, without errors, with a QUICK parameter cell first."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert "parameters" in code[0].metadata.get("tags", []), "first code cell: the parameters"
    assert "QUICK = True" in code[0].source
    counts = [c.execution_count for c in code]
    assert all(n is not None for n in counts), "some cells were not executed"
    assert counts == sorted(counts) and len(set(counts)) == len(counts), "cells run out of order"
    assert any(c.outputs for c in code), "outputs were stripped"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"stored error outputs: {[e.ename for e in errors]}"


# An absolute path of the machine that executed the notebook: /work/..., /root/..., /home/...,
# /tmp/... (also inside file:// URLs), not preceded by a word character or a dot (so a URL's
# path such as https://example.org/home/ does not count).
MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|root|home|tmp|Users|private/var|var/folders)/")


def _output_texts(output) -> list[str]:
    """Every text an output shows: stream text, text-like data (not base64 images), tracebacks."""
    texts = [output.get("text", "")] + list(output.get("traceback", []))
    for mime, value in output.get("data", {}).items():
        if mime.startswith("image/") and mime != "image/svg+xml":
            continue                     # base64: a chance "/tmp/" in it is not a path
        texts.append(value if isinstance(value, str) else json.dumps(value))
    return texts


def machine_paths(nb) -> list[str]:
    """Snippets around every machine path in the stored outputs of a notebook."""
    found = []
    for i, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            for text in _output_texts(output):
                for m in MACHINE_PATH.finditer(text):
                    snippet = text[max(0, m.start() - 40):m.end() + 40].replace("\n", " ")
                    found.append(f"cell {i}: ...{snippet}...")
    return found


def test_machine_path_scan_finds_paths():
    """The scan itself: it flags a warning's source file, a temporary folder and a file URL,
    and not URLs or relative paths."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x", outputs=[
        nbformat.v4.new_output("stream", name="stderr",
                               text="/work/main/src/selbayes/x.py:209: SamplingWarning: w\n"),
        nbformat.v4.new_output("stream", name="stdout", text="saved /tmp/selbayes_1/r.png\n"),
        nbformat.v4.new_output("display_data", data={"text/html": '<a href="file:///root/a">',
                                                     "image/png": "iVBO/tmp/AAA"}),
        nbformat.v4.new_output("stream", name="stdout",
                               text="see https://example.org/home/x and reports/tmp/x\n"),
    ])])
    found = machine_paths(nb)
    assert len(found) == 3, found
    assert all("example.org" not in f and "reports/tmp" not in f for f in found)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_machine_paths_in_outputs(path):
    """Stored outputs show no absolute path of the machine that ran them (a warning's source
    file, a temporary folder): they would be meaningless, and private, on any other machine."""
    found = machine_paths(nbformat.read(path, as_version=4))
    assert not found, f"{path.name}: machine paths in stored outputs:\n" + "\n".join(found)


# ------------------------------------------------------------------------------ execution
def test_selection_bias(run_notebooks):
    r = _execute(NOTEBOOK_DIR / "01_selection_bias.ipynb")
    # overconfidence without the correction; the corrected model expects the error it makes
    assert r["gap_uncorrected"] < -0.05
    assert abs(r["gap_corrected"]) < abs(r["gap_uncorrected"])
    truth = math.log(r["true_tau_mu"])
    lt = r["log_tau_mu"]
    assert abs(lt["corrected"] - truth) < abs(lt["uncorrected"] - truth)
    assert lt["uncorrected"] < truth          # selection inflates the apparent signal


@pytest.mark.parametrize("force_csv", [False, True], ids=["srbct_or_csv", "csv"])
def test_your_data(run_notebooks, force_csv):
    r = _execute(NOTEBOOK_DIR / "02_your_data.ipynb",
                 extra_params="FORCE_CSV = True" if force_csv else "")
    if force_csv:
        assert r["data"] == "my_expression.csv"
    # both the SRBCT and the simulated data are far from chance (error 1 - 1/G)
    assert r["error_rate"] < 0.5 * (1 - 1 / r["n_classes"])
    assert r["reload_same"] and r["png"]
    assert r["bayes_ok"] and r["bayes_min"]


def test_reproduce_paper(run_notebooks):
    r = _execute(NOTEBOOK_DIR / "03_reproduce_paper.ipynb")
    assert r["quick"] and r["report"] and r["figures"]
    gaps = r["gaps"]
    for k in (5, 20):                        # the quick design's k
        assert abs(gaps[f"{k}-corrected"]) < abs(gaps[f"{k}-uncorrected"])
        assert gaps[f"{k}-uncorrected"] < 0


def test_naive_bayes(run_notebooks):
    r = _execute(NOTEBOOK_DIR / "04_naive_bayes.ipynb")
    assert r["gap_uncorrected"] < 0
    assert abs(r["gap_corrected"]) < abs(r["gap_uncorrected"])
    # selection makes the classes look more different (small alpha) without the correction;
    # the truth lies in the corrected posterior's 99% interval and outside the uncorrected one
    (mass_c, lo_c, hi_c), (mass_u, lo_u, hi_u) = r["alpha"]["corrected"], r["alpha"]["uncorrected"]
    assert mass_c > 0.5 > 0.05 > mass_u
    assert lo_c <= r["true_alpha"] <= hi_c
    assert not lo_u <= r["true_alpha"] <= hi_u


def test_obf(run_notebooks):
    r = _execute(NOTEBOOK_DIR / "06_obf.ipynb")
    rec = r["recovery"]
    obf_mnc, f20 = rec["OBF MNC (pi* > 1/2)"], rec["F top 20"]
    # spec obf.md section 5 (n = 50 per class): OBF recovers >= 8 of 10 variance-only markers,
    # the F/t statistic stays near chance (0.2); both find the mean-only markers
    assert obf_mnc["var"] >= 7.5 and rec["OBF CMNC top 20"]["var"] >= 7.5
    assert f20["var"] <= 1.0
    assert obf_mnc["mean"] >= 8.0 and f20["mean"] >= 9.0
    assert obf_mnc["fp"] < 3.0 < f20["fp"]
    # prior-predictive calibration: every populated decile within 4 binomial SE (10 bins)
    assert r["calib_n_bins"] >= 8 and r["calib_max_abs_z"] < 4.0
    # the mismatched Jeffreys prior overstates pi* by > 0.15 in every middle decile
    assert r["jeffreys_min_overstatement"] > 0.15
    e = r["errors"]
    gnb, lda = "GaussianNB (class variances)", "LDA (common variance)"
    # 2,000 test cases: SE of an error rate ~0.006
    assert e[f"OBF MNC | {gnb}"] < e[f"F top 20 | {gnb}"] - 0.03
    assert e[f"OBF MNC | {gnb}"] < e[f"OBF MNC | {lda}"] - 0.03
    assert r["correction_refused"]


def test_error_estimation(run_notebooks):
    r = _execute(NOTEBOOK_DIR / "07_error_estimation.ipynb")
    one = r["one"]
    # BEE = posterior mean and RMS = posterior sd of the true error (brute-force draws)
    se_mean = one["mc_sd"] / one["n_post"] ** 0.5
    assert abs(one["mc_mean"] - one["bee"]) < 5 * se_mean
    assert abs(one["mc_sd"] - one["bee_rms"]) < 0.05 * one["bee_rms"]
    # eq 5.8: every other estimate's conditional RMS is at least the BEE's
    assert one["bee_rms"] <= min(one["cv_rms"], one["resub_rms"]) + 1e-12
    for stats_, pred in [(r["gauss"], r["gauss_pred_rms"]), (r["disc"], r["disc_pred_rms"])]:
        bias, se, rms = stats_["BEE"]
        assert abs(bias) < 4 * se                       # unbiased over prior x sampling
        other = [k for k in stats_ if k not in ("BEE", "resubstitution")][0]   # CV / LOO
        assert rms < 0.75 * stats_[other][2]            # clearly lower RMS than CV
        assert rms < 0.75 * stats_["resubstitution"][2]
        assert stats_["resubstitution"][0] < -3 * stats_["resubstitution"][1]   # optimistic
        # conditional MSE calibrated on average (MC se of an RMS over n_sim samples ~ 3-4%)
        assert abs(pred - rms) < 0.15 * rms
    gap, gap_se = r["mse_gap"]
    assert gap > 4 * gap_se
    assert r["disc_bound_ok"]


def test_mixture(run_notebooks):
    r = _execute(NOTEBOOK_DIR / "05_mixture.ipynb")
    # uncorrected: overconfident; corrected: expects (about) the error it makes
    assert r["gap_uncorrected"] < -0.1
    assert abs(r["gap_corrected"]) < 0.1
    assert abs(r["gap_corrected"]) < 0.5 * abs(r["gap_uncorrected"])
    assert r["ece"]["corrected"] < r["ece"]["uncorrected"]
    assert r["outer"]["uncorrected"] > 0.3 > 0.05 > r["outer"]["corrected"]
    # alpha: selection makes the clusters look far apart (small alpha) without the correction
    truth = r["true_log_alpha"]
    med_c = r["log_alpha"]["corrected"][1]
    _, med_u, hi_u = r["log_alpha"]["uncorrected"]
    assert hi_u < truth - 1.0
    assert abs(med_c - truth) < 1.0 and abs(med_c - truth) < abs(med_u - truth)
    # latent clusters: uncorrected equates z with y; corrected keeps y a noisy copy of z
    assert r["agreement"]["uncorrected"] > 0.98
    assert r["agreement"]["corrected"] < r["agreement"]["uncorrected"] - 0.03


def test_benchmark_your_data(run_notebooks):
    r = _execute(NOTEBOOK_DIR / "08_benchmark_your_data.ipynb")
    assert r["raw_detected"] and r["n_methods"] == 4 and r["finite_amlp"]
    assert r["report"] and r["png"]


def test_pymc_user_model(run_notebooks):
    r = _execute(NOTEBOOK_DIR / "09_pymc_user_model.ipynb")
    assert {"pymc", "nutpie"} <= set(r["samplers"]) and r["same_selection"]
    tau = r["tau"]
    med_sb, se_sb = tau["selbayes"]
    # each sampler of the user's model: the same posterior median of log tau_mu as selbayes
    # within 4 Monte Carlo SE of the difference (plus 0.02 for the SE's own error)
    for name in r["samplers"]:
        med, se = tau[name]
        assert abs(med - med_sb) < 4 * math.hypot(se, se_sb) + 0.02, (name, med, med_sb)
    # without the factor tau_mu is much smaller (more apparent signal) and further from the truth
    med_u = tau["your model, uncorrected"][0]
    assert med_u < med_sb - 1.0
    assert abs(med_sb - r["true_log_tau_mu"]) < abs(med_u - r["true_log_tau_mu"])
    # predictions: the same probabilities up to Monte Carlo error; uncorrected clearly not
    for name in r["samplers"]:
        assert r["mean_abs"][name] < 0.03, (name, r["mean_abs"][name])
    assert r["mean_abs"]["your model, uncorrected"] > 2 * max(r["mean_abs"][n]
                                                               for n in r["samplers"])
    # uncorrected: overconfident (expects a smaller error than it makes)
    err_u, exp_u = r["errors"]["your model, uncorrected"]
    assert exp_u < err_u - 0.05
