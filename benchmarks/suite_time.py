"""Where ``make test``'s time goes: the fast suite run twice, back to back, with empty caches
(as in a clean clone) and again with the caches the first run filled.

Writes ``benchmarks/results/suite_time.md``: each run's wall and CPU seconds, the models
nutpie compiled in the first run (the test that compiled each, its seconds and free
variables), and the test files and tests whose time grew most with empty caches. The
virtualenv is this one, so the install is not in it (``make test`` from a clean clone adds
it). Not part of ``make bench`` (about 10 minutes on 2 cores). Run from the repository root:
``python benchmarks/suite_time.py``.
"""

from __future__ import annotations

import collections
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _notes import run_line, write_results

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "suite_time.md"
PYTEST = ["-m", "pytest", "-m", "not slow", "-q", "-n", "2", "--dist", "loadfile",
          "-p", "no:cacheprovider", "-p", "_suite_time_plugin"]


def run(cache: Path, log: Path) -> dict:
    env = {**os.environ, "SELBAYES_CACHE_DIR": str(cache), "SUITE_TIME_LOG": str(log),
           "PYTENSOR_FLAGS": f"base_compiledir={cache}/pytensor,"
                             f"generated_src_dir={cache}/generated_src",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "benchmarks"),
                                                       os.environ.get("PYTHONPATH")]))}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *PYTEST], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-500:]
    events = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return {"wall": wall, "cpu": (after.ru_utime - before.ru_utime)
            + (after.ru_stime - before.ru_stime), "summary": last, "rc": proc.returncode,
            "events": events}


def per(events, key) -> dict:
    out = collections.defaultdict(float)
    for e in events:
        if e["event"] == "test":
            out[key(e["test"])] += e["seconds"]
    return out


def main() -> int:
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        print("suite with empty caches ...", flush=True)
        cold = run(cache, Path(tmp) / "cold.jsonl")
        print("suite with the caches it filled ...", flush=True)
        warm = run(cache, Path(tmp) / "warm.jsonl")
    lines = ["# Where make test's time goes: empty caches against warm ones", "",
             run_line("python benchmarks/suite_time.py", t_start), "",
             "The suite as `make test` runs it, without the install. One run each, back to "
             "back; the host's speed varies, so compare within this file.", "",
             "| caches | wall (s) | CPU (s) | pytest's summary |", "|---|---|---|---|"]
    for name, r in (("empty (a clean clone)", cold), ("warm (the second run)", warm)):
        lines.append(f"| {name} | {r['wall']:.0f} | {r['cpu']:.0f} | {r['summary']} |")
    compiles = [e for e in cold["events"] if e["event"] == "compile"]
    lines += ["", f"## Models nutpie compiled with empty caches: {len(compiles)}, "
              f"{sum(e['seconds'] for e in compiles):.0f} s of one core", "",
              "| seconds | test | free variables |", "|---|---|---|"]
    for e in sorted(compiles, key=lambda e: -e["seconds"]):
        lines.append(f"| {e['seconds']:.1f} | `{e['test']}` | {', '.join(e['free'])} |")
    again = [e for e in warm["events"] if e["event"] == "compile"]
    lines += ["", f"With warm caches: {len(again)} compiled.", ""]
    for title, key in (("test files", lambda t: t.split("::")[0]), ("tests", lambda t: t)):
        c, w = per(cold["events"], key), per(warm["events"], key)
        lines += [f"## The {title} whose time grew most with empty caches", "",
                  "| empty caches (s) | warm (s) | |", "|---|---|---|"]
        for k in sorted(c, key=lambda k: -(c[k] - w.get(k, 0.0)))[:15]:
            lines.append(f"| {c[k]:.1f} | {w.get(k, 0.0):.1f} | `{k}` |")
        lines.append("")
    c, w = per(cold["events"], lambda t: t), per(warm["events"], lambda t: t)
    lines += ["## The slowest tests with warm caches", "", "| seconds | test |", "|---|---|"]
    for k in sorted(w, key=lambda k: -w[k])[:15]:
        lines.append(f"| {w[k]:.1f} | `{k}` |")
    lines += ["", f"Sum of test times: {sum(c.values()):.0f} s with empty caches, "
              f"{sum(w.values()):.0f} s warm (over both workers).", ""]
    write_results(OUT, lines)
    return 1 if cold["rc"] or warm["rc"] else 0


if __name__ == "__main__":
    sys.exit(main())
