"""The process's exit status after a refused or failed crawl: never 0, so a scheduler never sees success.

:func:`fatal` records a crawl refused at start or stopped by a failing state store; at interpreter
exit the process ends with :data:`EXIT_STATUS` (with ``os._exit``, after Twisted's held failures are
reported and the logs flushed) unless the script called :func:`handled`. It imports only
:mod:`scrapy_walsh.process`, so any layer may report a fatal fault. docs/existing-projects.md says why.
"""

from __future__ import annotations

import atexit
import gc
import logging
import os
import sys
from collections.abc import Callable

from scrapy_walsh.process import PROCESS

__all__ = ("EXIT_STATUS", "fatal", "handled", "pending")

#: The exit status of a process in which a crawl was refused or stopped by a store fault.
EXIT_STATUS = 1

# Kept in the process's state: the refusals recorded (``refusals``), the messages of those already
# logged (``reported``: a script that swallows the failure, e.g. ``gather(..., return_exceptions=True)``,
# logs nothing, so they are logged at exit instead), and the callbacks of :func:`handled`
# (``on_handled``: ``clean_refusal`` gives the process its own ``sys.excepthook`` back).


def fatal(what: str) -> None:
    """A crawl of this process was refused or stopped, ``what`` (its one message): the
    process will exit non-zero."""
    PROCESS.refusals.append(what)
    if not PROCESS.exit_registered:
        PROCESS.exit_registered = True
        atexit.register(_exit)


def pending() -> tuple[str, ...]:
    """What :func:`fatal` recorded and :func:`handled` did not clear."""
    return tuple(PROCESS.refusals)


def handled() -> None:
    """The caller dealt with the refusals so far: they no longer change the exit status."""
    PROCESS.refusals.clear()
    for callback in PROCESS.on_handled:
        callback()


def on_handled(callback: Callable[[], None]) -> None:
    """``callback`` is called when the refusals are :func:`handled` (once added, each time)."""
    if callback not in PROCESS.on_handled:
        PROCESS.on_handled.append(callback)


def reported(message: str) -> None:
    """``message`` was logged (by :mod:`scrapy_walsh.outputs.clean_refusal`): not logged again at exit."""
    PROCESS.reported.add(message)


def _exit() -> None:
    if not PROCESS.refusals:
        return
    gc.collect()  # a dropped failed Deferred logs its (clean) failure now, not after us
    for message in dict.fromkeys(PROCESS.refusals):
        if message not in PROCESS.reported:
            logging.getLogger("scrapy_walsh").critical("%s", message)
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(EXIT_STATUS)
