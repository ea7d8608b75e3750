"""The console commands print to, laid out so that nothing people copy is ever cut: run ids,
test keys, metric names, paths, devices and models are printed whole (a table grows wider than
the console if it must), other cells wrap; output that is not a terminal is not wrapped at
all."""

import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.rule import Rule
from rich.table import Table

# Output that is not a terminal (a pipe, a log) is laid out this wide: in effect unlimited, so
# tables are as wide as their content and no run id, test key or path is wrapped or cut.
UNLIMITED_WIDTH = 10_000
# Column headers of a document's tables whose cells people copy (into --fail-if, `show`, a spec
# or a bug report): printed whole; the first column (a row's test, step or metric key) always is.
WHOLE_HEADERS = frozenset(
    {"run", "runs", "id", "key", "test", "metric", "spec", "path", "target", "device", "model"}
    | {"serial", "host", "drive", "step", "job", "file", "cell", "tracking variable"}
)
_MEASURE_WIDTH = 100_000


class TerminalConsole(Console):
    """A rich Console whose tables never end a cell in an ellipsis (see print_table)."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if len(objects) == 1 and isinstance(objects[0], Table) and not kwargs:
            print_table(self, objects[0])
        else:
            super().print(*objects, **kwargs)


def make_console(width: int | None) -> Console:
    """The console commands print to: `width` columns when given (--width); on a terminal its
    width (COLUMNS first, as rich reads it); otherwise unlimited, so that what is piped or
    logged is never cut at 80 columns."""
    return TerminalConsole(**console_settings(width))


def console_settings(width: int | None) -> dict[str, Any]:
    """The arguments `make_console` makes its console with."""
    if width is None and not sys.stdout.isatty():
        width = UNLIMITED_WIDTH
    return {"highlight": False, "soft_wrap": False, "width": width}


def print_table(console: Console, table: Table) -> None:
    """`table` on `console`, never cutting a cell: a column made with `no_wrap=True` or headed
    by one of WHOLE_HEADERS (its cells are identifiers people copy) is printed whole; any other
    column wraps between words, never inside one, the widest first. When even that does not
    fit, the table is printed wider than the console; nothing ends in an ellipsis."""
    wide = console.options.update_width(_MEASURE_WIDTH)
    most: list[int] = []
    least: list[int] = []
    for column in table.columns:
        if str(column.header).lower() in WHOLE_HEADERS:
            column.no_wrap = True
        sizes = [Measurement.get(console, wide, cell) for cell in (column.header, *column.cells)]
        most.append(column.width or max(size.maximum for size in sizes))
        whole = column.no_wrap or column.width is not None
        least.append(most[-1] if whole else max(size.minimum for size in sizes))
        column.overflow = "fold"
    frame = Measurement.get(console, wide, table).maximum - sum(most)  # borders and padding
    widths = fitted_widths(most, least, console.width - frame)
    for column, width in zip(table.columns, widths, strict=True):
        column.width = width
    saved = console.width
    console.width = max(saved, sum(widths) + frame, table.min_width or 0)
    try:
        Console.print(console, table)
    finally:
        console.width = saved


def fitted_widths(most: list[int], least: list[int], budget: int) -> list[int]:
    """Column widths within `budget` where they can be: each column from its widest cell
    (`most`) down to its longest word (`least`), the widest narrowed first."""
    widths = list(most)
    excess = sum(widths) - budget
    while excess > 0:
        narrower = [i for i, width in enumerate(widths) if width > least[i]]
        if not narrower:
            break
        widest = max(narrower, key=lambda i: widths[i])
        step = min(excess, widths[widest] - least[widest])
        others = [widths[i] for i in narrower if i != widest]
        if others:  # down to the next widest, so that the widest share what must go
            step = min(step, max(1, widths[widest] - max(others)))
        widths[widest] -= step
        excess -= step
    return widths


def print_rule(console: Console, title: str) -> None:
    """A title between rules, as wide as the console but no wider than the title needs when
    the console is unlimited (piped output)."""
    width = console.width if console.width < UNLIMITED_WIDTH else max(len(title) + 8, 80)
    if len(title) + 4 > width:  # a rule would cut the title short: the title on its own line
        console.print(escape(title), style="bold", soft_wrap=True)
        return
    console.print(Rule(escape(title)), width=width)
