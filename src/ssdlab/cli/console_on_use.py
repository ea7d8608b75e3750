"""The console a command prints to, made when the command first uses it: a command that
prints through it gets the console `make_console` makes, and one that never does (`ssdlab
metrics` writing its text to stdout) does not import rich at all (a fiftieth of a fleet's
scrape)."""

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from rich.console import Console


class PendingConsole:
    """Stands for the console until its first use, then is it. The first use (an attribute
    of the console looked up, or `with console:`) turns this object into the console in place:
    its class becomes the console's and the console's own initialisation runs on it, so
    whoever holds it holds the console from then on, `isinstance` included. A command uses
    its console first from its own thread (a progress bar's clock thread starts after)."""

    def __init__(self, width: int | None) -> None:
        self._pending_width = width

    def __getattr__(self, name: str) -> Any:  # only names the object lacks: the first use
        return getattr(_become_console(self), name)

    def __enter__(self) -> Any:  # `with` looks these two up on the class, not the object
        return _become_console(self).__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return _become_console(self).__exit__(*exc)


def _become_console(pending: PendingConsole) -> "Console":
    """The console `pending` is, made on its first use."""
    from ssdlab.cli.terminal_tables import TerminalConsole, console_settings

    if type(pending) is PendingConsole:
        width = pending.__dict__.pop("_pending_width")
        pending.__class__ = TerminalConsole  # type: ignore[assignment]
        TerminalConsole.__init__(cast(TerminalConsole, pending), **console_settings(width))
    return cast("Console", pending)


def console_on_use(width: int | None) -> "Console":
    """The console commands print to (`terminal_tables.make_console`'s), made on first use."""
    return cast("Console", PendingConsole(width))
