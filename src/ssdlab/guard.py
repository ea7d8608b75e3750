"""The guard process (`python -m ssdlab.guard [--shield] FIO ARGS…`): runs fio below it and ends
it with ssdlab (see `ssdlab.system.guard`). It ends as fio ended: with fio's exit status, or
killed by the signal that killed fio, so ssdlab reads the same returncode as if it had started
fio itself.
"""

import os
import signal
import sys

from ssdlab.system.guard import SHIELD, watch

CANNOT_START = 127  # as a shell says of a command it cannot run


def entry() -> int:
    """Run the command given after the module's name; the exit status to end with."""
    argv = sys.argv[1:]
    shield = argv[:1] == [SHIELD]
    argv = argv[1:] if shield else argv
    try:
        returncode = watch(argv, shield=shield)
    except (OSError, IndexError) as error:
        os.write(2, f"ssdlab guard: cannot start {argv[:1]}: {error}\n".encode())
        return CANNOT_START
    if returncode < 0:  # fio was killed: so is the guard, by the same signal
        signal.signal(-returncode, signal.SIG_DFL)
        os.kill(os.getpid(), -returncode)
    return returncode


if __name__ == "__main__":
    raise SystemExit(entry())
