"""The commands that run the package's own work: ``selbayes demo``, ``selbayes reproduce
SPEC``, ``selbayes sbc SPEC`` and ``selbayes cache info|clear``."""

from __future__ import annotations

from pathlib import Path


def _cmd_demo(args) -> int:
    from ..demo import run_demo

    return run_demo(out=args.out, data=args.data, quick=args.quick, seed=args.seed)


def _verdict_of_report(report: Path) -> str | None:
    """"PASS" / "FAIL" from a reproduction report's ``**Overall: ...**`` line, else None."""
    try:
        text = report.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if "Overall:" in line:
            return "PASS" if "PASS" in line.split("Overall:", 1)[1] else "FAIL"
    return None


def _cmd_reproduce(args) -> int:
    from ..experiments import run_reproduction

    res = run_reproduction(args.spec, out=args.out, quick=args.quick, n_jobs=args.jobs,
                           scheduler=args.scheduler, progressbar=not args.no_progress,
                           update_report=args.update_report)
    report = Path(res.report_path)
    verdict = _verdict_of_report(report)
    print(f"report: {report}")
    print(f"verdict: {verdict or 'no acceptance criteria in the report'}")
    return 1 if verdict == "FAIL" else 0


def _cmd_sbc(args) -> int:
    from ..experiments import default_out, resume_message
    from ..sbc._spec import load_sbc_spec, run_sbc_spec

    spec = load_sbc_spec(args.spec, quick=args.quick)
    # A given --out is used as is; the default folders are the reproductions' (default_out)
    out = Path(args.out) if args.out is not None else default_out(spec, args.update_report)
    replicates = out / "replicates"
    n_total = int(spec["sbc"]["n_replicates"]) if hasattr(spec, "__getitem__") else 0
    found = len(list(replicates.glob("rep_*.json"))) if replicates.is_dir() else 0
    message = resume_message(replicates, min(found, n_total) if n_total else found,
                             n_total or found, "replicates")
    if message:
        print(message)
    result = run_sbc_spec(args.spec, out=out if args.out is None else args.out,
                          quick=args.quick, n_jobs=args.jobs, scheduler=args.scheduler,
                          progressbar=not args.no_progress)
    summary = result.summary()
    # Uncorrected posteriors are expected to be miscalibrated; the verdict is the others'.
    judged = [name for name in summary.index if not str(name).endswith("_uncorrected")]
    failed = [name for name in judged if not bool(summary.loc[name, "passed"])]
    print(f"report: {out / 'README.md'}")
    if failed:
        print(f"verdict: FAIL (ranks not uniform for {', '.join(map(str, failed))})")
        return 1
    print(f"verdict: PASS ({len(judged)} parameters calibrated; uncorrected ones not judged)")
    return 0


def _cmd_cache(args) -> int:
    from .. import _compile_cache as cc

    if args.action == "info":
        info = cc.cache_info()
        print(f"cache folder: {info['path']} (set SELBAYES_CACHE_DIR to move it)")
        print(f"compiled models: {info['models']}")
        print(f"total size: {info['bytes'] / 2**20:.1f} MiB")
        for name, size in info["folders"].items():
            print(f"  {name}/: {size / 2**20:.1f} MiB")
        if info["other"]:
            shown = ", ".join(info["other"][:5]) + (", ..." if len(info["other"]) > 5 else "")
            print(f"also in that folder, not selbayes's (left alone by 'cache clear'): {shown}")
        if info["bytecode"] == "missing":
            print("Python bytecode of the dependencies: missing, and not written here "
                  "(PYTHONDONTWRITEBYTECODE), so every new process compiles pymc, scipy, "
                  "pandas, ... again (about 5 s each); reinstall with pip, or with "
                  "`uv pip install --compile-bytecode`")
        else:
            print(f"Python bytecode of the dependencies: {info['bytecode']}")
    else:
        n = cc.clear_cache()
        print(f"removed {n} files from {cc.cache_dir()} ({', '.join(cc.OWN_FOLDERS)})")
        other = cc.cache_info()["other"]
        if other:
            shown = ", ".join(other[:5]) + (", ..." if len(other) > 5 else "")
            print(f"left alone, not selbayes's: {shown}")
    return 0
