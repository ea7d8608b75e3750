"""What the trim profile's checking steps printed: the zero-check read's fio JSON (how many
blocks did not verify, how many bytes it read) and fstrim's count of bytes trimmed."""

import json
import re

_TRIMMED = re.compile(r"\((\d+) bytes\) trimmed")


def read_back_of(output: str) -> tuple[int, int] | None:
    """(blocks that failed to verify, bytes read) of the first job of a fio JSON output; None
    when the output cannot be read as one."""
    try:
        job = json.loads(output)["jobs"][0]
        errors = int(job.get("total_err", 0))
        read = int(job["read"]["io_bytes"])
    except (json.JSONDecodeError, KeyError, IndexError, TypeError, ValueError):
        return None
    return errors, read


def fstrim_trimmed_bytes(output: str) -> int | None:
    """The bytes `fstrim -v` says it trimmed; None when it does not say."""
    match = _TRIMMED.search(output)
    return int(match.group(1)) if match else None
