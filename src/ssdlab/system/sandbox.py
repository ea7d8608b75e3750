"""A program confined to one folder of this machine, for a program that takes orders from
another: fio's client in `fleet load` does what each node's fio server tells it, and a server
may tell it to send any file it names (fio's SENDFILE: the seat's SSH keys) or to write a log
under any name (fio's IOLOG, `NAME.<socket>`: anywhere root may write). A node's answers are
data, never authority over the seat, so the client runs confined.

bubblewrap (`bwrap`, Debian's `bubblewrap`) starts the program in a new mount namespace whose
root is an empty tmpfs holding only: /usr read-only (and /bin, /sbin, /lib… as this machine
has them, links into /usr or read-only binds), the program's own folder read-only when it is
outside /usr, and `folder` writable, the working directory. No /etc, /home, /root, /proc, /dev
or /tmp of this machine: a file named there does not exist. Writes anywhere but `folder` land
in the tmpfs and are gone with the program. It has no network either (`--unshare-net`): it
reaches its servers through sockets in `folder`. It ends with its parent (`--die-with-parent`)
and stays in the caller's process group, so the caller's signals reach it as before.
"""

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import ToolError

BWRAP = "bwrap"
INSTALL = "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap)"
SYSTEM = Path("/usr")
# the top-level paths that hold programs and libraries: on a merged-/usr system links into /usr
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


@dataclass(frozen=True, slots=True)
class Confinement:
    """Where a program is confined (`folder`, writable, its working directory), and why it
    must be (what the error says when bubblewrap is missing)."""

    folder: Path
    why: str


def _system_paths() -> list[str]:
    words = ["--ro-bind", str(SYSTEM), str(SYSTEM)]
    for name in SYSTEM_LINKS:
        path = Path(name)
        if path.is_symlink():
            words += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            words += ["--ro-bind", name, name]
    return words


def require_confinement(why: str) -> str:
    """bubblewrap's path; ToolError when it is not installed, saying `why` a program is to be
    confined and what to install."""
    bwrap = shutil.which(BWRAP)
    if bwrap is None:
        raise ToolError(f"{why}, which needs bubblewrap (bwrap); {INSTALL}")
    return bwrap


def confined(argv: Sequence[str], folder: Path, why: str) -> list[str]:
    """The command that runs `argv` confined to `folder` (see the module); ToolError when
    bubblewrap is not installed, saying `why` the program is confined."""
    bwrap = require_confinement(why)
    found = shutil.which(argv[0])
    if found is None:
        raise ToolError(f"{argv[0]} was not found; run 'ssdlab doctor' to see what to install")
    program = Path(found).resolve()
    words = [bwrap, "--die-with-parent", "--unshare-ipc", "--unshare-uts", "--unshare-net"]
    words += _system_paths()
    if not program.is_relative_to(SYSTEM):
        words += ["--ro-bind", str(program.parent), str(program.parent)]
    here = str(folder.resolve())
    words += ["--bind", here, here, "--chdir", here, "--", str(program), *argv[1:]]
    return words
