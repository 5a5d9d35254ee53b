"""The argument parser of the ``smartigan`` command."""

from __future__ import annotations

import argparse
from typing import Callable, Union

from .._core import __version__
from .._params import (
    AUTO_N_INIT_LARGE,
    AUTO_N_INIT_SMALL,
    DEFAULT_INIT,
    DEFAULT_MAX_ITER,
    DEFAULT_METHOD,
    DEFAULT_N_INIT,
    DEFAULT_N_ITER,
    AUTO_TOL_LARGE,
    DEFAULT_TOL,
    INITS,
    METHODS,
)
from . import commands
from .readers import FORMATS

__all__ = ["build_parser"]

# The named starts, the default first (as --help lists them).
_INIT_CHOICES = (DEFAULT_INIT,) + tuple(name for name in INITS if name != DEFAULT_INIT)


def _n_init_arg(text: str) -> Union[int, str]:
    return "auto" if text == "auto" else _positive(text)


def _integer(text: str, expected: str, valid: Callable[[int], bool]) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not valid(v):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {v}")
    return v


def _positive(text: str) -> int:
    return _integer(text, "a positive integer", lambda v: v >= 1)


def _tol(text: str) -> Union[float, str]:
    if text == "auto":
        return text
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0 or 'auto', got {text!r}") from None
    if not (v >= 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text}")
    return v


def _seed(text: str) -> int:
    return _integer(text, "an integer in [0, 2**64)", lambda v: 0 <= v < 2**64)


def _add_data_options(p: argparse.ArgumentParser, method: bool) -> None:
    p.add_argument("data", help="CSV (delimiter and header detected), .npy or .parquet file, one point per row")
    p.add_argument("-k", type=_positive, required=True, help="number of clusters")
    if method:
        p.add_argument("--method", default=DEFAULT_METHOD, choices=METHODS,
                       help=f"algorithm (default {DEFAULT_METHOD})")
    p.add_argument("--init", default=DEFAULT_INIT, choices=_INIT_CHOICES,
                   help=f"how each restart starts (default {DEFAULT_INIT})")
    p.add_argument("--n-iter", type=_positive, default=None,
                   help=f"Smartigan's schedule length (default {DEFAULT_N_ITER}); for lloyd and "
                        f"hartigan a cap on iterations/sweeps (default {DEFAULT_MAX_ITER})")
    p.add_argument("--n-init", type=_n_init_arg, default=DEFAULT_N_INIT,
                   help="restarts, run in parallel; the best is kept (default auto: "
                        f"{AUTO_N_INIT_SMALL} while n*d*k <= 2**20, else {AUTO_N_INIT_LARGE})")
    p.add_argument("--tol", type=_tol, default=DEFAULT_TOL,
                   help="stop a descent once a step lowers the objective by at most TOL times the objective "
                        f"(default auto: 0, until no point moves, while n*d*k <= 2**20, else {AUTO_TOL_LARGE})")
    p.add_argument("--no-refine", dest="refine", action="store_false",
                   help="skip the merge-split refinement after convergence (the paper's methods as printed)")
    p.add_argument("--seed", type=_seed, default=None, help="seed in [0, 2**64) (default: random, printed)")
    p.add_argument("--threads", type=_positive, default=None, help="threads (default: all cores)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the clustering and objective per sweep (needs matplotlib)")
    p.add_argument("--input-format", default="auto", choices=("auto",) + FORMATS,
                   help="format of DATA (default: from the suffix; anything but .npy/.parquet is CSV)")
    p.add_argument("--columns", metavar="COLS", help="comma-separated column names or 0-based indices to use")
    p.add_argument("--header", default="auto", choices=("auto", "yes", "no"),
                   help="whether the CSV's first row is a header (default: detected)")
    p.add_argument("--delimiter", help="CSV delimiter (default: detected among , TAB ; | and whitespace)")
    p.add_argument("--progress", default="auto", choices=("auto", "always", "never"),
                   help="progress bar on stderr (default: on a terminal, for runs longer than half a second)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``smartigan`` command.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["fit", "data.csv", "-k", "3", "--method", "lloyd"])
    >>> args.k, args.method, args.format
    (3, 'lloyd', 'csv')
    """
    parser = argparse.ArgumentParser(
        prog="smartigan",
        description="k-means that actually minimises the objective: Lloyd, Hartigan and Smartigan.",
        epilog="Exit status: 0 success, 2 usage or data error, 130 interrupted, 141 output pipe closed.",
    )
    parser.add_argument("--version", action="version", version=f"smartigan {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{demo,fit,compare}")

    demo = sub.add_parser("demo", help="the paper's Table 1 on the embedded Iris data (about a second)")
    demo.add_argument("--runs", type=_positive, default=500, help="runs per cell (default 500, as in the paper)")
    demo.add_argument("-k", type=_positive, nargs="+", default=[3, 5, 10, 20], help="cluster counts (default 3 5 10 20)")
    demo.add_argument("--seed", type=_seed, default=0)
    demo.set_defaults(func=commands.demo)

    fit = sub.add_parser("fit", help="cluster a CSV, .npy or Parquet file",
                         description="Cluster the rows of DATA and print a summary.")
    _add_data_options(fit, method=True)
    fit.add_argument("--out", metavar="PREFIX", help="write PREFIX.labels.EXT and PREFIX.centroids.EXT; "
                                                     "a directory (DIR/ or an existing one): DIR/labels.EXT "
                                                     "and DIR/centroids.EXT")
    fit.add_argument("--format", default="csv", choices=FORMATS,
                     help="format of the --out files (default csv; parquet needs pyarrow)")
    fit.set_defaults(func=commands.fit)

    cmp_ = sub.add_parser("compare", help="Lloyd, Hartigan and Smartigan side by side from the same starts",
                          description="Run several methods with the same seed, hence the same starting "
                                      "partitions, and compare their objectives restart by restart.")
    _add_data_options(cmp_, method=False)
    cmp_.add_argument("--methods", default=",".join(METHODS),
                      help=f"comma-separated methods, first is the reference (default {','.join(METHODS)})")
    cmp_.set_defaults(func=commands.compare)
    return parser
