"""The kernel's counters a run's machine check reads (/proc/diskstats, /proc/stat,
/proc/self/stat) and the I/O fio reports doing (its JSON) -> model values. Malformed text
raises ParseError; a device or line that is not there is None."""

from ssdlab.errors import ParseError
from ssdlab.model.machine import CpuTicks, DiskCounters, FioIo
from ssdlab.parse.fio_document import find_fio_document
from ssdlab.parse.fio_json import parse_fio_json

# /proc/diskstats after major, minor and name (Documentation/admin-guide/iostats.rst):
# 0 reads completed, 2 sectors read, 4 writes completed, 6 sectors written,
# 11 discards completed, 13 sectors discarded (4.18+)
_READS, _SECTORS_READ, _WRITES, _SECTORS_WRITTEN, _DISCARDS, _SECTORS_DISCARDED = 0, 2, 4, 6, 11, 13


def _ints(fields: list[str], where: str) -> list[int]:
    try:
        return [int(field) for field in fields]
    except ValueError:
        raise ParseError(f"{where}: a counter is not a whole number") from None


def parse_diskstats(text: str, device: str) -> DiskCounters | None:
    """The counters of `device` (kernel name: sda, nvme0n1, loop3); None when it has no line."""
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 3 or fields[2] != device:
            continue
        counts = _ints(fields[3:], f"/proc/diskstats line of {device}")
        if len(counts) < 11:
            raise ParseError(f"/proc/diskstats line of {device} has {len(counts)} counters")
        discards = len(counts) > _SECTORS_DISCARDED
        return DiskCounters(
            reads=counts[_READS],
            sectors_read=counts[_SECTORS_READ],
            writes=counts[_WRITES],
            sectors_written=counts[_SECTORS_WRITTEN],
            discards=counts[_DISCARDS] if discards else None,
            sectors_discarded=counts[_SECTORS_DISCARDED] if discards else None,
        )
    return None


def parse_proc_stat(text: str) -> CpuTicks | None:
    """The whole machine's CPU time from the `cpu` line of /proc/stat (user nice system idle
    iowait irq softirq steal guest guest_nice); guest time is already in user, so it is not
    counted twice. None when there is no such line."""
    lines = [line.split() for line in text.splitlines()]
    cpus = sum(1 for f in lines if f and f[0].startswith("cpu") and f[0][3:].isdigit())
    for fields in lines:
        if not fields or fields[0] != "cpu":
            continue
        counts = _ints(fields[1:], "/proc/stat's cpu line")
        if len(counts) < 4:
            raise ParseError(f"/proc/stat's cpu line has {len(counts)} columns")
        user, nice, system = counts[0], counts[1], counts[2]
        return CpuTicks(busy=user + nice + system, total=sum(counts[:8]), cpus=max(cpus, 1))
    return None


def parse_own_ticks(text: str) -> int:
    """utime + stime + cutime + cstime of /proc/PID/stat (fields 14 to 17): the CPU time of
    the process and of the children it has waited for, in clock ticks. The name (field 2) may
    hold spaces and parentheses, so the fields are counted after its last ')'."""
    _, paren, rest = text.rpartition(")")
    fields = rest.split()
    if not paren or len(fields) < 15:
        raise ParseError("/proc/PID/stat is too short")
    return sum(_ints(fields[11:15], "/proc/PID/stat"))


def fio_io(stdout: str) -> FioIo:
    """The bytes fio read, wrote and trimmed in one run and its I/O count, every job summed; a
    job reported as `mixed` (unified_rw_reporting) gives its bytes without a direction."""
    result = parse_fio_json(stdout)
    totals = {"r": 0, "w": 0, "m": 0}
    ios = 0
    counted = True
    for job in result.jobs:
        for direction, metrics in (("r", job.read), ("w", job.write), ("m", job.mixed)):
            if metrics is None:
                continue
            totals[direction] += metrics.io_bytes
            if metrics.total_ios is None:
                counted = False
            else:
                ios += metrics.total_ios
    trimmed = 0
    for job in find_fio_document(stdout).get("jobs") or []:
        trim = job.get("trim") if isinstance(job, dict) else None
        if not isinstance(trim, dict):
            continue
        amount = trim.get("io_bytes")
        if isinstance(amount, int) and amount > 0:  # fio 3.16 and later: bytes
            trimmed += amount
            total = trim.get("total_ios")
            ios += total if isinstance(total, int) else 0
    return FioIo(
        read_bytes=totals["r"],
        written_bytes=totals["w"],
        trimmed_bytes=trimmed,
        ios=ios if counted else None,
        mixed_bytes=totals["m"],
    )
