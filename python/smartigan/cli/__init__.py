"""The ``smartigan`` command line.

* ``smartigan demo``: the paper's Table 1 on the embedded Iris data (about a
  second).
* ``smartigan fit DATA -k K``: cluster a CSV, ``.npy`` or Parquet file, print
  a summary, optionally write labels and centroids (``--out``) and a picture
  (``--plot``).
* ``smartigan compare DATA -k K``: Lloyd, Hartigan and Smartigan side by side
  from the same starts.
* ``smartigan choose-k DATA --k 2:30``: a path of solutions over a range of
  k, the criteria for choosing k and the k each suggests, optionally written
  (``--out``) and drawn (``--plot``).

Exit status: 0 on success, 2 for usage and data errors (bad options,
unreadable or non-numeric data, ``k`` larger than the data, a missing
optional dependency), 130 when interrupted, 141 when the output pipe closed
early (``smartigan fit ... | head``; 128 + SIGPIPE, what a shell reports for
a command stopped that way); anything else is a bug.

The package by concern: :mod:`.parser` (the options), :mod:`.commands`
(``fit``, ``compare``, ``choose-k``, ``demo``), :mod:`.readers` and :mod:`.writers` (data
files), :mod:`.progress` (the progress bar), :mod:`.errors` (``CliError``).
"""

from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

from .errors import CliError
from .parser import build_parser
from .progress import Progress
from .readers import Table, read_matrix, read_table

__all__ = ["main", "build_parser", "read_table", "read_matrix", "Table", "Progress", "CliError"]

#: The exit status when the reader of standard output went away: 128 + SIGPIPE (13).
EXIT_BROKEN_PIPE = 141


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``smartigan`` command with ``argv`` (default ``sys.argv[1:]``).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name.

    Returns
    -------
    int
        Exit status: 0 success, 2 usage or data error, 130 interrupted,
        141 output pipe closed. (Invalid options make argparse exit with
        status 2 via SystemExit.)

    Examples
    --------
    >>> main(["demo", "--runs", "5", "-k", "3"])  # doctest: +ELLIPSIS
    smartigan ... demo: Fisher's Iris data (150 points in R^4)
    ...
    0
    """
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except CliError as exc:
        print(f"smartigan {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``smartigan fit ... | head``): stop quietly,
        # with the status a shell gives a command that SIGPIPE stopped.
        # Standard output now leads nowhere, so that flushing it at exit
        # does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except (ValueError, TypeError, OSError) as exc:
        print(f"smartigan {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("smartigan: interrupted", file=sys.stderr)
        return 130
