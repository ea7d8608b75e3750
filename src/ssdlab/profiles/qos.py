"""The `qos` profile: a datacenter workload at its rates per TB of the target, its latency
tails judged against targets (the OCP Datacenter NVMe SSD Spec's by default) as pass, fail or
inconclusive, with 95 % intervals."""

from importlib import resources

from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.profile_settings import QosSettings
from ssdlab.model.units import GiB

TARGETS_FILE = "qos_targets.toml"
TARGETS_ORIGIN = "ssdlab's OCP targets (profiles/qos_targets.toml)"


def shipped_targets() -> str:
    """The targets ssdlab ships: OCP Datacenter NVMe SSD Spec v2.0, Appendix A.2.1."""
    return resources.files("ssdlab.profiles").joinpath(TARGETS_FILE).read_text(encoding="utf-8")


SPEC = ProfileSpec(
    name="qos",
    version=1,
    summary="datacenter QoS: a workload at its rates per TB, tails judged against targets",
    description=(
        "Runs a workload of a targets file (by default OCP Datacenter NVMe SSD Spec v2.0, "
        "App. A.2.1, 4K_L2R6DWPD_wTRIM: random 4 KiB reads, writes and trims at fixed MiB/s "
        "per TB of the target) and judges every latency target of the file as pass, fail or "
        "inconclusive from fio's completion-latency histogram: a percentile passes when its "
        "whole 95 % interval is under the target, fails when it is all over, and is "
        "inconclusive otherwise or when the run had too few I/Os to bound it ('needs ≥ N "
        "I/Os'); a maximum is judged as measured, with its n. The default duration is what "
        "the deepest percentile needs (10 I/Os expected above it: 10^7 I/Os for p99.9999), "
        "which at these rates is hours on a small target; --duration runs shorter. Trims run "
        "only on a device target. Writes to its target."
    ),
    options=(
        OptionSpec(
            "workload",
            OptionKind.TEXT,
            None,
            "the workload of the targets file (default: its first)",
            group="targets",
        ),
        OptionSpec(
            "targets",
            OptionKind.TEXT,
            None,
            "your own targets file (TOML, the schema of docs/qos.md); default: OCP's",
            metavar="FILE",
            group="targets",
        ),
        OptionSpec(
            "targets_text",
            OptionKind.TEXT,
            None,
            "the targets file's text (read from --targets, and stored with the run)",
            group="targets",
        ),
        OptionSpec(
            "duration",
            OptionKind.SECONDS,
            None,
            "seconds of the workload (default: long enough for the deepest percentile)",
            minimum=1.0,
            maximum=30 * 86400,
        ),
        OptionSpec(
            "iodepth",
            OptionKind.INT,
            32,
            "queue depth of each direction's job (a workload may set its own: CTO-3, TRIM-6-7)",
            minimum=1,
            maximum=1024,
        ),
    ),
    examples=(
        "ssdlab run qos /dev/nvme0n1 --destroy-data /dev/nvme0n1",
        "ssdlab run qos /dev/nvme0n1 --destroy-data /dev/nvme0n1 --duration 1h",
        "ssdlab run qos /mnt/ssd --targets my-targets.toml --duration 10m",
    ),
    writes=Writes.ALWAYS,
    default_file_size_bytes=GiB,
    whole_device_by_default=True,
    settings_type=QosSettings,
)
