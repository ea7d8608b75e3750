"""Numbers no drive tool prints, refused before a parser converts them.

smartctl, nvme-cli and fio print counters of at most 128 bits (39 decimal digits). A longer
number is damage or a forgery, and converting it breaks Python itself: ``int()`` refuses more
than 4300 digits (ValueError) and ``float()`` of a 309-digit int overflows. The parsers check
their input here once, so every conversion after that is safe.
"""

import re
from collections.abc import Iterator
from typing import Any

from ssdlab.errors import ParseError

# 2^128 and a little room: a counter is never longer than this.
LIMIT = 2**128
MAX_DIGITS = 40
_LONG_DIGITS = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")


def refuse_long_digit_runs(text: str, what: str) -> None:
    """ParseError naming the line of the first run of more than MAX_DIGITS decimal digits."""
    match = _LONG_DIGITS.search(text)
    if match is not None:
        line = text.count("\n", 0, match.start()) + 1
        raise ParseError(
            f"{what}, line {line}: a number of {len(match.group())} digits, longer than any "
            "counter a drive tool prints"
        )


def refuse_huge_numbers(doc: Any, what: str) -> None:
    """ParseError naming the first number in a decoded JSON document beyond ±2^128."""
    for path, value in _numbers(doc, ""):
        if abs(value) > LIMIT:
            raise ParseError(
                f"{what}: {path or 'the document'} holds a number beyond 2^128, larger than "
                "any counter a drive tool prints"
            )


def _numbers(doc: Any, root: str) -> Iterator[tuple[str, int | float]]:
    """Every number in the document with its path; iterative, so depth costs no recursion."""
    stack: list[tuple[str, Any]] = [(root, doc)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, bool):
            continue
        if isinstance(node, int | float):
            yield path, node
        elif isinstance(node, dict):
            stack.extend((f"{path}.{key}" if path else str(key), v) for key, v in node.items())
        elif isinstance(node, list):
            stack.extend((f"{path}[{index}]", v) for index, v in enumerate(node))
