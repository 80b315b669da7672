"""The confirmation rule of README.md (written before the run, with this script) for the stack
of the EP component beside the default (``stack_blep`` against ``pi_noise_cv``): the suite's
scenarios with run seed 1 and the held-out scenarios with run seed 0, with the component alone
(``blep``) beside.

Usage (from the repository root): ``python reports/plasmode/bayes_linear_ep_confirm/compare.py``.
Reads ``results.jsonl`` beside this script; writes ``report.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import offline  # noqa: E402  (reports/plasmode/offline.py: the control rule's sections)
import paired  # noqa: E402  (reports/plasmode/paired.py: rows, paired differences)

CANDIDATE, CONTROL, OTHER = "stack_blep", "pi_noise_cv", "blep"


def main() -> None:
    rows = paired.read_rows(HERE / "results.jsonl")

    def extra(s, reps):
        med = offline.median_slopes(rows, (CONTROL, CANDIDATE), s, reps)
        mean = {m: sum(rows[(m, s, r)]["kl"] for r in reps) / len(reps)
                for m in (CONTROL, CANDIDATE, OTHER)}
        return [f"{med[CONTROL]:.2f}", f"{med[CANDIDATE]:.2f}",
                f"{mean[CONTROL]:.3f}", f"{mean[CANDIDATE]:.3f}", f"{mean[OTHER]:.3f}",
                ", ".join(f"{rows[(CANDIDATE, s, r)]['weight']:.2f}" for r in reps)]

    header = (f"| scenario | n | KL {CANDIDATE} - control | KL {OTHER} - control | slope "
              f"control | slope {CANDIDATE} | KL control | KL {CANDIDATE} | KL {OTHER} | "
              "weight on the default |")
    align = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    lines = ["# The stack of the EP component beside the default on new replicates and "
             "held-out X", "",
             "Made by `compare.py`; the rule is README.md's, written before the run. Paired "
             "over the replicates, mean ± SE, * beyond 2 SE; slopes are medians.", ""]
    found = {}
    for title, keep in (("Suite scenarios, run seed 1",
                         lambda s: not s.startswith("holdout")),
                        ("Held-out scenarios, run seed 0", lambda s: s.startswith("holdout"))):
        sub = {key: r for key, r in rows.items() if keep(key[1])}
        section = offline.control_section(sub, CANDIDATE, OTHER, CONTROL, title, header,
                                          align, extra)
        lines += section[1:-1]      # the generic verdict line is replaced by the one below
        where = [offline.control_cells(sub, (CANDIDATE,), CONTROL, s)[1]
                 for s in paired.scenarios_of(sub, CANDIDATE)]
        found[title] = (where.count("better"), where.count("worse"))
    (b1, w1), (_, w2) = found.values()
    confirmed = b1 >= 1 and w1 == 0 and w2 == 0
    lines += ["", "## Verdict (README's rule)", "",
              f"- Suite, run seed 1: better beyond 2 SE in {b1} scenario(s), worse in {w1}.",
              f"- Held-out scenarios: worse beyond 2 SE in {w2}.",
              "- " + ("**Confirmed**: the package build and the protocol with MCMC are next."
                      if confirmed else "**Not confirmed**: the component is not pursued.")]
    offline.write_report(HERE, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
