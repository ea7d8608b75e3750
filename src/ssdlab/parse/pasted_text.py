"""Result texts as people paste them, made plain line by line: the one cleaning every reader of
a benchmark's text export (CrystalDiskMark, KDiskMark, AS SSD Benchmark) shares.

Forums and READMEs leave separator lines gone, blank lines added, spaces collapsed or turned
into tabs, CRLF, a byte-order mark, `> ` quote prefixes, code fences, `//` comment prefixes (a
result kept in source code). Numbers are read strictly: a bounded run of digits, so a line of
thousands of digits is never converted.
"""

import re

from ssdlab.errors import ParseError

# C0/C1 control characters (terminal escapes among them): no export holds them, and kept in
# the drive name or comment they would act on the terminal that shows or exports the run
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Digit runs are bounded: no benchmark prints a 10-digit queue depth, and a run of thousands
# of digits is not a number Python will convert (int) or keep finite (float).
NUMBER = r"\d[\d,]{0,20}(?:\.\d{1,20})?"


def clean_lines(text: str) -> list[str]:
    """Lines as forums leave them, made plain: no BOM, quote prefixes, fences, tabs or control
    characters."""
    lines = []
    for raw in text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = _CONTROL.sub("", raw.replace("\t", " ")).strip()
        while line.startswith((">", "//")):
            line = line[2:].strip() if line.startswith("//") else line[1:].strip()
        if line.startswith("```") or line.startswith("~~~"):
            line = ""
        lines.append(line)
    return lines


def printed_number(text: str | None, line_no: int, what: str) -> float | None:
    """A number as a result text prints it ('1,234.5'); None for n/a, '-' or nothing; a
    ParseError naming the line for anything else."""
    if text is None:
        return None
    if text.lower() in ("n/a", "-", "—"):
        return None
    if not re.fullmatch(NUMBER, text):
        raise ParseError(f"line {line_no}: the {what} {text!r} is not a number")
    return float(text.replace(",", ""))
