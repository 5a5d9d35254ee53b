"""The argument parser of the ``smartigan`` command."""

from __future__ import annotations

import argparse
from typing import Any, Callable, Optional, Tuple

from .._checks import number, positive
from .._core import __version__
from .._criteria import CRITERIA, DEFAULT_CRITERIA
from .._params import (AUTO_SMALL_PROBLEM, AUTO_TOL_LARGE, DEFAULT_MAX_ITER, DEFAULT_N_ITER, DEFAULT_N_ITER_LARGE, INITS,
                       METHODS, METRICS, N_INIT_NAMES)
from .._params import PARAMETERS as _P
from .._path import CLUSTER_PATH
from . import commands
from .readers import FORMATS

__all__ = ["build_parser"]

# The named starts, the default first (as --help lists them).
_INIT_CHOICES = (_P["init"].default,) + tuple(name for name in INITS if name != _P["init"].default)


def _option(name: str, words: Tuple[str, ...] = (), real: bool = False,
            least: Optional[Callable[[str, Any], Any]] = None) -> Callable[[str], Any]:
    """The argparse type of the option of parameter ``name``: one of
    ``words``, else an integer (a number with ``real``), checked by the
    parameter table's check, then by ``least`` (a bound the command line
    checks before reading any data), or a usage error naming it."""
    expected = ("a number" if real else "an integer") + "".join(f" or {w!r}" for w in words)

    def convert(text: str) -> Any:
        if text in words:
            return text
        try:
            value: Any = float(text) if real else int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        try:
            value = _P[name].validate(value) if name in _P else value
            return value if least is None else least(name, value)
        except (TypeError, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


def _size_bound(name: str) -> Callable[[str], Any]:
    """The argparse type of ``--size-min``/``--size-max``: ``balanced``, one
    integer, or comma-separated integers (one per cluster), checked by the
    parameter table."""
    def convert(text: str) -> Any:
        try:
            value: Any = text if text == "balanced" else [int(v) for v in text.split(",")]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected an integer, comma-separated integers or 'balanced', got {text!r}") from None
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        try:
            return _P[name].validate(value)
        except (TypeError, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


def _non_negative(name: str, value: Any) -> float:
    return number(name, value, 0.0)


def _help(name: str, default: str) -> str:
    """``--help``'s line for the option of parameter ``name``: the table's
    summary (its markup left out) and ``default``."""
    summary = _P[name].summary.replace("``", "").replace('"', "").rstrip(".")
    return f"{summary[0].lower()}{summary[1:]} (default {default})".replace("%", "%%")


def _k_range(text: str) -> Tuple[int, ...]:
    """``KMIN:KMAX`` (both included), ``KMIN:KMAX:STEP`` or a comma-separated
    list of increasing k, as the ks."""
    expected = "KMIN:KMAX[:STEP] with 1 <= KMIN <= KMAX (e.g. 2:30 or 2:40:2), or increasing k such as 3,5,10,20"
    try:
        if ":" in text:
            parts = [int(part) for part in text.split(":")]
            if len(parts) not in (2, 3) or not 1 <= parts[0] <= parts[1] or (len(parts) == 3 and parts[2] < 1):
                raise ValueError
            ks = tuple(range(parts[0], parts[1] + 1, parts[2] if len(parts) == 3 else 1))
        else:
            ks = tuple(int(part) for part in text.split(","))
            if ks[0] < 1 or any(b <= a for a, b in zip(ks, ks[1:])):
                raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    return ks


def _criteria(text: str) -> Tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in names if name not in CRITERIA]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown criterion {', '.join(map(repr, unknown)) or '(none)'}; "
                                         f"choose from {', '.join(CRITERIA)}")
    return names


def _add_data_options(p: argparse.ArgumentParser, method: bool, k_range: bool = False) -> None:
    p.add_argument("data", help="CSV (delimiter and header detected), .npy or .parquet file, one point per row; "
                                "a pipe works as a file, and - reads standard input (CSV unless --input-format)")
    if k_range:
        p.add_argument("-k", "--k", dest="ks", type=_k_range, default=tuple(CLUSTER_PATH["ks"].default), metavar="KS",
                       help="the numbers of clusters: KMIN:KMAX (both ends included), KMIN:KMAX:STEP, or a list "
                            "such as 2,4,8,16 (the path runs through the whole range and keeps these; "
                            "default 2:30)")
    else:
        p.add_argument("-k", type=_option("k", least=positive), required=True, help="number of clusters")
    if method:
        p.add_argument("--method", default=_P["method"].default, choices=METHODS,
                       help=_help("method", _P["method"].default))
    p.add_argument("--metric", default=_P["metric"].default, choices=METRICS,
                   help=_help("metric", _P["metric"].default))
    p.add_argument("--init", default=_P["init"].default, choices=_INIT_CHOICES,
                   help=_help("init", _P["init"].default))
    p.add_argument("--n-iter", type=_option("n_iter", least=positive), default=_P["n_iter"].default,
                   help=_help("n_iter", f"smartigan {DEFAULT_N_ITER}, {DEFAULT_N_ITER_LARGE} above "
                                        f"{AUTO_SMALL_PROBLEM} multiply-adds per pass unless the first sweep "
                                        f"shows overlapping clusters; lloyd and hartigan {DEFAULT_MAX_ITER}"))
    n_init_help = _help("n_init", _P["n_init"].default)
    if k_range:
        n_init_help += ("; for the first k, and at every k where n*d*k <= 2**20; a number or best also fits "
                        "every other k so, keeping the path where it is lower")
    p.add_argument("--n-init", type=_option("n_init", N_INIT_NAMES, least=positive),
                   default=_P["n_init"].default, help=n_init_help)
    if k_range:
        tol_help = _help("tol", "auto: the path searches at 1e-4 where n*d*k > 2**20, then continues every k "
                                "until no point moves; on large, heavily overlapping data that last pass is most "
                                f"of the time, and --tol {AUTO_TOL_LARGE} stops where fit does")
    else:
        tol_help = _help("tol", f"auto: 0, until no point moves, while n*d*k <= 2**20, else {AUTO_TOL_LARGE}")
    p.add_argument("--tol", type=_option("tol", ("auto",), real=True, least=_non_negative),
                   default=_P["tol"].default, help=tol_help)
    if not k_range:
        for option, name in (("--size-min", "size_min"), ("--size-max", "size_max")):
            p.add_argument(option, dest=name, type=_size_bound(name), default=_P[name].default, metavar="N|N1,N2,..",
                           help=_help(name, "no bound") + "; one number for every cluster, one per cluster "
                                "(comma-separated), or balanced")
        p.add_argument("--balanced", action="store_true",
                       help="clusters of equal size: --size-min balanced --size-max balanced (floor(n/k) to "
                            "ceil(n/k) rows each)")
    p.add_argument("--no-refine", dest="refine", action="store_false",
                   help="skip the merge-split refinement after convergence (the paper's methods as printed)")
    p.add_argument("--seed", type=_option("seed"), default=_P["seed"].default,
                   help=_help("seed", "random, printed"))
    p.add_argument("--threads", type=_option("n_threads", least=positive), default=_P["n_threads"].default,
                   help=_help("n_threads", "all cores"))
    drawn = "the objective and criteria against k" if k_range else "the clustering and objective per sweep"
    p.add_argument("--plot", metavar="FILE.png", help=f"draw {drawn} (needs matplotlib)")
    p.add_argument("--input-format", default="auto", choices=("auto",) + FORMATS,
                   help="format of DATA (default: from the suffix; anything but .npy/.parquet is CSV)")
    p.add_argument("--columns", metavar="COLS", help="comma-separated column names or 0-based indices to use")
    p.add_argument("--header", default="auto", choices=("auto", "yes", "no"),
                   help="whether the CSV's first row is a header (default: detected)")
    p.add_argument("--delimiter", help="CSV delimiter, one character, 'tab' or 'whitespace' (default: detected "
                                       "among , TAB ; | and whitespace)")
    p.add_argument("--progress", default="auto", choices=("auto", "always", "never"),
                   help="progress bar on stderr (default: on a terminal, for runs longer than half a second)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def _add_output_options(p: argparse.ArgumentParser, written: str) -> None:
    p.add_argument("--out", metavar="PREFIX", help=f"write {written}")
    p.add_argument("--format", default="csv", choices=FORMATS,
                   help="format of the --out files (default csv; parquet needs pyarrow)")


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
    sub = parser.add_subparsers(dest="command", required=True, metavar="{demo,fit,compare,choose-k}")

    demo = sub.add_parser("demo", help="the paper's Table 1 on the embedded Iris data (about a second)")
    demo.add_argument("--runs", type=_option("runs", least=positive), default=500, help="runs per cell (default 500, as in the paper)")
    demo.add_argument("-k", type=_option("k", least=positive), nargs="+", default=[3, 5, 10, 20], help="cluster counts (default 3 5 10 20)")
    demo.add_argument("--seed", type=_option("seed"), default=0, help=_help("seed", "0"))
    demo.set_defaults(func=commands.demo)

    fit = sub.add_parser("fit", help="cluster a CSV, .npy or Parquet file",
                         description="Cluster the rows of DATA and print a summary.")
    _add_data_options(fit, method=True)
    _add_output_options(fit, "PREFIX.labels.EXT and PREFIX.centroids.EXT; a directory (DIR/ or an existing "
                             "one): DIR/labels.EXT and DIR/centroids.EXT")
    fit.set_defaults(func=commands.fit)

    cmp_ = sub.add_parser("compare", help="Lloyd, Hartigan and Smartigan side by side from the same starts",
                          description="Run several methods with the same seed, hence the same starting "
                                      "partitions, and compare their objectives restart by restart.")
    _add_data_options(cmp_, method=False)
    # None: the user named no methods, and compare may leave out one the
    # options rule out (lloyd under size bounds that bind).
    cmp_.add_argument("--methods", default=None,
                      help=f"comma-separated methods, first is the reference (default {','.join(METHODS)}; "
                           "under size bounds that bind, those that keep them)")
    cmp_.set_defaults(func=commands.compare)

    choose = sub.add_parser("choose-k", help="a path of solutions over a range of k, and the criteria for choosing k",
                            description="Cluster DATA for every k of a range in one path (each k from the one "
                                        "before), print the objective and the criteria per k and the k each "
                                        "suggests.")
    _add_data_options(choose, method=True, k_range=True)
    choose.add_argument("--criteria", type=_criteria, default=DEFAULT_CRITERIA, metavar="NAMES",
                        help=f"comma-separated criteria among {','.join(CRITERIA)} (default "
                             f"{','.join(DEFAULT_CRITERIA)}; silhouette and gap cost about as much as the path "
                             "on large data, or more)")
    choose.add_argument("--gap-references", type=_option("gap_references", least=CLUSTER_PATH["gap_references"].check),
                        default=CLUSTER_PATH["gap_references"].default, metavar="B",
                        help=f"{CLUSTER_PATH['gap_references'].summary} "
                             f"(default {CLUSTER_PATH['gap_references'].default})")
    choose.add_argument("--gap-sample", type=_option("gap_sample", least=CLUSTER_PATH["gap_sample"].check),
                        default=CLUSTER_PATH["gap_sample"].default, metavar="M",
                        help=f"{CLUSTER_PATH['gap_sample'].summary} "
                             f"(default {CLUSTER_PATH['gap_sample'].default})")
    _add_output_options(choose, "PREFIX.criteria.EXT (a row per k: objective, criteria) and PREFIX.labels.EXT "
                                "(a column per k); a directory: DIR/criteria.EXT and DIR/labels.EXT")
    choose.set_defaults(func=commands.choose_k)
    return parser
