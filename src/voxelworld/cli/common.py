"""What every ``voxelworld`` subcommand shares: the argument parser and its help formatter, the version it prints,
and the checks that name the option the user typed (a parameter's error turned into its option's, an output file
that can be written).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any, TypeAlias

from .. import __version__
from ..errors import ParameterError
from ..files import write_target

__all__ = ["Commands", "HelpFormatter", "Parser", "NEGATIVE_NUMBER", "add_command", "package_version", "option_error",
           "check_output",
           "EXIT_BAD_INPUT", "EXIT_FAILED", "report"]

# Negative numbers in every notation float() reads (-1e6, -.5, -inf, -nan): values, not options. argparse's own
# rule knows only -1 and -1.5, so `--region -1e6 ...` was taken for an option; no option of ours looks like these.
NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?|inf(inity)?|nan)$", re.IGNORECASE)

# The subparsers a command's parser is added to (``parser.add_subparsers(...)``).
Commands: TypeAlias = "argparse._SubParsersAction[Any]"


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Help that shows each option's default (none for options whose default is "not given" or "off": their
    help says what that means) and keeps the description's and the example's lines as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == []:
            return action.help
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """argparse's parser, taking every negative number for a value and writing help with :class:`HelpFormatter`
    (its subcommands' parsers are of this class too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_NUMBER  # the one rule argparse reads to tell -5 from -x


def add_command(within: Commands, name: str, summary: str, description: str, example: str) -> argparse.ArgumentParser:
    """A subcommand ``name`` of the subparsers ``within``: ``summary`` in the list of commands, ``description``
    and ``example`` in its own help."""
    return within.add_parser(name, help=summary, description=description,
                             epilog="example:\n  " + example.replace("\n", "\n  "))


def package_version() -> str:
    """The package's version, ``voxelworld.__version__`` (the one place it is written: the package's metadata
    reads it there when the package is built or installed).

    >>> import voxelworld
    >>> package_version() == voxelworld.__version__
    True
    """
    return __version__


def option_error(error: ParameterError, options: dict[str, str]) -> ParameterError:
    """``error`` naming the command-line option the user typed for its parameter (``options``: parameter name to
    option); ``error`` itself for a parameter no option sets."""
    option = options.get(error.parameter)
    return error if option is None else ParameterError(option, error.value, error.legal)


def check_output(option: str, path: str | os.PathLike[str] | None) -> None:
    """ParameterError naming ``option`` unless ``path`` can be a new file: in an existing folder, not a folder, and
    a regular file or a new one (a symlink's target: never a FIFO or a device, ``files.write_target``)."""
    if path is not None and (Path(path).is_dir() or not Path(path).parent.is_dir()):
        raise ParameterError(option, str(path), "a file in an existing folder")
    if path is not None:
        write_target(path, option)


EXIT_BAD_INPUT = 2  # an option out of its range (named), a command that cannot run as asked
EXIT_FAILED = 1  # a file that cannot be read or written, kernels that cannot be compiled


def report(error: BaseException, status: int) -> int:
    """Print ``error`` as one line on stderr, ``voxelworld: ...``, and return the exit status ``status``."""
    print(f"voxelworld: {error}", file=sys.stderr)
    return status
