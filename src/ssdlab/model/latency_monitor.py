"""The OCP Latency Monitor's settings (Set Features, Feature Identifier C5h) as ssdlab enables
it before a run (`--latency-monitor-enable`), and the data the command carries.

The data structure is nvme-cli's own `struct feature_latency_monitor`, which its
`nvme ocp set-latency-monitor-feature` sends (github.com/linux-nvme/nvme-cli,
plugins/ocp/ocp-nvme.c, commit e117ee68059fe1f44e2486dd03fd62aa3f96a9dc; the same fields at tag
v2.5 in plugins/ocp/ocp-nvme.h), 4096 bytes, little-endian, packed:

    bytes 1:0   Active Bucket Timer Threshold (5-minute units)
    bytes 2..5  Active Threshold A, B, C, D ((value + 1) x 5 ms)
    bytes 7:6   Active Latency Configuration (a bit per bucket and command)
    byte 8      Active Latency Minimum Window (100 ms units)
    bytes 10:9  Debug Log Trigger Enable
    byte 11     Discard Debug Log
    byte 12     Latency Monitor Feature Enable
    4083 reserved bytes (zero)

nvme-cli sends it with Save set and NSID 0 (v2.5: `.nsid = 0, .save = 1`). Its defaults other
than the thresholds (`-f 0xfff -w 10 -r 0 -l 0 -e 1`: every bucket and command counted, a
one-second minimum window, no debug log) are ssdlab's too; ssdlab's thresholds are A 5 ms,
B 10 ms, C 20 ms, D 50 ms and its timer threshold 2016 (a week), as docs/ocp.md shows.
"""

from dataclasses import dataclass

FEATURE_ID = 0xC5
DATA_BYTES = 4096
THRESHOLD_UNIT_MS = 5
MAX_THRESHOLD_MS = 256 * THRESHOLD_UNIT_MS  # a byte: (255 + 1) x 5 ms
DEFAULT_THRESHOLDS_MS = (5, 10, 20, 50)
DEFAULT_TIMER_THRESHOLD = 2016  # 5-minute units: a week
ALL_BUCKETS_AND_COMMANDS = 0xFFF
MIN_WINDOW = 10  # 100 ms units: one second


@dataclass(frozen=True, slots=True)
class MonitorSetting:
    """What Feature C5h is set to: thresholds A-D in ms (multiples of 5 from 5 to 1280, rising)
    and the Active Bucket Timer threshold in 5-minute units."""

    thresholds_ms: tuple[int, int, int, int] = DEFAULT_THRESHOLDS_MS
    timer_threshold: int = DEFAULT_TIMER_THRESHOLD

    def __post_init__(self) -> None:
        for value in self.thresholds_ms:
            if value % THRESHOLD_UNIT_MS or not THRESHOLD_UNIT_MS <= value <= MAX_THRESHOLD_MS:
                raise ValueError(
                    f"a Latency Monitor threshold is a multiple of 5 ms from 5 to "
                    f"{MAX_THRESHOLD_MS} ms, not {value} ms"
                )
        if list(self.thresholds_ms) != sorted(set(self.thresholds_ms)):
            raise ValueError("the Latency Monitor's thresholds A-D rise: A < B < C < D")
        if not 1 <= self.timer_threshold <= 0xFFFF:
            raise ValueError("the Active Bucket Timer threshold is 1 to 65535 (5-minute units)")

    @property
    def threshold_bytes(self) -> tuple[int, int, int, int]:
        """The thresholds as the feature holds them: ms / 5 - 1."""
        a, b, c, d = (value // THRESHOLD_UNIT_MS - 1 for value in self.thresholds_ms)
        return a, b, c, d


@dataclass(frozen=True, slots=True)
class LatencyMonitorRequest:
    """Read C3h around the measured passes; with `enable`, set Feature C5h first."""

    enable: MonitorSetting | None = None


def parse_thresholds(text: str) -> tuple[int, int, int, int]:
    """'5,10,20,50' (ms; an 'ms' after each is allowed) as thresholds A-D; ValueError else."""
    parts = [p.strip().removesuffix("ms").strip() for p in text.split(",")]
    if len(parts) != 4 or not all(p.isdigit() for p in parts):
        raise ValueError(f"give four thresholds A,B,C,D in ms, e.g. 5,10,20,50 (not {text!r})")
    a, b, c, d = (int(p) for p in parts)
    MonitorSetting((a, b, c, d))  # checked
    return a, b, c, d


def feature_data(setting: MonitorSetting) -> bytes:
    """The 4096 bytes nvme-cli's set-latency-monitor-feature sends (layout in the docstring)."""
    data = bytearray(DATA_BYTES)
    data[0:2] = setting.timer_threshold.to_bytes(2, "little")
    data[2:6] = bytes(setting.threshold_bytes)
    data[6:8] = ALL_BUCKETS_AND_COMMANDS.to_bytes(2, "little")
    data[8] = MIN_WINDOW
    data[9:11] = (0).to_bytes(2, "little")  # debug log trigger: none
    data[11] = 0  # discard debug log: no
    data[12] = 1  # enable
    return bytes(data)


def ocp_plugin_args(setting: MonitorSetting) -> tuple[str, ...]:
    """The same setting as `nvme ocp set-latency-monitor-feature` options."""
    a, b, c, d = setting.threshold_bytes
    return (
        f"--active_bucket_timer_threshold={setting.timer_threshold}",
        f"--active_threshold_a={a}",
        f"--active_threshold_b={b}",
        f"--active_threshold_c={c}",
        f"--active_threshold_d={d}",
        f"--active_latency_config={ALL_BUCKETS_AND_COMMANDS:#x}",
        f"--active_latency_minimum_window={MIN_WINDOW}",
        "--debug_log_trigger_enable=0",
        "--discard_debug_log=0",
        "--latency_monitor_feature_enable=1",
    )


def by_hand_command(device: str, setting: MonitorSetting | None = None) -> str:
    """The nvme-cli command line a user types to enable it (nvme-cli 2.5 or later)."""
    chosen = setting or MonitorSetting()
    a, b, c, d = chosen.threshold_bytes
    return (
        f"nvme ocp set-latency-monitor-feature {device} -t {chosen.timer_threshold} "
        f"-a {a} -b {b} -c {c} -d {d} -f {ALL_BUCKETS_AND_COMMANDS:#x} -w {MIN_WINDOW} -e 1"
    )
