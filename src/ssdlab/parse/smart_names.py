"""What an ATA attribute's name states: its unit, or the wear it reports.

smartctl names every attribute from its drive database (drivedb.h). Where that name states the
unit (``Host_Writes_32MiB``, ``Lifetime_Writes_GiB``, ``Total_LBAs_Written``) or the wear
(``Remaining_Lifetime_Perc``, ``Percent_Life_Used``), the name is the database's statement about
this drive and is enough to read the value; ssdlab's vendor map (smart_vendors.toml) only adds
what names do not say, and overrides a name where a drive is known to contradict it.

Source: smartmontools ``drivedb/drivedb.h`` at commit f1d0da9ce840f9eac637bb89e11aa2980fa2419d
("VERSION: 7.5" branch of the database); line numbers below are of that file.

Units, by the name (one line per name, the first drivedb line that defines it):

* 32 MiB (2^25 bytes): ``Host_Writes_32MiB`` (l. 759, 241; l. 1450, 225), ``Host_Reads_32MiB``
  (l. 760), ``NAND_Writes_32MiB`` (l. 1875), ``Flash_Writes_32MiB`` (l. 1453),
  ``TLC_Writes_32MiB`` (l. 2642, NAND TLC), ``SLC_Writes_32MiB`` (l. 2643, SLC cache).
* GiB (2^30 bytes): ``Host_Writes_GiB`` (l. 373), ``Host_Reads_GiB`` (l. 704),
  ``Lifetime_Writes_GiB`` (l. 907; l. 1168 doubts it for one KIOXIA firmware: "32MiB ?"),
  ``Lifetime_Reads_GiB`` (l. 908), ``Total_Writes_GiB`` (l. 2432), ``Total_Reads_GiB``
  (l. 2433), ``NAND_Writes_1GiB`` (l. 1714), ``NAND_Writes_GiB`` (l. 3539),
  ``Flash_Writes_GiB`` (l. 1166), ``NAND_GiB_Written`` (l. 933), ``Total_NAND_Writes_GiB``
  (l. 2430), ``Lifetime_NAND_Prg_GiB`` (l. 3582).
* MiB (2^20 bytes): ``Host_Writes_MiB`` (l. 346), ``Host_Reads_MiB`` (l. 345).
* GB (10^9 bytes): ``Total_Writes_GB`` (l. 3536, "~GB, not GiB (#1517)"), ``Total_Reads_GB``
  (l. 3537), ``Lifetime_Wts_Frm_Hst_GB`` (l. 5551), ``Lifetime_Rds_Frm_Hst_GB`` (l. 5552),
  ``Lifetime_Wts_To_Flsh_GB`` (l. 5550), ``NAND_GB_Written_TLC`` (l. 5664),
  ``NAND_GB_Written_SLC`` (l. 5665).
* the logical sector (``logical_block_size``): ``Total_LBAs_Written`` / ``Total_LBAs_Read``
  (DEFAULT entry l. 148-149 for 241/242; drive entries e.g. l. 596 for 246),
  ``Total_Host_LBA_Written`` (l. 261), ``Sectors_Written_to_SSD`` (l. 406),
  ``Sectors_Read_from_SSD`` (l. 408), ``Sectors_Written_to_NAND`` (l. 407),
  ``Nand_Sectors_Written`` (l. 442), ``NAND_Write_Sector_Cnt`` (l. 640),
  ``Flash_Writes_Sectors`` (l. 5463).

Names the database doubts are left out: ``Lifetime_Writes`` ("LBA?", l. 1272),
``Total_NAND_Written`` ("GiB?", l. 2903), ``Host_Writes`` (no unit, l. 1359).

DEFAULT names. 241 ``Total_LBAs_Written``, 242 ``Total_LBAs_Read`` and 233
``Media_Wearout_Indicator`` are in the database's DEFAULT entry (l. 76-157): smartctl prints them
for every drive, also one the database does not know ("Device is: Not in smartctl database"),
where they are a placeholder and no statement (a LITE-ON report counts 32 MiB units under
241 Total_LBAs_Written; a Seagate BarraCuda 120's 233 Media_Wearout_Indicator stays at 100 at 11 %
wear). They are read only when the drive is in the database.

Wear, by the name (``WEAR_NAMES``). Names that say the life *remaining*: ``Percent_Lifetime_Remain``
(l. 372, 592, 846), ``Remaining_Lifetime_Perc`` (l. 1252, 1432), ``Percent_Life_Remaining``
(l. 1990), ``Perc_Rated_Life_Remain`` (l. 200), ``Lifetime_Remaining%`` (l. 1073),
``Remaining_Life`` (l. 263), ``Life_Remaining_Percent`` (l. 230), ``SSD_Remaining_Life_Perc``
(l. 237), ``Lifetime_Left`` (l. 309), ``SSD_Life_Left`` (l. 639), ``SSD_Life_Left_Perc``
(l. 5476), ``PCT_Life_Remaining`` (l. 444), ``Drive_Life_Remaining%`` (l. 2499),
``DriveLife_Remaining%`` (l. 2515); the life *used*: ``Percent_Lifetime_Used`` (l. 402),
``Perc_Rated_Life_Used`` (l. 508), ``Percent_Life_Used`` (l. 2481), ``Drive_Life_Used%``
(l. 2512), ``DriveLife_Used%`` (l. 2522); and 233 ``Media_Wearout_Indicator`` (DEFAULT l. 145,
in the database only), whose normalized value falls from 100 as the rated P/E cycles are used.

Which of the two values holds the percentage the name states is not said by the name. The
normalized value of an ATA attribute falls from 100 as the drive wears (smartctl 7.5 itself
guesses ``endurance_used`` as 100 - normalized for ``SSD_Life_Left.*``, ataprint.cpp
``set_json_globals_from_smart_attrib``); the raw value often holds the percentage itself (an
SMI ``Remaining_Lifetime_Perc`` raw 96 next to normalized 100; a Kingston KC400 ``SSD_Life_Left``
raw 74 next to normalized 100), and on Crucial/Micron ``Percent_Lifetime_Remain`` the raw value
is the percentage *used* (l. 592: "norm = max(100-raw,0); raw = percent_lifetime_used"). So:

1. raw and normalized agree (the raw read in the name's direction, the normalized as life left,
   within 1 %): that value;
2. raw + normalized = 100 (within 1): the l. 592 pattern, raw = % used;
3. normalized 100 (untouched) and raw 0-100: the raw, in the name's direction;
4. only one of the two is a percentage (0-100): that one;
5. anything else: unknown, and the finding names both readings.
"""

from dataclasses import dataclass
from typing import Literal

from ssdlab.model.units import GB

MIB = 1 << 20
GIB = 1 << 30
LOGICAL_SECTOR = 0  # unit marker: bytes per count = the drive's logical_block_size

Metric = Literal[
    "host_written_bytes", "host_read_bytes", "nand_written_bytes", "slc_nand_written_bytes"
]


@dataclass(frozen=True, slots=True)
class UnitName:
    """An attribute name that states what its raw value counts."""

    metric: Metric
    unit_bytes: int  # LOGICAL_SECTOR: the logical sector size
    unit: str  # in words, for provenance


def _names(metric: Metric, unit_bytes: int, unit: str, *names: str) -> dict[str, UnitName]:
    return {name: UnitName(metric, unit_bytes, unit) for name in names}


UNIT_NAMES: dict[str, UnitName] = {
    **_names("host_written_bytes", 32 * MIB, "32 MiB", "Host_Writes_32MiB"),
    **_names("host_read_bytes", 32 * MIB, "32 MiB", "Host_Reads_32MiB"),
    **_names("nand_written_bytes", 32 * MIB, "32 MiB", "NAND_Writes_32MiB", "Flash_Writes_32MiB"),
    **_names("nand_written_bytes", 32 * MIB, "32 MiB", "TLC_Writes_32MiB"),
    **_names("slc_nand_written_bytes", 32 * MIB, "32 MiB", "SLC_Writes_32MiB"),
    **_names(
        "host_written_bytes",
        GIB,
        "GiB",
        "Host_Writes_GiB",
        "Lifetime_Writes_GiB",
        "Total_Writes_GiB",
    ),
    **_names(
        "host_read_bytes", GIB, "GiB", "Host_Reads_GiB", "Lifetime_Reads_GiB", "Total_Reads_GiB"
    ),
    **_names(
        "nand_written_bytes",
        GIB,
        "GiB",
        "NAND_Writes_1GiB",
        "NAND_Writes_GiB",
        "Flash_Writes_GiB",
        "NAND_GiB_Written",
        "Total_NAND_Writes_GiB",
        "Lifetime_NAND_Prg_GiB",
    ),
    **_names("host_written_bytes", MIB, "MiB", "Host_Writes_MiB"),
    **_names("host_read_bytes", MIB, "MiB", "Host_Reads_MiB"),
    **_names("host_written_bytes", GB, "GB", "Total_Writes_GB", "Lifetime_Wts_Frm_Hst_GB"),
    **_names("host_read_bytes", GB, "GB", "Total_Reads_GB", "Lifetime_Rds_Frm_Hst_GB"),
    **_names("nand_written_bytes", GB, "GB", "Lifetime_Wts_To_Flsh_GB", "NAND_GB_Written_TLC"),
    **_names("slc_nand_written_bytes", GB, "GB", "NAND_GB_Written_SLC"),
    **_names(
        "host_written_bytes",
        LOGICAL_SECTOR,
        "logical sector",
        "Total_LBAs_Written",
        "Total_Host_LBA_Written",
        "Sectors_Written_to_SSD",
    ),
    **_names(
        "host_read_bytes",
        LOGICAL_SECTOR,
        "logical sector",
        "Total_LBAs_Read",
        "Total_Host_LBA_Read",
        "Sectors_Read_from_SSD",
    ),
    **_names(
        "nand_written_bytes",
        LOGICAL_SECTOR,
        "logical sector",
        "Sectors_Written_to_NAND",
        "Nand_Sectors_Written",
        "NAND_Write_Sector_Cnt",
        "Flash_Writes_Sectors",
    ),
}

DEFAULT_NAMES: dict[int, str] = {
    241: "Total_LBAs_Written",
    242: "Total_LBAs_Read",
    233: "Media_Wearout_Indicator",
}
"""(ID, name) pairs of drivedb's DEFAULT entry that ssdlab would otherwise read: a statement
only for drives in the database."""

Direction = Literal["remaining", "used"]

WEAR_NAMES: dict[str, Direction] = {
    **dict.fromkeys(
        (
            "Percent_Lifetime_Remain",
            "Remaining_Lifetime_Perc",
            "Percent_Life_Remaining",
            "Perc_Rated_Life_Remain",
            "Lifetime_Remaining%",
            "Remaining_Life",
            "Life_Remaining_Percent",
            "SSD_Remaining_Life_Perc",
            "Lifetime_Left",
            "SSD_Life_Left",
            "SSD_Life_Left_Perc",
            "PCT_Life_Remaining",
            "Drive_Life_Remaining%",
            "DriveLife_Remaining%",
        ),
        "remaining",
    ),
    **dict.fromkeys(
        (
            "Percent_Lifetime_Used",
            "Perc_Rated_Life_Used",
            "Percent_Life_Used",
            "Drive_Life_Used%",
            "DriveLife_Used%",
        ),
        "used",
    ),
}
NORMALIZED_WEAR: dict[int, str] = {233: "Media_Wearout_Indicator"}
"""(ID, name) whose normalized value alone is the life left (Intel's definition)."""

_PERCENT = range(0, 101)


def unit_name(attribute_id: int, name: str, *, in_database: bool) -> UnitName | None:
    """The unit `name` states for attribute `attribute_id`, or None (no unit in the name, or a
    DEFAULT name on a drive the database does not know)."""
    stated = UNIT_NAMES.get(name)
    if stated is None:
        return None
    if DEFAULT_NAMES.get(attribute_id) == name and not in_database:
        return None
    return stated


@dataclass(frozen=True, slots=True)
class WearReading:
    """Wear used (%) read from an attribute by its name, which value it came from and why;
    `value` None when the two values contradict each other (`why` says how)."""

    value: float | None
    field: Literal["raw", "norm", "both"] | None
    why: str


def wear_from_name(
    attribute_id: int, name: str, norm: int | None, raw: int | None, *, in_database: bool
) -> WearReading | None:
    """Wear used from an attribute whose name states wear (module docstring), or None when the
    name does not."""
    if NORMALIZED_WEAR.get(attribute_id) == name:
        if not in_database or norm is None or norm not in _PERCENT:
            return None
        return WearReading(100.0 - norm, "norm", f"{name}: normalized {norm} = life left")
    direction = WEAR_NAMES.get(name)
    if direction is None:
        return None
    raw_used = None
    if raw is not None and raw in _PERCENT:
        raw_used = float(raw if direction == "used" else 100 - raw)
    norm_used = None if norm is None or norm not in _PERCENT else float(100 - norm)
    return _reconcile(name, direction, raw, norm, raw_used, norm_used)


def _reconcile(
    name: str,
    direction: Direction,
    raw: int | None,
    norm: int | None,
    raw_used: float | None,
    norm_used: float | None,
) -> WearReading | None:
    said = f"raw {raw} = % {'used' if direction == 'used' else 'life left'}"
    if raw_used is not None and norm_used is not None:
        if abs(raw_used - norm_used) <= 1:
            return WearReading(raw_used, "both", f"{name}: {said}, normalized {norm} agrees")
        if raw is not None and norm is not None and abs(raw + norm - 100) <= 1:
            return WearReading(
                float(raw),
                "raw",
                f"{name}: raw {raw} + normalized {norm} = 100, so the raw value is the % used "
                "(drivedb: norm = max(100-raw,0); raw = percent_lifetime_used)",
            )
        if norm == 100:
            return WearReading(
                raw_used, "raw", f"{name}: {said}; the normalized value stays at 100"
            )
        return WearReading(
            None,
            None,
            f"{name}: raw {raw} and normalized {norm} give different wear "
            f"({raw_used:g} % or {norm_used:g} % used); neither is taken",
        )
    if raw_used is not None:
        return WearReading(raw_used, "raw", f"{name}: {said}")
    if norm_used is not None:
        return WearReading(norm_used, "norm", f"{name}: normalized {norm} = life left")
    return None
