"""Where fio's JSON document is in a text: fio's own stdout, or the document as people keep it.

fio prints warnings and notes before the document ("fio: ...", "note: both iodepth >= 1 and
synchronous I/O engine are selected, ...") and, as a client, each server's text lines prefixed
with `<hostname>`; `--output-format=json,normal` prints the normal report after it. People
paste the document into a README (inside a code fence), a Python docstring (indented), a Go
comment, or a Markdown quote (every line prefixed with `> `). The document is the first JSON
object, starting a line after optional blanks, that holds one of the wanted keys; a text whose
every line carries a quote or comment prefix (`>`, `//`, `#`) is read with the prefixes taken
off.
"""

import json
import re
from typing import Any

from ssdlab.errors import ParseError

# a line that may open the document: blanks, '{', then the end of the line or a key
_OPENING = re.compile(r"^[ \t]*\{[ \t]*(?:$|\")", re.MULTILINE)
_QUOTE_PREFIX = re.compile(r"^[ \t]*(?:(?:>|//|#)[ \t]?)+", re.MULTILINE)
# openings tried before giving up: a text of thousands of broken '{' lines is not re-parsed
# from each of them
MAX_OPENINGS = 64


def _first_document(text: str, wanted: tuple[str, ...]) -> tuple[dict[str, Any] | None, str | None]:
    """(the document, None) or (None, why the last candidate was not one)."""
    decoder = json.JSONDecoder()
    problem: str | None = None
    for tried, match in enumerate(_OPENING.finditer(text)):
        if tried >= MAX_OPENINGS:
            break
        start = text.index("{", match.start())
        try:
            value, _end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as error:
            problem = f"the JSON is malformed ({error})"
            continue
        except (ValueError, RecursionError):
            problem = "the JSON is malformed (a number too long or nesting too deep)"
            continue
        if isinstance(value, dict) and any(key in value for key in wanted):
            return value, None
        problem = f"the JSON object has no {' or '.join(repr(k) for k in wanted)}"
    return None, problem


def find_fio_document(text: str, wanted: tuple[str, ...] = ("jobs",)) -> dict[str, Any]:
    """The fio JSON document in `text` that holds one of `wanted`; ParseError saying what was
    found instead."""
    document, problem = _first_document(text, wanted)
    if document is not None:
        return document
    if _QUOTE_PREFIX.search(text):
        unquoted, quoted_problem = _first_document(_QUOTE_PREFIX.sub("", text), wanted)
        if unquoted is not None:
            return unquoted
        problem = problem or quoted_problem
    why = problem or "no line starts with '{' (was fio run with --output-format=json?)"
    raise ParseError(f"fio output holds no fio JSON document: {why}")
