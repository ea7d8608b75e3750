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
    if width is None and not sys.stdout.isatty():
        width = UNLIMITED_WIDTH
    return TerminalConsole(highlight=False, soft_wrap=False, width=width)


def print_table(console: Console, table: Table) -> None:
    """`table` on `console`, never cutting a cell: a column made with `no_wrap=True` or headed
    by one of WHOLE_HEADERS (its cells are identifiers people copy) is printed whole, widening
    the table past the console when it must; any other column wraps, breaking a word too long
    for it rather than ending it in an ellipsis."""
    wide = console.options.update_width(_MEASURE_WIDTH)
    for column in table.columns:
        if str(column.header).lower() in WHOLE_HEADERS:
            column.no_wrap = True
        if column.no_wrap:
            widths = [Measurement.get(console, wide, cell).maximum for cell in column.cells]
            column.min_width = max([column.min_width or 0, *widths])
        else:
            column.overflow = "fold"
    needed = Measurement.get(console, wide, table).minimum
    saved = console.width
    console.width = max(saved, needed)
    try:
        Console.print(console, table)
    finally:
        console.width = saved


def print_rule(console: Console, title: str) -> None:
    """A title between rules, as wide as the console but no wider than the title needs when
    the console is unlimited (piped output)."""
    width = console.width if console.width < UNLIMITED_WIDTH else max(len(title) + 8, 80)
    if len(title) + 4 > width:  # a rule would cut the title short: the title on its own line
        console.print(escape(title), style="bold", soft_wrap=True)
        return
    console.print(Rule(escape(title)), width=width)
