"""The candidate of README.md, ``three_way`` (the default stack, with L1 logistic regression as
a third model only where cross-validation of the weights on the inner cases shows it gains
beyond 2 SE), scored from the default's stored fits (no MCMC): T1-T3 on the 66 fits of
``../sharpened_pool/fits/`` (run seed 0; ``results.jsonl``), T5 on the 30 of
``../kept_genes_probit/seed1/fits/`` (run seed 1; ``seed1/results.jsonl``) and T6 on the 30 of
``../default_seed7/fits/`` (run seed 7; ``seed7/results.jsonl``). Also ``linear_refit``, the
default's two-way pool recomputed from the same stored log probabilities. The third component
is ``../l1_stack/``'s L1 logistic regression.

Run from the repository root: ``python reports/plasmode/gated_l1_stack/run.py [jobs]``
(resumes from the three files).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the resumable parallel run)
import paired  # noqa: E402  (reports/plasmode/paired.py: read_rows)
import third_component  # noqa: E402  (reports/plasmode/third_component.py: the scoring)

#: The gate: L1 enters where its cross-validated inner gain is beyond this many SE.
GATE_Z = 2.0
SEED7 = HERE.parent / "default_seed7"


def _l1_stack():
    return offline.load_script(HERE.parent / "l1_stack" / "run.py", "l1_stack_run")


def gated_weights(A3, yi, random_state):
    """README.md's weights (a ``third_component`` weights function): on each of the Gaussian
    model's inner folds (re-made from ``random_state``) the two-way and the three-way stacking
    weights are fitted on the other folds' cases and both pools score the fold's cases; ``d``
    the per-case difference of log scores three-way - two-way. Where mean(d) exceeds
    ``GATE_Z`` standard errors (sd(d) / sqrt(n), cases as the unit), the three-way weights
    fitted on all inner cases; otherwise the two-way ones with L1 at 0. On a fold where the
    three-way weights give L1 0 the two pools are the same and d is 0 there. Fields:
    ``gate_gain`` (mean d, nats per case), ``gate_z``, ``gate_open``.

    Since its adoption this is the package's own gate (``LinearStackedClassifier``'s
    ``_gated_weights``, written from this definition; the results here regenerate
    identically through it)."""
    from selbayes.estimators._linear_stack import _gated_weights

    w, gate = _gated_weights(A3, yi, third_component.inner_folds(yi, random_state), GATE_Z)
    return w, {"gate_gain": gate["gain"], "gate_z": gate["z"], "gate_open": gate["open"]}


def _rows(name, rep, seed, fits, k) -> list:
    l1 = _l1_stack()
    return third_component.stored_rows(name, rep, seed, fits, k, l1.l1_logistic, "l1",
                                       extra=l1.uniform_folds, weights=gated_weights)


def seed0_replicate(name: str, rep: int) -> list:
    return _rows(name, rep, 0, _l1_stack().SEED0_FITS, _l1_stack().seed0_k(name, rep))


def seed1_replicate(name: str, rep: int) -> list:
    return _rows(name, rep, 1, _l1_stack().SEED1 / "fits", _l1_stack().seed1_k(name, rep))


def seed7_replicate(name: str, rep: int) -> list:
    k = int(paired.read_rows(SEED7 / "results.jsonl")[("default", name, rep)]["k"])
    return _rows(name, rep, 7, SEED7 / "fits", k)


def main() -> int:
    lp = offline.load_script(HERE.parent / "log_pool" / "run.py", "log_pool_run")
    fields = ("l1_weight", "gate_z", "k", "fold_check", "l1_uniform_folds")
    offline.run_all(seed0_replicate, HERE / "results.jsonl", fields,
                    scenarios=lp.SUITE + lp.HOLDOUT + lp.THREE_CLASS)
    for sub, one in (("seed1", seed1_replicate), ("seed7", seed7_replicate)):
        (HERE / sub).mkdir(exist_ok=True)
        offline.run_all(one, HERE / sub / "results.jsonl", fields, scenarios=lp.SUITE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
