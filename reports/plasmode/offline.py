"""Shared plumbing of the offline checks on the plug-in posterior (``correlated_predictive/``,
``correlated_t_predictive/``, ``stacking_k/``, ``label_noise_cv/``): the suite's replicates and
inner folds as the default's inner cross-validation makes them, the default's predictive with
each label-noise share and its inner losses over k, the choice of (k, setting) by inner score,
the resumable parallel run, and the control rule's section of the report. The
scripts put this folder on ``sys.path`` and import it, as they do ``paired.py``.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from dataclasses import dataclass

import numpy as np

from selbayes.estimators._inner_cv import LABEL_NOISE_SHARES

SEED, REPLICATES = 0, 6
SCENARIO_NAMES = ("sim_dense_weak", "sim_sparse_strong", "plasmode_sparse", "plasmode_dense",
                  "plasmode_module")


@dataclass
class Replicate:
    """One replicate of the suite (seed ``SEED``) with the default's inner-CV setting."""

    data: dict            # make_replicate's output
    X: np.ndarray         # training X, (n, p)
    yi: np.ndarray        # training class indices, (n,)
    G: int
    ks: list              # the default k grid below p
    folds: list           # the inner (train, test) index pairs
    seed: int             # the plug-in's draws
    priors: object        # the default's priors (t_auto, centred features)
    t0: float


def replicate(scenario_name, rep, seed=SEED) -> Replicate:
    """Draw replicate ``rep`` of ``scenario_name`` (a suite or held-out scenario) and its inner
    folds, as the suite's fits with run seed ``seed`` make them."""
    from selbayes import HierarchicalGaussianClassifier
    from selbayes.estimators._inner_cv import DEFAULT_K_GRID, _stratified_folds
    from selbayes.experiments.plasmode import HOLDOUT_SCENARIOS, SCENARIOS, make_replicate

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    data = make_replicate({**SCENARIOS, **HOLDOUT_SCENARIOS}[scenario_name], seed + 1000 * rep)
    X, y = data["X_train"], data["y_train"]
    classes, yi = np.unique(y, return_inverse=True)
    rng = np.random.default_rng(seed + rep)
    ks = [k for k in DEFAULT_K_GRID if k <= X.shape[1] - 1]
    _, folds = _stratified_folds(yi, 5, rng)
    seed = int(rng.integers(2 ** 31 - 1))
    return Replicate(data, X, yi, len(classes), ks, folds, seed,
                     HierarchicalGaussianClassifier()._prior_object(), t0)


def selections(R: Replicate, train, ks):
    """(Z, feats, sel) for every k of ``ks`` on the training cases ``train``."""
    from selbayes.estimators._inner_cv import _candidate_selections

    return _candidate_selections(R.X[train], R.yi[train], R.G, [(k, None) for k in ks], True,
                                 "symmetric")


def outer_selection(R: Replicate, k):
    """(Z, X_test_kept, sel): the selection of k features on all training cases, with the test
    cases' values of the kept features (prepared as the training ones)."""
    (Z, feats, sel), = selections(R, np.arange(R.X.shape[0]), [k])
    return Z, feats.selected(R.data["X_test"], sel.indices), sel


def plugin_fit(X_train, y_train, sel, priors, corrected, seed):
    """Per-draw predictive moments (mean, precision), each (S, k, G), of the plug-in
    posterior on the kept training columns (200 draws, as the inner cross-validation), and
    the t prior's df it used (None without the t prior)."""
    from selbayes.models._gaussian_plugin import plugin_posterior
    from selbayes.models._gaussian_posterior import predictive_moments

    post = plugin_posterior(X_train, y_train, sel, priors, corrected=corrected, n_draws=200,
                            random_state=seed)
    S = post["tau_x"].shape[0]
    mean, prec = predictive_moments(post["tau_x"], np.full(S, post["tau_mu"]),
                                    np.full(S, post["tau_nu"]), post["xbar"], post["counts"],
                                    lambda_mu=post["lambda_mu"])
    return mean, prec, post["mu_t_df"]


def plugin_moments(X_train, y_train, sel, priors, corrected, seed):
    """The moments of :func:`plugin_fit` alone."""
    return plugin_fit(X_train, y_train, sel, priors, corrected, seed)[:2]


def with_shares(log_proba, prior, n):
    """(len(LABEL_NOISE_SHARES), m, G): ``log_proba`` mixed with each label-noise share
    c / (n + 2) that ``label_noise="cv"`` scores (the package's own shares and rule)."""
    from selbayes.estimators._inner_cv import share_label_noise
    from selbayes.models._gaussian_plugin import label_noise_log_proba

    return np.stack([label_noise_log_proba(log_proba, prior, share_label_noise(c, n))
                     for c in LABEL_NOISE_SHARES])


def share_log_probas(Z_train, y_train, G, X_test, sel, priors, n, seed, corrected=True):
    """The default's predictive (correlation T) on the plug-in posterior with ``priors``,
    corrected or not, mixed with each label-noise share: (len(LABEL_NOISE_SHARES), m, G) log
    probabilities, and the t prior's df the fit used (None without the t prior)."""
    from selbayes.models._gaussian_posterior import class_log_prior

    Xtr = Z_train[:, sel.indices]
    mean, prec, df = plugin_fit(Xtr, y_train, sel, priors, corrected, seed)
    prior = class_log_prior(sel.class_counts, priors.c)
    lp = naive_T(Xtr, y_train, G, X_test, mean, prec, prior, 0.0)[0]
    return with_shares(lp, prior, n), df


def with_effective_exponent(Z, y, sel):
    """``sel`` with n_features set so that n_omitted, the selection factor's exponent, is
    round(m_eff) of its omitted genes (genes without within-class variation left out of
    m_eff; ``effective_omitted/``), and m_eff itself."""
    from dataclasses import replace

    from selbayes.experiments.correlated_omitted import effective_number

    Zo = Z[:, sel.omitted_indices]
    resid = Zo - np.stack([Zo[y == g].mean(0) for g in np.unique(y)])[np.searchsorted(
        np.unique(y), y)]
    Zo = Zo[:, resid.std(axis=0) > 1e-12]
    m_eff = effective_number(Zo, y, "bretherton")
    return replace(sel, n_features=sel.n_selected + max(1, int(round(m_eff)))), m_eff


def inner_losses(R: Replicate, ks, log_probas) -> np.ndarray:
    """-log p(own class) of every inner test case at every k of ``ks``: shape
    (len(ks), *settings, n). ``log_probas(Z, y_train, X_test, sel, n_train)`` gives the
    (*settings, m, G) log probabilities of one inner fit at one k."""
    out = None
    for tr, te in R.folds:
        for ki, (Z, feats, sel) in enumerate(selections(R, tr, ks)):
            lps = log_probas(Z, R.yi[tr], feats.selected(R.X[te], sel.indices), sel, tr.size)
            if out is None:
                out = np.zeros((len(ks), *lps.shape[:-2], R.X.shape[0]))
            out[ki][..., te] = -lps[..., np.arange(te.size), R.yi[te]]
    return out


def control_choice(R: Replicate):
    """The control's inner cross-validation (the default on the plug-in posterior): its
    losses, shape (k, share, n), from :func:`inner_losses` with ``R.priors``, and the
    (k index, share index) it takes from them: k at the first share, then the share at that k.
    The scripts that test a change to one of these choices start from it."""
    loss = inner_losses(R, R.ks, lambda Z, y_tr, X_te, sel, n_tr: share_log_probas(
        Z, y_tr, R.G, X_te, sel, R.priors, n_tr, R.seed)[0])
    score = loss.mean(-1)                                    # (k, share)
    ki = int(np.argmin(score[:, 0]))
    return loss, ki, int(np.argmin(score[ki]))


def scored_row(R: Replicate, scenario_name, rep, method, log_proba, **fields) -> dict:
    """One result row: the scores of ``exp(log_proba)`` against the replicate's true
    probabilities, its identity, ``fields`` and the seconds since the replicate was drawn."""
    from selbayes.experiments.plasmode import calibration_scores

    out = calibration_scores(np.exp(log_proba), R.data["p_test"])
    out.update(method=method, scenario=scenario_name, replicate=rep, **fields,
               seconds=time.perf_counter() - R.t0)
    return out


def l2_row(data, common, random_state) -> dict:
    """The protocol's rule-1 peer on one replicate: L2 logistic regression (``logreg_l2_cv``,
    seeded ``random_state``) fitted on ``data``'s training cases and scored against its true
    probabilities, as a row with the fields ``common`` and the fit's seconds."""
    import time
    import warnings

    from selbayes.experiments.plasmode import calibration_scores, make_candidate

    t0 = time.perf_counter()
    l2 = make_candidate("logreg_l2_cv", random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        l2.fit(data["X_train"], data["y_train"])
        s = calibration_scores(l2.predict_proba(data["X_test"]), data["p_test"])
    return {**common, "method": "logreg_l2_cv", **s, "seconds": time.perf_counter() - t0}


def one_option_each(scenario_name, rep, methods, option_log_probas, describe,
                    curve_field="inner_by_option", curve_names=None):
    """Rows of methods that each use one option of a predictive: method i scores option i of
    ``option_log_probas(Z, y_train, G, X_test, sel, priors, n_train, seed)``, which returns
    ((options, len(LABEL_NOISE_SHARES), m, G) log probabilities, info). Each method's k is
    the lowest mean inner loss with the share 1/(n + 2), then the share at that k (as
    ``label_noise="cv"`` chooses them); the final fits use all training cases.
    ``describe(option index, info)``: the row's extra fields; ``curve_field``: the name of
    the field holding every option's inner curve over k, keyed by ``curve_names`` (default
    the methods)."""
    R = replicate(scenario_name, rep)
    X, yi, G, ks = R.X, R.yi, R.G, R.ks
    n = X.shape[0]
    loss = inner_losses(R, ks, lambda Z, y_tr, X_te, sel, n_tr: option_log_probas(
        Z, y_tr, G, X_te, sel, R.priors, n_tr, R.seed)[0])   # (k, option, share, n)
    score = loss.mean(-1)                                        # (k, option, share)
    chosen = {}
    for oi, method in enumerate(methods):
        ki = int(np.argmin(score[:, oi, 0]))
        chosen[method] = (ki, oi, int(np.argmin(score[ki, oi])))
    outer = {}
    for ki in sorted({c[0] for c in chosen.values()}):
        Z, X_test, sel = outer_selection(R, ks[ki])
        outer[ki] = option_log_probas(Z, yi, G, X_test, sel, R.priors, n, R.seed)
    rows = []
    for method, (ki, oi, si) in chosen.items():
        lps, info = outer[ki]
        rows.append(scored_row(
            R, scenario_name, rep, method, lps[oi, si], k=int(ks[ki]), **describe(oi, info),
            share_c=LABEL_NOISE_SHARES[si], inner_score=float(score[ki, oi, si]),
            **{curve_field: {m: [float(v) for v in score[:, j, 0]]
                             for j, m in enumerate(curve_names or methods)}}))
    return rows


def naive_T(X_train, y_train, G, X_test, mean, prec, prior, eps):
    """The default's predictive from the moments: genes averaged over their own draws
    (factorised), log odds divided by the correlation temperature T of the kept training
    columns, then the label-noise share ``eps``. Returns (log probabilities (m, G), T)."""
    from selbayes.models._gaussian_plugin import (
        correlation_temperature,
        label_noise_log_proba,
        temper_log_proba,
    )
    from selbayes.models._gaussian_posterior import factorised_predictive_log_proba

    lp = factorised_predictive_log_proba(X_test, mean, prec, prior, max_draws=None)
    T = correlation_temperature(X_train, y_train, G)
    return label_noise_log_proba(temper_log_proba(lp, prior, T), prior, eps), T


def choose_and_score(scenario_name, rep, n_settings, candidate_log_probas, describe):
    """Inner-CV choice of (k, setting) for every method, then the chosen fit's scores against
    the truth. ``n_settings``: method -> number of settings; ``candidate_log_probas(Z, y,
    G, X_test, sel, priors, eps, seed)``: method -> (settings, m, G) log probabilities (and
    ``"_T"``); ``describe(method, setting index, log probas)``: the row's extra fields."""
    from selbayes.models._gaussian_plugin import default_label_noise

    R = replicate(scenario_name, rep)
    n = R.X.shape[0]
    loss = {m: np.zeros((len(R.ks), s, n)) for m, s in n_settings.items()}
    for tr, te in R.folds:
        eps = default_label_noise(tr.size)
        for ki, (Z, feats, sel) in enumerate(selections(R, tr, R.ks)):
            lps = candidate_log_probas(Z, R.yi[tr], R.G, feats.selected(R.X[te], sel.indices),
                                       sel, R.priors, eps, R.seed)
            for m in n_settings:
                loss[m][ki][:, te] = -lps[m][:, np.arange(te.size), R.yi[te]]
    fits = {}
    for m in n_settings:
        score = loss[m].mean(-1)                                   # (k, settings)
        ki, si = np.unravel_index(np.argmin(score), score.shape)
        fits[m] = (R.ks[ki], si, float(score[ki, si]))
    rows = []
    eps = default_label_noise(n)
    everything = np.arange(n)
    for k in sorted({f[0] for f in fits.values()}):
        (Z, feats, sel), = selections(R, everything, [k])
        lps = candidate_log_probas(Z, R.yi, R.G, feats.selected(R.data["X_test"], sel.indices),
                                   sel, R.priors, eps, R.seed)
        for m in n_settings:
            if fits[m][0] != k:
                continue
            si = fits[m][1]
            rows.append(scored_row(
                R, scenario_name, rep, m, lps[m][si], k=int(k), inner_score=fits[m][2],
                **describe(m, si, lps),
                inner_curve={str(kk): [float(s) for s in loss[m][i].mean(-1)]
                             for i, kk in enumerate(R.ks)}))
    return rows


def _progress(row, fields) -> str:
    """A result row's progress text: its method, ``fields`` as name=value, KL and slope."""
    def shown(v):
        return f"{v:.3g}" if isinstance(v, float) else str(v)
    return " ".join([str(row.get("method", "")),
                     *(f"{f}={shown(row[f])}" for f in fields if f in row),
                     *(f"{m}={row[m]:.3f}" for m in ("kl", "slope") if m in row)]).strip()


def run_all(one_replicate, path, fields=(), jobs=None, scenarios=SCENARIO_NAMES) -> int:
    """Every (scenario, replicate) of ``scenarios`` not yet in ``path`` (results.jsonl)
    through ``one_replicate`` (a row or a list of rows), ``jobs`` processes (None: the
    script's first argument, else 2), appending each replicate's rows as it finishes; the
    progress line shows each row's method, ``fields``, KL and slope."""
    if jobs is None:
        jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from joblib import Parallel, delayed

    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            done.add((r["scenario"], r["replicate"]))
    todo = [(s, r) for s in scenarios for r in range(REPLICATES) if (s, r) not in done]
    print(f"{len(done)} replicates done, {len(todo)} to run", flush=True)
    for rows in Parallel(n_jobs=jobs, return_as="generator_unordered")(
            delayed(one_replicate)(s, r) for s, r in todo):
        rows = [rows] if isinstance(rows, dict) else rows
        with path.open("a") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
        print(f"{rows[0]['scenario']} {rows[0]['replicate']}: "
              + "; ".join(_progress(r, fields) for r in rows), flush=True)
    return 0


def control_cells(rows, methods, control, scenario):
    """Paired KL differences against ``control`` in one scenario, as table cells
    ("+0.012 ± 0.004", * beyond 2 SE), and where the first method stands: "better" or
    "worse" beyond 2 SE, or None. ``rows``: :func:`paired.read_rows`' mapping."""
    import paired

    cells, where = [], None
    for i, m in enumerate(methods):
        d, se, _ = paired.paired(rows, m, control, scenario, "kl")
        cells.append(f"{d:+.3f} ± {se:.3f}" + ("*" if abs(d) > 2 * se else ""))
        if i == 0:
            where = "better" if d < -2 * se else "worse" if d > 2 * se else None
    return cells, where


def median_slopes(rows, methods, scenario, reps) -> dict:
    """method -> its median calibration slope over ``reps`` (a mean is carried by single
    collapsed replicates)."""
    return {m: sorted(rows[(m, scenario, r)]["slope"] for r in reps)[len(reps) // 2]
            for m in methods}


def per_replicate(rows, control, candidate, scenario, reps, field, fmt="{}") -> str:
    """A table cell "a->b, c->d, ...": ``field`` of ``control`` -> ``candidate`` in each
    replicate of ``reps`` (each value written with ``fmt``)."""
    return ", ".join(f"{fmt.format(rows[(control, scenario, r)][field])}->"
                     f"{fmt.format(rows[(candidate, scenario, r)][field])}" for r in reps)


def control_verdict(candidate, better, worse) -> list[str]:
    """The control rule's closing lines: where the candidate is better or worse than its
    control beyond 2 SE, and whether that is promising (better somewhere, worse nowhere)."""
    return ["", f"- {candidate} better than its control beyond 2 SE in: "
            f"{', '.join(better) or 'none'}; worse in: {', '.join(worse) or 'none'}.",
            "- Verdict (README's rule): " + (
                "**promising**: build it into the estimator and run the protocol."
                if better and not worse else "**not promising** by the rule.")]


def control_section(rows, candidate, other, control, intro, header, align, extra_cells,
                    after=()) -> list[str]:
    """The report's section of the control rule: a table with one row per scenario (its
    replicates, the KL differences of ``candidate`` and ``other`` against ``control``, then
    ``extra_cells(scenario, replicates)``), the lines ``after`` it, and the verdict.
    ``intro``: the paragraph above the table; ``header``, ``align``: its first two lines."""
    import paired

    lines = ["", f"## The rule of this check: {candidate} against its control {control}", "",
             intro, "", header, align]
    found = {"better": [], "worse": []}
    for s in paired.scenarios_of(rows, candidate):
        cells, where = control_cells(rows, (candidate, other), control, s)
        if where:
            found[where].append(s)
        reps = sorted(r for (m, ss, r) in rows if m == candidate and ss == s)
        lines.append("| " + " | ".join([s, str(len(reps)), *cells, *extra_cells(s, reps)])
                     + " |")
    return lines + list(after) + control_verdict(candidate, found["better"], found["worse"])


def changes(field, fmt="{}"):
    """A column of :func:`control_report`: ``field`` control -> candidate per replicate."""
    return lambda rows, control, candidate, s, reps: per_replicate(rows, control, candidate, s,
                                                                   reps, field, fmt)


def counts(field):
    """A column of :func:`control_report`: how often the candidate took each value of
    ``field`` ("a: 4, b: 2")."""
    from collections import Counter

    def cell(rows, control, candidate, s, reps):
        seen = Counter(rows[(candidate, s, r)][field] for r in reps)
        return ", ".join(f"{o}: {m}" for o, m in sorted(seen.items()))
    return cell


def stack_columns(stack, choose) -> dict:
    """The :func:`control_report` columns of the checks that stack or choose a second model
    beside the default (``../linear_component_probe/``'s rows): ``"weight"``, the stack's
    weight on the default per replicate, and ``"chosen"``, how often the choice took each."""
    def weight(rows, control, candidate, s, reps):
        return ", ".join(f"{rows[(stack, s, r)]['weight']:.2f}" for r in reps)

    def chosen(rows, control, candidate, s, reps):
        return counts("chose")(rows, control, choose, s, reps)
    return {"weight": weight, "chosen": chosen}


def control_report(here, candidate, control, title, intro, columns, *, other=None,
                   more_candidates=()) -> None:
    """The whole report of an offline check: the candidate against the default by the
    protocol's rules (``paired.against_noise_cv_default``), then the check's own section (the
    control rule: one row per scenario with the KL differences, the median slopes and
    ``columns``), written to ``here/report.md``. ``columns``: (header, cell) pairs, ``cell(rows,
    control, candidate, scenario, replicates)`` a string; ``other``: a second method whose KL
    difference to the control is shown in place of the control's own (0);
    ``more_candidates``: (candidate, other) pairs that the rule judges as well, each with its
    own section after the first."""
    import paired

    shown = (control,) if other is None else (control, other)
    text = paired.against_noise_cv_default(here, candidate, title, also_shown=shown)
    rows = paired.read_rows(here / "results.jsonl")

    for cand, oth in ((candidate, other), *more_candidates):
        def extra(s, reps, cand=cand):
            med = median_slopes(rows, (control, cand), s, reps)
            return [f"{med[control]:.2f}", f"{med[cand]:.2f}",
                    *(cell(rows, control, cand, s, reps) for _, cell in columns)]

        second = "(control)" if oth is None else f"KL {oth} - control"
        header = (f"| scenario | n | KL {cand} - control | {second} | slope control "
                  f"| slope {cand} | " + " | ".join(h for h, _ in columns) + " |")
        align = "|---|---:|---:|---:|---:|---:|" + "---|" * len(columns)
        text += "\n".join(control_section(rows, cand, oth or control, control, intro,
                                          header, align, extra)) + "\n"
    write_report(here, text)


def load_script(path, name):
    """The script at ``path`` as a module named ``name``: another check's ``run.py`` or
    ``compare.py``, whose file name is the importing script's own."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write_report(here, text) -> None:
    """Write ``text`` to ``here/report.md`` and print it."""
    (here / "report.md").write_text(text)
    print(text, end="")
