"""The memory this machine can give a new allocation now: MemAvailable from /proc/meminfo."""

from pathlib import Path

from ssdlab.parse.meminfo import parse_mem_available_bytes

MEMINFO = Path("/proc/meminfo")


def mem_available_bytes(path: Path = MEMINFO) -> int | None:
    """MemAvailable in bytes; None when the file or the line is missing or unreadable."""
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return parse_mem_available_bytes(text)
