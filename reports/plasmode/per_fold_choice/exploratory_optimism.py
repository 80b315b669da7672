"""Exploratory (run before README.md's rule; no score against the truth): the selection optimism of the Gaussian model's inner losses at its chosen
candidate (plug-in), against an honest per-fold choice (candidate and share chosen on the other
inner folds' cases). Not a decision."""
import sys, json, time
from pathlib import Path
import numpy as np
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline, third_component
PP = offline.load_script(HERE.parent / "probit_projected" / "compare.py", "ppc")
NAME = "optimism"


def honest(choice, yi):
    from selbayes.estimators._inner_cv import pick_candidate, LABEL_NOISE_SHARES
    ex = choice.extra
    L = np.asarray(ex["case_losses"])            # (cands, n)
    S = np.asarray(ex["share_case_losses"])      # (cands, shares, n)
    P = np.asarray(ex["share_case_log_proba"])   # (cands, shares, n, G)
    temps = [g[2] for g in choice.grid]
    ks = [g[0] for g in choice.grid]
    out = np.empty(P.shape[2:])
    picks = []
    for tr, te in ex["folds"]:
        other = np.setdiff1d(np.arange(yi.size), te)
        b = pick_candidate(L[:, other], temps, ex["rule"], ks)
        s = int(np.argmin(S[b][:, other].mean(axis=1)))
        out[te] = P[b, s][te]
        picks.append((ks[b], float(LABEL_NOISE_SHARES[s])))
    return out, picks


def score(stored, A, yi, T, X, Xt, random_state, default_row, base):
    import warnings
    from selbayes.benchmark._methods import selbayes_default
    from selbayes.estimators._inner_cv import LABEL_NOISE_SHARES
    from selbayes.estimators._linear_stack import _floored, _weights_and_pool
    from selbayes.models._linear_probit import fit_linear_probit
    t0 = time.time()
    est = selbayes_default(random_state, effect_prior="t_auto", label_noise="cv", method="plugin")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, yi)
    ch = est.k_choice_
    folds = third_component.inner_folds(yi, random_state)
    same = all(np.array_equal(a[1], b[1]) for a, b in zip(folds, ch.extra["folds"]))
    chosen = ch._chosen_case_log_proba()
    hon, picks = honest(ch, yi)
    own = np.arange(yi.size), yi
    lin = np.empty((yi.size, 2))
    for tr, te in folds:
        lin[te] = fit_linear_probit(X[tr], yi[tr]).predict_log_proba(X[te])
    w_stored, _ = _weights_and_pool(np.stack([A[0], _floored(lin)]), yi, "linear")
    w_plug, _ = _weights_and_pool(np.stack([chosen, lin]), yi, "linear")
    w_hon, _ = _weights_and_pool(np.stack([hon, lin]), yi, "linear")
    return {**base, "method": NAME, "same_folds": same, "k": int(est.k_),
            "chosen_plugin": float(-chosen[own].mean()), "honest_plugin": float(-hon[own].mean()),
            "refit": float(-_floored(A[0])[own].mean()), "probit": float(-lin[own].mean()),
            "w_refit": float(w_stored[1]), "w_plugin": float(w_plug[1]), "w_honest": float(w_hon[1]),
            "stored_w": float(stored["weights"][1]), "picks": picks, "sec": time.time() - t0}


if __name__ == "__main__":
    out = PP.rows(2, score=score, name=NAME)
    with open(HERE / "exploratory_optimism.jsonl", "w") as f:
        for (m, s, r), row in out.items():
            if m == NAME:
                f.write(json.dumps(row) + "\n")
