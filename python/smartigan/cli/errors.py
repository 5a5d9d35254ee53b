"""The command line's one error type."""

from __future__ import annotations

__all__ = ["CliError"]


class CliError(Exception):
    """A usage or data error: printed without a traceback, exit status 2.

    Examples
    --------
    >>> str(CliError("no such file: x.csv"))
    'no such file: x.csv'
    """
