"""Command line: ``python -m opendp_duff.experiments <name> [--quick] [--out DIR]``."""
import argparse
import importlib
import shlex
import sys

from . import EXPERIMENTS


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m opendp_duff.experiments",
                                     description="Reproduce the papers' experiments.")
    parser.add_argument("name", choices=sorted(EXPERIMENTS) + ["all"])
    parser.add_argument("--quick", action="store_true", help="reduced scale (a smoke test)")
    parser.add_argument("--out", default="results", help="output directory (default: results)")
    parser.add_argument("--data-seed", type=int, default=5, help="seed of the synthetic data (default 5)")
    parser.add_argument("--seeded-noise", type=int, default=None, metavar="SEED",
                        help="use the seeded, INSECURE test generator for the mechanisms' noise "
                             "(reproducible runs; labelled in the outputs)")
    parser.add_argument("--source", choices=("auto", "sklearn", "synthetic"), default="auto",
                        help="real-medians only: scikit-learn's breast-cancer data if installed "
                             "(auto), or the synthetic stand-in")
    parser.add_argument("--no-plots", action="store_true", help="write tables only")
    args = parser.parse_args(argv)
    names = sorted(EXPERIMENTS) if args.name == "all" else [args.name]
    for name in names:
        module = importlib.import_module(EXPERIMENTS[name])
        command = "python -m opendp_duff.experiments " + " ".join(
            shlex.quote(a) for a in ([name] + _flags(args)))
        extra = {"source": args.source} if name == "real-medians" else {}
        module.run(args.out, quick=args.quick, data_seed=args.data_seed, noise_seed=args.seeded_noise,
                   plots=not args.no_plots, command=command, **extra)
    return 0


def _flags(args):
    flags = ["--quick"] if args.quick else []
    flags += ["--out", args.out]
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
