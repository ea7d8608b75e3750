"""/proc/meminfo text → bytes. procfs writes "kB" and means KiB (1024 bytes)."""

_UNITS = {"kB": 1024, "B": 1}


def parse_mem_available_bytes(text: str) -> int | None:
    """MemAvailable in bytes; None when the line is missing (kernels before 3.14) or unreadable."""
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
