"""`ssdlab card RUN -o card.png|card.svg`: a quick or imported run as one result card."""

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ssdlab.app.card import CardRequest, card_of
from ssdlab.cli.store_open import open_db
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.report.card import card_json, card_spec, render_card
from ssdlab.system.write_gate import check_output_path, write_output

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console

SUFFIXES = {".png": "png", ".svg": "svg"}


class CardRefusal(SsdlabError):
    """A card that cannot be written where asked: refused in one line, like a bad option."""

    exit_code = 2


def card_format(output: str | None, want_json: bool) -> str | None:
    """png or svg, from the suffix of -o FILE; None with --json. `-o -` is SVG, and only
    when stdout is not a terminal."""
    if want_json:
        return None
    if output is None:
        raise UsageError("card: give -o card.png or -o card.svg (or --json for its data)")
    if output == "-":
        if sys.stdout.isatty():
            raise CardRefusal(
                "card -o -: stdout is a terminal, and the card is an SVG image; redirect it "
                "(ssdlab card RUN -o - > card.svg) or write it with -o card.svg"
            )
        return "svg"
    suffix = Path(output).suffix.lower()
    fmt = SUFFIXES.get(suffix)
    if fmt is None:
        raise CardRefusal(
            f"card -o {output}: the suffix {suffix or '(none)'} names no image format; "
            "give a file ending in .png or .svg"
        )
    return fmt


def cmd_card(args: argparse.Namespace, out: "Console") -> int:
    fmt = card_format(args.output, args.json)
    if fmt is not None and args.output != "-":
        check_output_path(args.output, "-o")  # refused before any work
    data = card_of(open_db(args), CardRequest(args.run))
    if fmt is None:
        sys.stdout.write(json.dumps(card_json(data), indent=2, ensure_ascii=False) + "\n")
        return 0
    image = render_card(card_spec(data, args.theme), fmt)
    if args.output == "-":
        sys.stdout.buffer.write(image)
        sys.stdout.flush()
        return 0
    write_output(args.output, image, "-o")
    out.print(f"wrote {args.output} ({len(image):,} bytes)", highlight=False, soft_wrap=True)
    return 0
