"""The machine a run happens on, checked before it and watched around every pass: other I/O on
the target's device, CPU time of other processes, the CPU frequency governor, a virtual
machine, and whether the store shares the target's device. Stored in the run's environment
(`environment["machine"]`); unknown is None, and a run stored before the check has none."""

from dataclasses import dataclass

MACHINE_KEY = "machine"  # where a run's environment keeps its machine check


@dataclass(frozen=True, slots=True)
class DiskCounters:
    """One device's line of /proc/diskstats: what it completed since boot (sectors of 512 B).
    Discards are None on kernels before 4.18, which do not count them."""

    reads: int
    sectors_read: int
    writes: int
    sectors_written: int
    discards: int | None = None
    sectors_discarded: int | None = None


@dataclass(frozen=True, slots=True)
class CpuTicks:
    """The machine's CPU time from /proc/stat's `cpu` line, in clock ticks: `busy` is user,
    nice and system time (interrupts, steal and idle left out), `total` every column."""

    busy: int
    total: int
    cpus: int  # the cpuN lines: total / cpus is the time that went by, in ticks


@dataclass(frozen=True, slots=True)
class LoadSnapshot:
    """What the machine had done at one moment: the target device's counters, the machine's
    CPU time and this process's own (with the children it waited for: fio), in clock ticks."""

    at_s: float  # monotonic
    disk: DiskCounters | None
    cpu: CpuTicks | None
    own_ticks: int | None


@dataclass(frozen=True, slots=True)
class FioIo:
    """What fio reports doing in one pass (its JSON, every job summed)."""

    read_bytes: int
    written_bytes: int
    trimmed_bytes: int
    ios: int | None  # None: an old fio printed no total_ios
    mixed_bytes: int = 0  # unified_rw_reporting: reads and writes reported together


@dataclass(frozen=True, slots=True)
class PassLoad:
    """What else the machine did during one fio pass. `other_*` is what the target's device
    did beyond fio's own I/O (each direction at least 0: a read served from a cache counts
    nothing); `others_cpu_cores` the mean number of cores other processes kept busy."""

    step_key: str
    round_index: int
    seconds: float
    device_read_bytes: int | None
    device_written_bytes: int | None
    device_discarded_bytes: int | None
    device_ios: int | None
    fio_read_bytes: int | None
    fio_written_bytes: int | None
    fio_trimmed_bytes: int | None
    fio_ios: int | None
    other_bytes: int | None
    other_ios: int | None
    others_cpu_cores: float | None


@dataclass(frozen=True, slots=True)
class MachineCheck:
    """The check made before a run, and the load of each fio pass as the run went on."""

    checked_at_s: float
    cpus: int | None
    governors: tuple[str, ...]  # the distinct scaling governors of the CPUs; () unknown
    virtualization: str | None  # "none", or the hypervisor ("kvm", "vmware", "vm"); None unknown
    virtualization_source: str | None  # systemd-detect-virt, sys_vendor or cpuinfo
    target_device: str | None  # the block device whose /proc/diskstats line is watched
    store_device: str | None  # the block device holding the store's file
    store_on_target_device: bool | None
    passes: tuple[PassLoad, ...] = ()
