"""Run every benchmark script (benchmarks/bench_*.py); each writes benchmarks/results/<topic>.md.

Usage: ``make bench`` or ``python benchmarks/run_all.py [name ...]`` (names without ``bench_``).
Speed claims are ratios measured within one run on one machine; never timed assertions.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in argv]
    failed = []
    for script in scripts:
        t0 = time.perf_counter()
        print(f"== {script.name}", flush=True)
        rc = subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
        print(f"   exit {rc} after {time.perf_counter() - t0:.0f} s", flush=True)
        if rc:
            failed.append(script.name)
    if failed:
        print("failed:", ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
