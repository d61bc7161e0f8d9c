"""Command line: ``python -m opendp_duff.experiments <name> [--quick] [--out DIR]``, or
``python -m opendp_duff.experiments --from-json FILE.json [...]`` to re-render saved runs."""
from __future__ import annotations

import argparse
import importlib
import shlex
import sys
from collections.abc import Sequence

from ..features import enable_features
from . import EXPERIMENTS
from ._common import read_json
from ._runner import Options, rerender, run


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``), run or re-render; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m opendp_duff.experiments",
                                     description="Reproduce the papers' experiments.")
    parser.add_argument("name", nargs="?", choices=sorted(EXPERIMENTS) + ["all"])
    parser.add_argument("--quick", action="store_true", help="reduced scale (a smoke test)")
    parser.add_argument("--out", default=None,
                        help="output directory (default: results, or the JSON file's directory with --from-json)")
    parser.add_argument("--data-seed", type=int, default=5, help="seed of the synthetic data (default 5)")
    parser.add_argument("--seeded-noise", type=int, default=None, metavar="SEED",
                        help="use the seeded, INSECURE test generator for the mechanisms' noise "
                             "(reproducible runs; turns the feature insecure-randomness on, and every "
                             "output says so)")
    parser.add_argument("--source", choices=("auto", "sklearn", "synthetic"), default="auto",
                        help="real-medians only: scikit-learn's breast-cancer data if installed "
                             "(auto), or the synthetic stand-in")
    parser.add_argument("--no-plots", action="store_true", help="write tables only")
    parser.add_argument("--from-json", nargs="+", metavar="FILE",
                        help="re-render the tables and figures of saved runs (their .json files) "
                             "without computing anything")
    args = parser.parse_args(argv)
    if args.from_json:
        if args.name is not None:
            parser.error("give either an experiment name or --from-json, not both")
        for path in args.from_json:
            module = importlib.import_module(EXPERIMENTS[read_json(path)["meta"]["experiment"]])
            rerender(module, path, args.out, plots=not args.no_plots)
        return 0
    if args.name is None:
        parser.error("an experiment name (or --from-json) is required")
    if args.seeded_noise is not None:   # the flag is the consent: seeded noise is not private
        enable_features("insecure-randomness")
    names = sorted(EXPERIMENTS) if args.name == "all" else [args.name]
    for name in names:
        command = "python -m opendp_duff.experiments " + " ".join(
            shlex.quote(a) for a in ([name] + _flags(args)))
        extra = {"source": args.source} if name == "real-medians" else {}
        run(importlib.import_module(EXPERIMENTS[name]),
            Options(args.out or "results", args.quick, args.data_seed, args.seeded_noise, not args.no_plots,
                    command, extra))
    return 0


def _flags(args: argparse.Namespace) -> list[str]:
    """The options of ``args`` that differ from the defaults, as command-line flags."""
    flags = ["--quick"] if args.quick else []
    flags += ["--out", args.out or "results"]
    if args.data_seed != 5:
        flags += ["--data-seed", str(args.data_seed)]
    if args.seeded_noise is not None:
        flags += ["--seeded-noise", str(args.seeded_noise)]
    if args.source != "auto":
        flags += ["--source", args.source]
    if args.no_plots:
        flags.append("--no-plots")
    return flags


if __name__ == "__main__":
    sys.exit(main())
