"""The generated blocks of bench/RESULTS.md: each bench script writes its own block between its
BEGIN and END markers and leaves everything around it (other blocks, notes by hand) as it is."""

import json
from pathlib import Path


def write_block(path: Path, begin: str, end: str, block: str) -> None:
    """Put `block` (its own markers included) where the text from `begin` to `end` stands in
    `path`, or append it when `path` has no such block yet. `begin` may be the start of the
    marker only, so a block written under an older marker text is replaced too."""
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    start = current.find(begin)
    stop = current.find(end, start) if start >= 0 else -1
    if stop >= 0:
        updated = current[:start] + block + current[stop + len(end) :]
    else:
        updated = current.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(updated, encoding="utf-8")


def publish(
    figures: object, text: str, *, as_json: bool, results: Path | None, default: Path | None
) -> None:
    """What a fleet benchmark ends with: its figures as JSON (`--json`), or its block printed
    and written to `results` (`--results`), else to `default` when that is not None."""
    if as_json:
        print(json.dumps(figures, indent=2))
        return
    print(text)
    path = results or default
    if path is not None:
        write_block(path, text.splitlines()[0], text.splitlines()[-1], text)
