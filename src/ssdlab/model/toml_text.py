"""The one TOML reader: every TOML file ssdlab reads (quick presets, the PTS catalogue,
simulator presets, spec sheets, SMART vendor maps) is parsed here, and a file that is not
TOML is one error in one style: a line naming the file and, where TOML says it, the line.

Each loader keeps only its own schema checks on the table this returns. User files are read
(bounded, UTF-8) by `system/user_files.read_user_text` before they come here.
"""

import re
import tomllib
from typing import Any

_AT = re.compile(r"^(?P<what>.*?) \(at (?:line (?P<line>\d+), column \d+|end of document)\)$")


class TomlError(ValueError):
    """Text that is not TOML; the message names where it came from."""


def parse_toml(text: str, origin: str) -> dict[str, Any]:
    """The table of TOML `text` read from `origin` (a path, or what the text is)."""
    try:
        return tomllib.loads(text)
    except RecursionError:  # tables or arrays nested too deeply for the parser
        raise TomlError(f"{origin}: not valid TOML (nested too deeply)") from None
    except ValueError as error:  # TOMLDecodeError; an integer too long to convert
        raise TomlError(_message(str(error), origin)) from None


def _message(reason: str, origin: str) -> str:
    at = _AT.match(reason)
    if at is None:
        return f"{origin}: not valid TOML ({reason or 'unreadable'})"
    if at.group("line") is None:
        return f"{origin}: not valid TOML at its end ({at.group('what')})"
    return f"{origin}: not valid TOML at line {at.group('line')} ({at.group('what')})"
