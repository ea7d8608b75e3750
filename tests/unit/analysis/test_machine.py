"""The machine check's arithmetic on real /proc snapshots, and the note's thresholds."""

from dataclasses import replace
from pathlib import Path

import pytest

from ssdlab.analysis.machine import (
    OTHERS_CPU_CORES,
    machine_note,
    machine_notes,
    others_cpu_cores,
    pass_load,
)
from ssdlab.model.machine import FioIo, LoadSnapshot, MachineCheck, PassLoad
from ssdlab.model.units import MiB
from ssdlab.parse.machine_load import parse_diskstats, parse_proc_stat

DATA = Path(__file__).resolve().parents[2] / "data" / "machine"


def _snapshot(which: str, at_s: float, own: int) -> LoadSnapshot:
    return LoadSnapshot(
        at_s=at_s,
        disk=parse_diskstats((DATA / f"diskstats.{which}").read_text(), "loop6"),
        cpu=parse_proc_stat((DATA / f"stat.{which}").read_text()),
        own_ticks=own,
    )


BEFORE = _snapshot("before", 10.0, own=100)
AFTER = _snapshot("after", 10.5, own=120)


def test_what_the_device_did_beyond_fio_is_counted_per_direction() -> None:
    # loop6 read 8 MiB and wrote 16 MiB between the snapshots (tests/data/machine/README.md)
    fio = FioIo(read_bytes=8 * MiB, written_bytes=12 * MiB, trimmed_bytes=0, ios=44)
    load = pass_load("seq", 1, BEFORE, AFTER, fio)
    assert (load.device_read_bytes, load.device_written_bytes) == (8 * MiB, 16 * MiB)
    assert load.device_discarded_bytes == 0
    assert load.device_ios == 48
    assert load.other_bytes == 4 * MiB
    assert load.other_ios == 4
    assert load.seconds == pytest.approx(0.5)


def test_a_read_served_from_a_cache_does_not_hide_someone_elses_write() -> None:
    fio = FioIo(read_bytes=20 * MiB, written_bytes=16 * MiB, trimmed_bytes=0, ios=None)
    load = pass_load("seq", 1, BEFORE, AFTER, fio)
    assert load.other_bytes == 0
    assert load.other_ios is None
    more = FioIo(read_bytes=20 * MiB, written_bytes=10 * MiB, trimmed_bytes=0, ios=None)
    assert pass_load("seq", 1, BEFORE, AFTER, more).other_bytes == 6 * MiB


def test_mixed_reporting_is_compared_as_a_total() -> None:
    fio = FioIo(read_bytes=0, written_bytes=0, trimmed_bytes=0, ios=None, mixed_bytes=20 * MiB)
    assert pass_load("mix", 1, BEFORE, AFTER, fio).other_bytes == 4 * MiB


def test_others_cpu_is_the_machines_busy_ticks_less_this_process_trees() -> None:
    # busy 2623735 -> 2623797 (62 ticks), total moved 62 ticks on 2 CPUs: 31 ticks went by
    assert others_cpu_cores(BEFORE, AFTER) == pytest.approx((62 - 20) / 31)
    mine = replace(AFTER, own_ticks=100 + 80)  # finer process accounting: never below 0
    assert others_cpu_cores(BEFORE, mine) == 0.0
    assert others_cpu_cores(BEFORE, replace(AFTER, cpu=None)) is None


def test_a_counter_that_went_back_is_unknown() -> None:
    reset = replace(AFTER, disk=replace(BEFORE.disk, sectors_written=0))  # type: ignore[type-var]
    load = pass_load("seq", 1, BEFORE, reset, FioIo(0, 0, 0, 0))
    assert load.device_written_bytes is None
    assert load.other_bytes is None


def _check(*passes: PassLoad, **changes: object) -> MachineCheck:
    check = MachineCheck(
        checked_at_s=0.0,
        cpus=2,
        governors=("performance",),
        virtualization="none",
        virtualization_source="systemd-detect-virt",
        target_device="nvme0n1",
        store_device="sda",
        store_on_target_device=False,
        passes=passes,
    )
    return replace(check, **changes)  # type: ignore[arg-type]


def _pass(other: int | None, fio: int, cores: float | None, key: str = "seq") -> PassLoad:
    return PassLoad(key, 1, 1.0, None, None, None, None, fio, 0, 0, None, other, None, cores)


def test_a_quiet_machine_has_no_note() -> None:
    assert machine_notes(_check(_pass(0, 100 * MiB, 0.02))) == ()
    assert machine_note(_check()) is None


def test_other_io_is_said_above_a_mebibyte_and_a_hundredth_of_fios() -> None:
    assert machine_notes(_check(_pass(MiB, 10 * MiB, 0.0))) == ()  # not above 1 MiB
    assert machine_notes(_check(_pass(5 * MiB, 1000 * MiB, 0.0))) == ()  # 0.5 % of fio's
    (note,) = machine_notes(_check(_pass(0, MiB, 0.0), _pass(20 * MiB, 1000 * MiB, 0.0, "rnd")))
    assert note.startswith("other I/O hit the target's device (nvme0n1) during 1 of 2 passes")
    assert "20.0 MiB beyond fio's 1000.0 MiB (rnd, pass 1)" in note


def test_other_processes_are_said_above_a_tenth_of_a_core() -> None:
    assert machine_notes(_check(_pass(0, MiB, OTHERS_CPU_CORES))) == ()
    (note,) = machine_notes(_check(_pass(0, MiB, 0.5), _pass(0, MiB, 1.25, "rnd")))
    assert note.startswith("other processes kept the CPU busy during 2 of 2 passes: up to 1.25")


def test_the_governor_a_vm_and_a_shared_store_are_said() -> None:
    note = machine_note(
        _check(
            governors=("powersave",),
            virtualization="kvm",
            store_on_target_device=True,
            store_device="nvme0n1",
        )
    )
    assert note is not None
    assert note.startswith("machine: the CPU frequency governor is powersave, not performance")
    assert "virtual machine (kvm)" in note
    assert "the store is on the target's device (nvme0n1)" in note
    unknown = _check(governors=(), virtualization=None, store_on_target_device=None)
    assert machine_note(unknown) is None
