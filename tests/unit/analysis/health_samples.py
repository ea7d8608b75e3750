"""Health samples built by hand for the wear analysis tests: only the counters a test sets."""

from ssdlab.model.health import UNKNOWN, DriveIdentity, HealthSample, HealthValue, Provenance
from ssdlab.model.units import GiB


def hv(value: float | None, resolution: float | None) -> HealthValue:
    if value is None:
        return UNKNOWN
    return HealthValue(value, Provenance("test", value, "test", resolution))


def make_sample(
    t_s: float | None,
    *,
    host: float | None = None,
    nand: float | None = None,
    wear: float | None = None,
    erase: float | None = None,
    host_res: float | None = GiB,
    nand_res: float | None = GiB,
    wear_res: float | None = 1.0,
    erase_res: float | None = 1.0,
    serial: str | None = "S1",
    capacity: int | None = None,
    rated_pe: float | None = None,
) -> HealthSample:
    return HealthSample(
        taken_at_s=t_s,
        identity=DriveIdentity("ATA", "model", serial, "fw", capacity),
        host_written_bytes=hv(host, host_res),
        nand_written_bytes=hv(nand, nand_res),
        wear_used_pct=hv(wear, wear_res),
        erase_count_avg=hv(erase, erase_res),
        rated_pe_cycles=hv(rated_pe, None),
    )
