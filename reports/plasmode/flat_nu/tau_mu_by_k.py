"""The mode of tau_mu by k on centred and uncentred features, under the normal and the flat
prior on the feature means: the finding behind this folder's change.

Usage (from the repository root): ``python reports/plasmode/flat_nu/tau_mu_by_k.py``
(seconds). Writes ``tau_mu_by_k.md`` beside this script.

Data: two replicates of a simulation from the model (``selbayes.experiments.plasmode``'s
generator): n = 80 training cases, p = 2000 independent unit-variance features, every feature
with a class-mean difference drawn from N(0, 0.085^2), so under the normal prior on the class
means tau_mu = 2 / 0.085^2 = 278. The plug-in mode (``selbayes.models.plugin_posterior``,
normal prior, corrected) at k = 100 to 1900 should stay near 278 at every k.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
KS = (100, 500, 1000, 1900)


def main() -> None:
    import selbayes
    from selbayes.experiments.plasmode import Scenario, make_replicate
    from selbayes.models import GaussianPriors, plugin_posterior

    sc = Scenario("all_features_normal", "simulation", n_train=80, p=2000, n_effects=2000,
                  effect_sd=0.085, model_holds=True)
    lines = ["# Mode of tau_mu by k (truth 278)", "",
             "Made by `tau_mu_by_k.py` (its docstring has the data). Plug-in mode of tau_mu, "
             "normal prior on the class means, selection-corrected.", "",
             "| replicate | features | prior on nu | " + " | ".join(f"k = {k}" for k in KS)
             + " |", "|---|---|---|" + "---:|" * len(KS)]
    for rep in range(2):
        data = make_replicate(sc, rep)
        X, y = data["X_train"], data["y_train"]
        for centred in (False, True):
            for flat in (False, True):
                priors = GaussianPriors(alpha_nu=None) if flat else GaussianPriors()
                cells = []
                for k in KS:
                    sel = selbayes.select_features(X, y, k=k)
                    Xs = X[:, sel.indices]
                    Xs = Xs - Xs.mean(axis=0) if centred else Xs
                    post = plugin_posterior(Xs, y, sel, priors, corrected=True,
                                            n_draws=2, random_state=0)
                    cells.append(f"{post['tau_mu']:.0f}")
                lines.append(f"| {rep} | {'centred' if centred else 'as simulated'} | "
                             f"{'flat' if flat else 'normal'} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    (HERE / "tau_mu_by_k.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
