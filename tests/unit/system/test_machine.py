"""The machine check's readers, pointed at recorded files instead of /proc and /sys."""

import shutil
from pathlib import Path

from ssdlab.model.machine import MACHINE_KEY, MachineCheck
from ssdlab.model.target import Target, TargetKind
from ssdlab.runner.machine_watch import MachineWatch
from ssdlab.system.machine import LoadProbe, check_machine, detect_virtualization, read_governors

DATA = Path(__file__).resolve().parents[2] / "data" / "machine"


def _governor(root: Path, cpu: str, name: str) -> None:
    folder = root / cpu / "cpufreq"
    folder.mkdir(parents=True)
    (folder / "scaling_governor").write_text(name + "\n")


def test_governors_are_the_distinct_ones_and_none_without_cpufreq(tmp_path: Path) -> None:
    assert read_governors(tmp_path) == ()
    _governor(tmp_path, "cpu0", "performance")
    _governor(tmp_path, "cpu1", "powersave")
    _governor(tmp_path, "cpu2", "performance")
    (tmp_path / "cpufreq").mkdir()  # not a cpuN folder
    assert read_governors(tmp_path) == ("performance", "powersave")


def test_virtualisation_without_systemd_detect_virt(tmp_path: Path) -> None:
    dmi, cpuinfo = tmp_path / "dmi", tmp_path / "cpuinfo"
    dmi.mkdir()
    assert detect_virtualization(None, dmi, cpuinfo) == (None, None)
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu vme de pse\n")
    assert detect_virtualization(None, dmi, cpuinfo) == ("none", "cpuinfo")
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n")
    assert detect_virtualization(None, dmi, cpuinfo) == ("vm", "cpuinfo")
    (dmi / "sys_vendor").write_text("QEMU\n")
    assert detect_virtualization(None, dmi, cpuinfo) == ("qemu", "sys_vendor")
    (dmi / "sys_vendor").write_text("Microsoft Corporation\n")
    (dmi / "product_name").write_text("Surface Laptop\n")
    assert detect_virtualization("no-such-tool-here", dmi, cpuinfo) == ("vm", "cpuinfo")


def test_a_probe_reads_the_recorded_counters(tmp_path: Path) -> None:
    (tmp_path / "self").mkdir()
    shutil.copy(DATA / "diskstats.before", tmp_path / "diskstats")
    shutil.copy(DATA / "stat.before", tmp_path / "stat")
    shutil.copy(DATA / "self-stat.txt", tmp_path / "self" / "stat")
    snap = LoadProbe("loop6", tmp_path).snapshot()
    assert snap.disk is not None
    assert snap.disk.sectors_written == 110427971
    assert snap.cpu is not None
    assert snap.cpu.cpus == 2
    assert snap.own_ticks == 0
    assert LoadProbe("nvme9n9", tmp_path).snapshot().disk is None
    (tmp_path / "stat").write_text("cpu  1 x 3 4\n")  # unreadable text: unknown, no error
    assert LoadProbe("loop6", tmp_path).snapshot().cpu is None


def test_a_check_and_a_watched_pass_are_kept_in_the_environment(tmp_path: Path) -> None:
    """Made on this machine: the figures are recorded whatever the machine is doing (nothing
    here asserts it is idle)."""
    target = Target(TargetKind.FILE, str(tmp_path / "t.tmp"), 4096, str(tmp_path))
    check = check_machine(target, tmp_path / "s.db", detect_virt=None)
    if check.target_device is not None:  # a file system on a block device
        assert check.store_device == check.target_device
        assert check.store_on_target_device is True
    watch = MachineWatch(check, LoadProbe(check.target_device).snapshot)
    before = watch.before_pass()
    fio = (DATA.parent / "fio" / "seqwrite-1m.json").read_text()
    watch.after_pass("seq", 2, before, fio)
    stored = watch.environment({"host": "h"})
    assert stored["host"] == "h"
    body = stored[MACHINE_KEY]
    (load,) = body["passes"]
    assert (load["step_key"], load["round_index"]) == ("seq", 2)
    assert load["fio_written_bytes"] > 0
    assert load["others_cpu_cores"] is None or load["others_cpu_cores"] >= 0
    resumed = MachineWatch(check, LoadProbe(None).snapshot)
    resumed.continue_from(stored)
    assert isinstance(resumed.check, MachineCheck)
    assert len(resumed.check.passes) == 1
