"""The ``selbayes`` command line."""

from __future__ import annotations

import argparse
import sys

from ._version import __version__


def _cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(out=args.out, data=args.data, quick=args.quick, seed=args.seed)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="selbayes",
        description="Bayesian classification with a selected subset of features, "
        "calibrated by conditioning on the selection.",
    )
    parser.add_argument("--version", action="version", version=f"selbayes {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="fit corrected and uncorrected models on simulated data")
    demo.add_argument("--out", default="demo_output", help="folder for the plot (default: %(default)s)")
    demo.add_argument("--data", default=None, choices=[None, "simulated", "srbct"],
                      help="dataset (default: simulated)")
    demo.add_argument("--quick", action="store_true", help="smaller design, for tests")
    demo.add_argument("--seed", type=int, default=2009, help="random seed (default: %(default)s)")
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
