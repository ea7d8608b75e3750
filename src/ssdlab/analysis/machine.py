"""What the machine did beside a run, from counters sampled before and after each fio pass,
and the one note a run's documents give about it (pure).

Thresholds (docs/machine.md):
- other I/O: a pass counts when the target's device did more than `OTHER_IO_MIN_BYTES` and
  more than `OTHER_IO_SHARE` of fio's own bytes beyond what fio reports doing (a file system
  writes its journal and metadata too, so a little is expected);
- other processes: a pass counts when they kept more than `OTHERS_CPU_CORES` of a core busy
  on average (user, nice and system time of the whole machine, less this process's and the
  children's it waited for: fio's);
- the CPU frequency governor is said when it is known and not `performance` (information: it
  may lower the clock while fio waits for the device);
- a virtual machine is said when one was detected.
"""

from collections.abc import Sequence

from ssdlab.model.machine import FioIo, LoadSnapshot, MachineCheck, PassLoad
from ssdlab.model.units import MiB, format_binary_bytes

SECTOR_BYTES = 512  # /proc/diskstats counts 512-byte sectors whatever the device's block
OTHER_IO_MIN_BYTES = MiB
OTHER_IO_SHARE = 0.01
OTHERS_CPU_CORES = 0.10
PERFORMANCE = "performance"


def _delta(after: int | None, before: int | None) -> int | None:
    if after is None or before is None or after < before:
        return None  # unknown, or the counter was reset (device detached and attached again)
    return after - before


def others_cpu_cores(before: LoadSnapshot, after: LoadSnapshot) -> float | None:
    """Mean cores other processes kept busy between the snapshots: the machine's busy ticks
    less this process tree's, over the ticks that went by per CPU. Never below 0 (the kernel
    accounts a process's time more finely than /proc/stat's columns)."""
    if before.cpu is None or after.cpu is None:
        return None
    busy = _delta(after.cpu.busy, before.cpu.busy)
    own = _delta(after.own_ticks, before.own_ticks)
    total = _delta(after.cpu.total, before.cpu.total)
    if busy is None or own is None or not total:
        return None
    elapsed = total / after.cpu.cpus
    return max(0.0, (busy - own) / elapsed)


def _beyond(device: int | None, fio: int) -> int | None:
    return None if device is None else max(0, device - fio)


def pass_load(
    step_key: str,
    round_index: int,
    before: LoadSnapshot,
    after: LoadSnapshot,
    fio: FioIo | None,
) -> PassLoad:
    """One pass's load: what the device did (from its /proc/diskstats counters), what fio
    did (from its JSON), the difference, and the other processes' CPU time."""
    b, a = before.disk, after.disk
    read = written = discarded = ios = None
    if a is not None and b is not None:
        read = _sectors(_delta(a.sectors_read, b.sectors_read))
        written = _sectors(_delta(a.sectors_written, b.sectors_written))
        discarded = _sectors(_delta(a.sectors_discarded, b.sectors_discarded))
        counts = (_delta(a.reads, b.reads), _delta(a.writes, b.writes))
        ios = None if None in counts else sum(c for c in counts if c is not None)
        ios = None if ios is None else ios + (_delta(a.discards, b.discards) or 0)
    other = other_ios = None
    if fio is not None:
        other = _other_bytes(read, written, discarded, fio)
        other_ios = None if ios is None or fio.ios is None else max(0, ios - fio.ios)
    return PassLoad(
        step_key=step_key,
        round_index=round_index,
        seconds=max(0.0, after.at_s - before.at_s),
        device_read_bytes=read,
        device_written_bytes=written,
        device_discarded_bytes=discarded,
        device_ios=ios,
        fio_read_bytes=None if fio is None else fio.read_bytes + fio.mixed_bytes,
        fio_written_bytes=None if fio is None else fio.written_bytes,
        fio_trimmed_bytes=None if fio is None else fio.trimmed_bytes,
        fio_ios=None if fio is None else fio.ios,
        other_bytes=other,
        other_ios=other_ios,
        others_cpu_cores=others_cpu_cores(before, after),
    )


def _sectors(count: int | None) -> int | None:
    return None if count is None else count * SECTOR_BYTES


def _other_bytes(
    read: int | None, written: int | None, discarded: int | None, fio: FioIo
) -> int | None:
    """The device's bytes beyond fio's, direction by direction (a read served from a cache
    does not hide a write of someone else); fio's `mixed` bytes only as a total."""
    if read is None or written is None:
        return None
    if fio.mixed_bytes:
        fio_total = fio.read_bytes + fio.written_bytes + fio.mixed_bytes + fio.trimmed_bytes
        return max(0, read + written + (discarded or 0) - fio_total)
    parts = (
        _beyond(read, fio.read_bytes),
        _beyond(written, fio.written_bytes),
        _beyond(discarded, fio.trimmed_bytes) or 0,
    )
    return sum(p for p in parts if p is not None)


def _fio_bytes(load: PassLoad) -> int:
    return sum(
        v or 0 for v in (load.fio_read_bytes, load.fio_written_bytes, load.fio_trimmed_bytes)
    )


def other_io_passes(check: MachineCheck) -> tuple[PassLoad, ...]:
    """The passes during which other I/O hit the target's device (see the module's thresholds)."""
    return tuple(
        p
        for p in check.passes
        if p.other_bytes is not None
        and p.other_bytes > max(OTHER_IO_MIN_BYTES, OTHER_IO_SHARE * _fio_bytes(p))
    )


def busy_cpu_passes(check: MachineCheck) -> tuple[PassLoad, ...]:
    """The passes during which other processes kept the CPU busy (see the thresholds)."""
    return tuple(
        p
        for p in check.passes
        if p.others_cpu_cores is not None and p.others_cpu_cores > OTHERS_CPU_CORES
    )


def _passes(count: int, of: Sequence[PassLoad]) -> str:
    return f"{count} of {len(of)} pass" + ("" if len(of) == 1 else "es")


def machine_notes(check: MachineCheck) -> tuple[str, ...]:
    """What matters about the machine, each a clause of the run's one note; () when nothing."""
    notes = []
    hit = other_io_passes(check)
    if hit:
        worst = max(hit, key=lambda p: p.other_bytes or 0)
        other = format_binary_bytes(worst.other_bytes or 0)
        fio = format_binary_bytes(_fio_bytes(worst))
        notes.append(
            f"other I/O hit the target's device ({check.target_device}) during "
            f"{_passes(len(hit), check.passes)}: up to {other} beyond fio's {fio} "
            f"({worst.step_key}, pass {worst.round_index})"
        )
    busy = busy_cpu_passes(check)
    if busy:
        worst = max(busy, key=lambda p: p.others_cpu_cores or 0.0)
        notes.append(
            f"other processes kept the CPU busy during {_passes(len(busy), check.passes)}: "
            f"up to {worst.others_cpu_cores or 0.0:.2f} cores on average "
            f"({worst.step_key}, pass {worst.round_index}; "
            f"said above {OTHERS_CPU_CORES:.2f} of a core)"
        )
    if check.governors and check.governors != (PERFORMANCE,):
        notes.append(
            f"the CPU frequency governor is {'/'.join(check.governors)}, not {PERFORMANCE} "
            "(for information)"
        )
    if check.virtualization not in (None, "none"):
        notes.append(
            f"ssdlab ran in a virtual machine ({check.virtualization}): the target is the "
            "hypervisor's device, not the drive itself"
        )
    if check.store_on_target_device:
        notes.append(
            f"the store is on the target's device ({check.store_device}): ssdlab wrote it only "
            "between passes"
        )
    return tuple(notes)


def machine_note(check: MachineCheck) -> str | None:
    """The run's one note about its machine ('machine: …; …'), None when nothing matters."""
    notes = machine_notes(check)
    return ("machine: " + "; ".join(notes)) if notes else None
