"""``nvme id-ctrl DEV`` -> IdentifyController, from its JSON (``-o json``) or its text (plain
or ``-H``).

The JSON prints every field as a number under its lower-case name (``"lpa" : 30``); the text
prints one field a line from the first column, ``lpa       : 0xe``, in hex or decimal (numbers
above a thousand with commas), and with ``-H`` the decoded bits indented beneath it, which are
skipped. WCTEMP and CCTEMP of 0 mean the controller reports no threshold: None.
"""

import re
from collections.abc import Mapping
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.model.nvme_identify import IdentifyController
from ssdlab.parse.json_values import to_count

_LINE = re.compile(r"^([a-z][a-z0-9_]*)\s*:\s?(.*)$")
_KNOWN = frozenset({"oacs", "lpa", "oncs", "wctemp", "cctemp"})


def is_id_ctrl_json(doc: Mapping[str, Any]) -> bool:
    """Whether a JSON object is ``nvme id-ctrl -o json``'s."""
    return len(_KNOWN & set(doc)) >= 3


def _text(values: Mapping[str, Any], key: str) -> str | None:
    text = values.get(key)
    return (text.strip() or None) if isinstance(text, str) else None


def _kelvin(values: Mapping[str, Any], key: str) -> int | None:
    kelvin = to_count(values.get(key))
    return kelvin if kelvin else None


def _fields(values: Mapping[str, Any], source: str) -> IdentifyController:
    def number(name: str) -> int | None:
        return to_count(values.get(name))

    return IdentifyController(
        source=source,
        model=_text(values, "mn"),
        serial=_text(values, "sn"),
        firmware=_text(values, "fr"),
        mdts=number("mdts"),
        oacs=number("oacs"),
        lpa=number("lpa"),
        oncs=number("oncs"),
        fuses=number("fuses"),
        fna=number("fna"),
        vwc=number("vwc"),
        sanicap=number("sanicap"),
        ctratt=number("ctratt"),
        wctemp_k=_kelvin(values, "wctemp"),
        cctemp_k=_kelvin(values, "cctemp"),
    )


def read_id_ctrl_json(doc: Mapping[str, Any], source: str) -> IdentifyController:
    if not is_id_ctrl_json(doc):
        raise ParseError("nvme id-ctrl JSON: none of oacs, lpa, oncs, wctemp, cctemp is present")
    return _fields(doc, source)


def _first_word(text: str) -> str:
    words = text.split()
    return words[0] if words else ""


def read_id_ctrl_text(text: str, source: str) -> IdentifyController:
    """The plain or ``-H`` text of ``nvme id-ctrl``."""
    values: dict[str, Any] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match is None or match[1] in values:
            continue
        name, raw = match[1], match[2]
        values[name] = raw if name in ("mn", "sn", "fr") else _first_word(raw)
    if len(_KNOWN & set(values)) < 3:
        raise ParseError("nvme id-ctrl text: no 'oacs', 'lpa', 'oncs', 'wctemp' or 'cctemp' lines")
    return _fields(values, source)
