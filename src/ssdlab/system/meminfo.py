"""The memory this machine can give a new allocation now: MemAvailable from /proc/meminfo."""

from pathlib import Path

MEMINFO = Path("/proc/meminfo")
_UNITS = {"kB": 1024, "B": 1}  # procfs says kB and means KiB


def mem_available_bytes(path: Path = MEMINFO) -> int | None:
    """MemAvailable in bytes; None when the file or the line is missing or unreadable."""
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name.strip() != "MemAvailable":
            continue
        fields = rest.split()
        if not fields or not fields[0].isdigit():
            return None
        factor = _UNITS.get(fields[1] if len(fields) > 1 else "B")
        return None if factor is None else int(fields[0]) * factor
    return None
