"""Write the synthetic smartctl text fixtures of this folder (see README.md).

Run from the project root:

    python tests/data/smart-text/make_fixtures.py [SHARED_SMART_DIR]

SHARED_SMART_DIR defaults to ../shared/testdata/smart. Three fixtures re-render the values of
shared smartctl JSON samples as smartctl would have printed them as text; the others use values
made up here. The line formats are smartmontools' printf formats (ataprint.cpp, nvmeprint.cpp,
utility.cpp format_capacity); only lines whose content the JSON (or the tables below) hold are
written. Output is deterministic: rerunning rewrites the same bytes.
"""

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

BANNER_70 = (
    "smartctl 7.0 2018-12-30 r4883 [{platform}] (local build)\n"
    "Copyright (C) 2002-18, Bruce Allen, Christian Franke, www.smartmontools.org\n\n"
)
BANNER_73 = (
    "smartctl 7.3 2022-02-28 r5338 [{platform}] (local build)\n"
    "Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org\n\n"
)
BRIEF_LEGEND = (
    "                            ||||||_ K auto-keep\n"
    "                            |||||__ C event count\n"
    "                            ||||___ R error rate\n"
    "                            |||____ S speed/performance\n"
    "                            ||_____ O updated online\n"
    "                            |______ P prefailure warning\n"
)


def thousands(value: int) -> str:
    return f"{value:,}"


def format_capacity(value: int) -> str:
    """utility.cpp format_capacity: SI prefixes, three digits, truncated (not rounded)."""
    prefixes = " KMGTP"
    index, divisor = 0, 1
    while value >= divisor * 1000 and index < len(prefixes) - 2:
        divisor *= 1000
        index += 1
    whole = value // divisor
    if index == 0:
        return f"{whole} B"
    if whole >= 100:
        return f"{whole} {prefixes[index]}B"
    if whole >= 10:
        return f"{whole}.{(value % divisor) * 10 // divisor} {prefixes[index]}B"
    return f"{whole}.{(value % divisor) * 100 // divisor:02d} {prefixes[index]}B"


def flag_letters(flags: dict[str, Any]) -> str:
    word = flags["value"]
    letters = "".join(
        letter if word & bit else "-"
        for letter, bit in zip("POSRCK", (1, 2, 4, 8, 16, 32), strict=True)
    )
    return letters + ("+" if word & 0xFFC0 else " ")


def norm(entry: dict[str, Any], key: str) -> str:
    return f"{entry[key]:03d}" if key in entry else "---"


def brief_row(entry: dict[str, Any]) -> str:
    fail = {"now": "NOW", "past": "Past"}.get(entry.get("when_failed", ""), "-")
    return "{:3d} {:<24s}{}  {:<4s}  {:<4s}  {:<4s}   {:<5s}{}\n".format(
        entry["id"],
        entry["name"],
        flag_letters(entry["flags"]),
        norm(entry, "value"),
        norm(entry, "worst"),
        norm(entry, "thresh"),
        fail,
        entry["raw"]["string"],
    )


def old_row(attr_id: int, name: str, flags: int, values: tuple[int, int, int], raw: str) -> str:
    value, worst, thresh = values
    return "{:3d} {:<24s}0x{:04x}   {:<4s}  {:<4s}  {:<4s}   {:<10s}{:<9s}{:<12s}{}\n".format(
        attr_id,
        name,
        flags,
        f"{value:03d}",
        f"{worst:03d}",
        f"{thresh:03d}",
        "Pre-fail" if flags & 1 else "Old_age",
        "Always" if flags & 2 else "Offline",
        "    -",
        raw,
    )


def wwn_line(wwn: dict[str, int]) -> str:
    return f"LU WWN Device Id: {wwn['naa']:x} {wwn['oui']:06x} {wwn['id']:09x}\n"


def sata_line(doc: dict[str, Any]) -> str:
    speed = doc["interface_speed"]
    return (
        f"SATA Version is:  {doc['sata_version']['string']}, {speed['max']['string']} "
        f"(current: {speed['current']['string']})\n"
    )


def capacity_line(doc: dict[str, Any]) -> str:
    size = doc["user_capacity"]["bytes"]
    return f"User Capacity:    {thousands(size)} bytes [{format_capacity(size)}]\n"


# --- Samsung 860 EVO, smartctl -x (7.0), from the shared JSON --------------------------------


def general_smart_values(data: dict[str, Any], sct_caps: int) -> str:
    status = data["offline_data_collection"]["status"]["value"]
    caps, smart_caps = data["capabilities"]["values"]
    polling = data["self_test"]["polling_minutes"]
    out = "General SMART Values:\n"
    out += f"Offline data collection status:  (0x{status:02x})\tOffline data collection activity\n"
    out += f"\t\t\t\t\t{data['offline_data_collection']['status']['string']}.\n"
    out += "\t\t\t\t\tAuto Offline Data Collection: {}.\n".format(
        "Enabled" if status & 0x80 else "Disabled"
    )
    out += (
        f"Self-test execution status:      ({data['self_test']['status']['value']:4d})"
        "\tThe previous self-test routine completed\n"
        "\t\t\t\t\twithout error or no self-test has ever \n\t\t\t\t\tbeen run.\n"
    )
    out += "Total time to complete Offline \n"
    out += "data collection: \t\t({:5d}) seconds.\n".format(
        data["offline_data_collection"]["completion_seconds"]
    )
    out += f"Offline data collection\ncapabilities: \t\t\t (0x{caps:02x}) "
    out += (
        "SMART execute Offline immediate.\n"
        if caps & 0x01
        else "No SMART execute Offline immediate.\n"
    )
    lines = (
        (
            0x02,
            "Auto Offline data collection on/off support.",
            "No Auto Offline data collection support.",
        ),
        (
            0x04,
            "Abort Offline collection upon new\n\t\t\t\t\tcommand.",
            "Suspend Offline collection upon new\n\t\t\t\t\tcommand.",
        ),
        (0x08, "Offline surface scan supported.", "No Offline surface scan supported."),
        (0x10, "Self-test supported.", "No Self-test supported."),
        (0x20, "Conveyance Self-test supported.", "No Conveyance Self-test supported."),
        (0x40, "Selective Self-test supported.", "No Selective Self-test supported."),
    )
    for bit, yes, no in lines:
        out += "\t\t\t\t\t" + (yes if caps & bit else no) + "\n"
    out += (
        f"SMART capabilities:            (0x{smart_caps:04x})\tSaves SMART data before entering\n"
    )
    out += "\t\t\t\t\tpower-saving mode.\n\t\t\t\t\tSupports SMART auto save timer.\n"
    out += "Error logging capability:        (0x01)\tError logging supported.\n"
    out += "\t\t\t\t\tGeneral Purpose Logging supported.\n"
    out += "Short self-test routine \n"
    out += f"recommended polling time: \t ({polling['short']:4d}) minutes.\n"
    out += "Extended self-test routine\n"
    out += f"recommended polling time: \t ({polling['extended']:4d}) minutes.\n"
    out += f"SCT capabilities: \t       (0x{sct_caps:04x})\tSCT Status supported.\n"
    out += "\t\t\t\t\tSCT Error Recovery Control supported.\n"
    out += "\t\t\t\t\tSCT Feature Control supported.\n"
    out += "\t\t\t\t\tSCT Data Table supported.\n\n"
    return out


def log_rw(address: int) -> str:
    if address <= 0x08 or 0x10 <= address <= 0x13 or address == 0x30:
        return "R/O"
    if address == 0x09 or 0x80 <= address <= 0x9F or 0xE0 <= address <= 0xE1:
        return "R/W"
    if 0xA0 <= address <= 0xDF:
        return "VS"
    return "-"


def log_directory(directory: dict[str, Any]) -> str:
    out = f"General Purpose Log Directory Version {directory['gp_dir_version']}\n"
    out += "SMART           Log Directory Version {}{}\n".format(
        directory["smart_dir_version"],
        " [multi-sector log support]" if directory["smart_dir_multi_sector"] else "",
    )
    out += "Address    Access  R/W   Size  Description\n"
    entries = directory["table"]
    index = 0
    while index < len(entries):
        entry = entries[index]
        gp, sl = entry.get("gp_sectors", 0), entry.get("smart_sectors", 0)
        access = "GPL,SL" if gp == sl else ("GPL" if not sl else "    SL")
        size = gp or sl
        address, last = entry["address"], entry["address"]
        if 0x80 <= address < 0x9F:
            while (
                index + 1 < len(entries)
                and entries[index + 1]["address"] == last + 1
                and entries[index + 1]["address"] <= 0x9F
                and entries[index + 1].get("gp_sectors", 0) == gp
                and entries[index + 1].get("smart_sectors", 0) == sl
            ):
                index += 1
                last = entries[index]["address"]
        where = f"0x{address:02x}-0x{last:02x}" if last > address else f"0x{address:02x}     "
        out += f"{where}  {access:<6s}  {log_rw(address):<3s}  {size:5d}  {entry['name']}\n"
        index += 1
    return out + "\n"


def self_test_log(log: dict[str, Any]) -> str:
    out = f"SMART Extended Self-test Log Version: {log['revision']} ({log['sectors']} sectors)\n"
    out += (
        "Num  Test_Description    Status                  Remaining"
        "  LifeTime(hours)  LBA_of_first_error\n"
    )
    for number, entry in enumerate(log["table"], start=1):
        out += "#{:2d}  {:<19s} {:<29s} {:>3s}  {:8d}         -\n".format(
            number,
            entry["type"]["string"],
            entry["status"]["string"],
            "00%",
            entry["lifetime_hours"],
        )
    return out + "\n"


def selective_log(log: dict[str, Any]) -> str:
    out = f"SMART Selective self-test log data structure revision number {log['revision']}\n"
    out += " SPAN  MIN_LBA  MAX_LBA  CURRENT_TEST_STATUS\n"
    for span, entry in enumerate(log["table"], start=1):
        out += (
            f"{span:5d} {entry['lba_min']:8d} {entry['lba_max']:8d}  {entry['status']['string']}\n"
        )
    out += f"Selective self-test flags (0x{log['flags']['value']:x}):\n"
    out += "  After scanning selected spans, do NOT read-scan remainder of disk.\n"
    out += (
        "If Selective self-test is pending on power-up, resume after {} minute delay.\n\n".format(
            log["power_up_scan_resume_minutes"]
        )
    )
    return out


def sct_status(doc: dict[str, Any]) -> str:
    status = doc["ata_sct_status"]
    temp = status["temperature"]
    history = doc["ata_sct_temperature_history"]
    limits = history["temperature"]
    out = f"SCT Status Version:                  {status['format_version']}\n"
    version, state = status["sct_version"], status["device_state"]
    out += f"SCT Version (vendor specific):       {version} (0x{version:04x})\n"
    out += f"Device State:                        {state['string']} ({state['value']})\n"
    out += f"Current Temperature:                    {temp['current']:2d} Celsius\n"
    out += "Power Cycle Min/Max Temperature:     {:2d}/{:2d} Celsius\n".format(
        temp["power_cycle_min"], temp["power_cycle_max"]
    )
    out += "Lifetime    Min/Max Temperature:     {:2d}/{:2d} Celsius\n".format(
        temp["lifetime_min"], temp["lifetime_max"]
    )
    out += "Under/Over Temperature Limit Count:  {:2d}/{}\n\n".format(
        temp["under_limit_count"], temp["over_limit_count"]
    )
    out += f"SCT Temperature History Version:     {history['version']}\n"
    period = history["sampling_period_minutes"]
    interval = history["logging_interval_minutes"]
    out += f"Temperature Sampling Period:         {period} minute{'' if period == 1 else 's'}\n"
    out += f"Temperature Logging Interval:        {interval} minute{'' if interval == 1 else 's'}\n"
    out += "Min/Max recommended Temperature:     {:2d}/{:2d} Celsius\n".format(
        limits["op_limit_min"], limits["op_limit_max"]
    )
    out += "Min/Max Temperature Limit:           {:2d}/{:2d} Celsius\n".format(
        limits["limit_min"], limits["limit_max"]
    )
    out += f"Temperature History Size (Index):    {history['size']} ({history['index']})\n\n"
    erc = doc["ata_sct_erc"]
    out += "SCT Error Recovery Control:\n"
    out += "           Read: {}\n".format("Enabled" if erc["read"]["enabled"] else "Disabled")
    out += "          Write: {}\n\n".format("Enabled" if erc["write"]["enabled"] else "Disabled")
    return out


def devstat(stats: dict[str, Any]) -> str:
    out = "Device Statistics (GP Log 0x04)\n"
    out += "Page  Offset Size        Value Flags Description\n"
    for page in stats["pages"]:
        out += "0x{:02x}  =====  =               =  ===  == {} (rev {}) ==\n".format(
            page["number"], page["name"], page["revision"]
        )
        for entry in page["table"]:
            flags = entry["flags"]
            flagstr = (
                ("N" if flags["normalized"] else "-")
                + ("D" if flags["supports_dsn"] else "-")
                + ("C" if flags["monitored_condition_met"] else "-")
                + ("+" if flags["value"] & 0x07 else " ")
            )
            value = str(entry["value"]) if flags["valid"] else "-"
            out += "0x{:02x}  0x{:03x}  {} {:>15s}  {} {}\n".format(
                page["number"], entry["offset"], entry["size"], value, flagstr, entry["name"]
            )
    out += " " * 32 + "|||_ C monitored condition met\n"
    out += " " * 32 + "||__ D supports DSN\n"
    out += " " * 32 + "|___ N normalized value\n\n"
    return out


def phy_counters(counters: dict[str, Any]) -> str:
    out = "SATA Phy Event Counters (GP Log 0x11)\n"
    out += "ID      Size     Value  Description\n"
    for entry in counters["table"]:
        out += "0x{:04x}  {} {:12d}{} {}\n".format(
            entry["id"],
            entry["size"],
            entry["value"],
            "+" if entry["overflow"] else " ",
            entry["name"],
        )
    return out + "\n"


def render_860evo_x(doc: dict[str, Any]) -> str:
    out = BANNER_70.format(platform=doc["smartctl"]["platform_info"])
    out += "=== START OF INFORMATION SECTION ===\n"
    out += f"Model Family:     {doc['model_family']}\n"
    out += f"Device Model:     {doc['model_name']}\n"
    out += f"Serial Number:    {doc['serial_number']}\n"
    out += wwn_line(doc["wwn"])
    out += f"Firmware Version: {doc['firmware_version']}\n"
    out += capacity_line(doc)
    out += f"Sector Size:      {doc['logical_block_size']} bytes logical/physical\n"
    out += "Rotation Rate:    Solid State Device\n"
    out += f"Form Factor:      {doc['form_factor']['name']}\n"
    out += "Device is:        In smartctl database [for details use: -P show]\n"
    out += f"ATA Version is:   {doc['ata_version']['string']}\n"
    out += sata_line(doc)
    out += f"Local Time is:    {doc['local_time']['asctime']}\n"
    out += "SMART support is: Available - device has SMART capability.\n"
    out += "SMART support is: Enabled\n"
    out += "Rd look-ahead is: {}\n".format(
        "Enabled" if doc["read_lookahead"]["enabled"] else "Disabled"
    )
    out += "Write cache is:   {}\n".format(
        "Enabled" if doc["write_cache"]["enabled"] else "Disabled"
    )
    out += f"ATA Security is:  {doc['ata_security']['string']}\n\n"
    out += "=== START OF READ SMART DATA SECTION ===\n"
    out += "SMART overall-health self-assessment test result: {}\n\n".format(
        "PASSED" if doc["smart_status"]["passed"] else "FAILED!"
    )
    out += general_smart_values(doc["ata_smart_data"], doc["ata_sct_capabilities"]["value"])
    attributes = doc["ata_smart_attributes"]
    out += f"SMART Attributes Data Structure revision number: {attributes['revision']}\n"
    out += "Vendor Specific SMART Attributes with Thresholds:\n"
    out += "ID# ATTRIBUTE_NAME          FLAGS    VALUE WORST THRESH FAIL RAW_VALUE\n"
    out += "".join(brief_row(entry) for entry in attributes["table"])
    out += BRIEF_LEGEND + "\n"
    out += log_directory(doc["ata_log_directory"])
    errors = doc["ata_smart_error_log"]["extended"]
    out += "SMART Extended Comprehensive Error Log Version: {} ({} sectors)\n".format(
        errors["revision"], errors["sectors"]
    )
    out += "No Errors Logged\n\n"
    out += self_test_log(doc["ata_smart_self_test_log"]["extended"])
    out += selective_log(doc["ata_smart_selective_self_test_log"])
    out += sct_status(doc)
    out += devstat(doc["ata_device_statistics"])
    out += phy_counters(doc["sata_phy_event_counters"])
    return out


# --- Kingston A400, smartctl -i -H -A -f brief (7.3), from the shared JSON -------------------


def render_a400_brief(doc: dict[str, Any]) -> str:
    out = BANNER_73.format(platform=doc["smartctl"]["platform_info"])
    out += "=== START OF INFORMATION SECTION ===\n"
    out += f"Model Family:     {doc['model_family']}\n"
    out += f"Device Model:     {doc['model_name']}\n"
    out += f"Serial Number:    {doc['serial_number']}\n"
    out += wwn_line(doc["wwn"])
    out += f"Firmware Version: {doc['firmware_version']}\n"
    out += capacity_line(doc)
    out += f"Sector Size:      {doc['logical_block_size']} bytes logical/physical\n"
    out += "Rotation Rate:    Solid State Device\n"
    trim = doc["trim"]
    out += "TRIM Command:     {}{}{}\n".format(
        "Available" if trim["supported"] else "Unavailable",
        ", deterministic" if trim.get("deterministic") else "",
        ", zeroed" if trim.get("zeroed") else "",
    )
    out += "Device is:        In smartctl database\n"
    out += f"ATA Version is:   {doc['ata_version']['string']}\n"
    out += sata_line(doc)
    out += f"Local Time is:    {doc['local_time']['asctime']}\n"
    out += "SMART support is: Available - device has SMART capability.\n"
    out += "SMART support is: Enabled\n\n"
    out += "=== START OF READ SMART DATA SECTION ===\n"
    out += "SMART overall-health self-assessment test result: PASSED\n\n"
    attributes = doc["ata_smart_attributes"]
    out += f"SMART Attributes Data Structure revision number: {attributes['revision']}\n"
    out += "Vendor Specific SMART Attributes with Thresholds:\n"
    out += "ID# ATTRIBUTE_NAME          FLAGS    VALUE WORST THRESH FAIL RAW_VALUE\n"
    out += "".join(brief_row(entry) for entry in attributes["table"])
    return out + BRIEF_LEGEND + "\n"


# --- Samsung 970 EVO, smartctl -a (7.0), from the shared JSON ---------------------------------


def nvme_count(value: int, unit: int = 0) -> str:
    text = thousands(value)
    if value and unit:
        text += f" [{format_capacity(value * unit)}]"
    return text


def nvme_health_log(log: dict[str, Any], header: str) -> str:
    out = header + "\n"
    out += f"Critical Warning:                   0x{log['critical_warning']:02x}\n"
    out += f"Temperature:                        {log['temperature']} Celsius\n"
    out += f"Available Spare:                    {log['available_spare']}%\n"
    out += f"Available Spare Threshold:          {log['available_spare_threshold']}%\n"
    out += f"Percentage Used:                    {log['percentage_used']}%\n"
    out += f"Data Units Read:                    {nvme_count(log['data_units_read'], 512000)}\n"
    out += f"Data Units Written:                 {nvme_count(log['data_units_written'], 512000)}\n"
    out += f"Host Read Commands:                 {nvme_count(log['host_reads'])}\n"
    out += f"Host Write Commands:                {nvme_count(log['host_writes'])}\n"
    out += f"Controller Busy Time:               {nvme_count(log['controller_busy_time'])}\n"
    out += f"Power Cycles:                       {nvme_count(log['power_cycles'])}\n"
    out += f"Power On Hours:                     {nvme_count(log['power_on_hours'])}\n"
    out += f"Unsafe Shutdowns:                   {nvme_count(log['unsafe_shutdowns'])}\n"
    out += f"Media and Data Integrity Errors:    {nvme_count(log['media_errors'])}\n"
    out += f"Error Information Log Entries:      {nvme_count(log['num_err_log_entries'])}\n"
    out += f"Warning  Comp. Temperature Time:    {log['warning_temp_time']}\n"
    out += f"Critical Comp. Temperature Time:    {log['critical_comp_time']}\n"
    for number, celsius in enumerate(log.get("temperature_sensors", []), start=1):
        out += f"Temperature Sensor {number}:               {celsius} Celsius\n"
    return out + "\n"


def nvme_info(doc: dict[str, Any], local_time: str) -> str:
    namespace = doc["nvme_namespaces"][0]
    out = "=== START OF INFORMATION SECTION ===\n"
    out += f"Model Number:                       {doc['model_name']}\n"
    out += f"Serial Number:                      {doc['serial_number']}\n"
    out += f"Firmware Version:                   {doc['firmware_version']}\n"
    out += f"PCI Vendor/Subsystem ID:            0x{doc['nvme_pci_vendor']['id']:04x}\n"
    out += f"IEEE OUI Identifier:                0x{doc['nvme_ieee_oui_identifier']:06x}\n"
    out += f"Total NVM Capacity:                 {nvme_count(doc['nvme_total_capacity'], 1)}\n"
    out += (
        f"Unallocated NVM Capacity:           {nvme_count(doc['nvme_unallocated_capacity'], 1)}\n"
    )
    out += f"Controller ID:                      {doc['nvme_controller_id']}\n"
    out += f"Number of Namespaces:               {doc['nvme_number_of_namespaces']}\n"
    size = namespace["size"]["bytes"]
    out += f"Namespace 1 Size/Capacity:          {nvme_count(size, 1)}\n"
    used = namespace["utilization"]["bytes"]
    if used != namespace["capacity"]["bytes"]:
        out += f"Namespace 1 Utilization:            {nvme_count(used, 1)}\n"
    out += f"Namespace 1 Formatted LBA Size:     {namespace['formatted_lba_size']}\n"
    eui = namespace["eui64"]
    out += f"Namespace 1 IEEE EUI-64:            {eui['oui']:06x} {eui['ext_id']:010x}\n"
    out += f"Local Time is:                      {local_time}\n\n"
    return out


def render_970evo_a(doc: dict[str, Any]) -> str:
    out = BANNER_70.format(platform=doc["smartctl"]["platform_info"])
    out += nvme_info(doc, doc["local_time"]["asctime"])
    out += "=== START OF SMART DATA SECTION ===\n"
    out += "SMART overall-health self-assessment test result: PASSED\n\n"
    return out + nvme_health_log(
        doc["nvme_smart_health_information_log"], "SMART/Health Information (NVMe Log 0x02)"
    )


# --- Made-up drives ---------------------------------------------------------------------------

MX500_PLATFORM = "x86_64-linux-6.1.0-21-amd64"

# (id, name, flag word, (value, worst, thresh), raw string); raw values made up here.
MX500_ATTRIBUTES: tuple[tuple[int, str, int, tuple[int, int, int], str], ...] = (
    (1, "Raw_Read_Error_Rate", 0x002F, (100, 100, 0), "0"),
    (5, "Reallocate_NAND_Blk_Cnt", 0x0032, (100, 100, 10), "0"),
    (9, "Power_On_Hours", 0x0032, (100, 100, 0), "8123"),
    (12, "Power_Cycle_Count", 0x0032, (100, 100, 0), "1042"),
    (171, "Program_Fail_Count", 0x0032, (100, 100, 0), "0"),
    (172, "Erase_Fail_Count", 0x0032, (100, 100, 0), "0"),
    (173, "Ave_Block-Erase_Count", 0x0032, (95, 95, 0), "77"),
    (174, "Unexpect_Power_Loss_Ct", 0x0032, (100, 100, 0), "61"),
    (180, "Unused_Reserve_NAND_Blk", 0x0033, (0, 0, 0), "44"),
    (183, "SATA_Interfac_Downshift", 0x0032, (100, 100, 0), "0"),
    (184, "Error_Correction_Count", 0x0032, (100, 100, 0), "0"),
    (187, "Reported_Uncorrect", 0x0032, (100, 100, 0), "0"),
    (194, "Temperature_Celsius", 0x0022, (70, 51, 0), "30 (Min/Max 27/33)"),
    (196, "Reallocated_Event_Count", 0x0032, (100, 100, 0), "0"),
    (197, "Current_Pending_ECC_Cnt", 0x0032, (100, 100, 0), "0"),
    (198, "Offline_Uncorrectable", 0x0030, (100, 100, 0), "0"),
    (199, "UDMA_CRC_Error_Count", 0x0032, (100, 100, 0), "0"),
    (202, "Percent_Lifetime_Remain", 0x0030, (95, 95, 1), "5"),
    (206, "Write_Error_Rate", 0x000E, (100, 100, 0), "0"),
    (210, "Success_RAIN_Recov_Cnt", 0x0032, (100, 100, 0), "0"),
    (246, "Total_LBAs_Written", 0x0032, (100, 100, 0), "24587123456"),
    (247, "Host_Program_Page_Count", 0x0032, (100, 100, 0), "412345678"),
    (248, "FTL_Program_Page_Count", 0x0032, (100, 100, 0), "263456789"),
)


def old_table(rows: tuple[tuple[int, str, int, tuple[int, int, int], str], ...]) -> str:
    out = "SMART Attributes Data Structure revision number: 16\n"
    out += "Vendor Specific SMART Attributes with Thresholds:\n"
    out += (
        "ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE      UPDATED"
        "  WHEN_FAILED RAW_VALUE\n"
    )
    out += "".join(old_row(*row) for row in rows)
    return out + "\n"


def render_mx500_a_only() -> str:
    out = BANNER_73.format(platform=MX500_PLATFORM)
    out += "=== START OF READ SMART DATA SECTION ===\n"
    return out + old_table(MX500_ATTRIBUTES)


def mx500_identity(local_time: str) -> str:
    return (
        "=== START OF INFORMATION SECTION ===\n"
        "Model Family:     Crucial/Micron Client SSDs\n"
        "Device Model:     CT1000MX500SSD1\n"
        "Serial Number:    2204E600A1B2\n"
        "LU WWN Device Id: 5 00a075 1e600a1b2\n"
        "Firmware Version: M3CR045\n"
        "User Capacity:    1,000,204,886,016 bytes [1.00 TB]\n"
        "Sector Sizes:     512 bytes logical, 4096 bytes physical\n"
        "Rotation Rate:    Solid State Device\n"
        "Form Factor:      2.5 inches\n"
        "TRIM Command:     Available\n"
        "Device is:        In smartctl database 7.3/5319\n"
        "ATA Version is:   ACS-3 T13/2161-D revision 5\n"
        "SATA Version is:  SATA 3.3, 6.0 Gb/s (current: 6.0 Gb/s)\n"
        f"Local Time is:    {local_time}\n"
        "SMART support is: Available - device has SMART capability.\n"
        "SMART support is: Enabled\n\n"
    )


# One row a sample: date line, hours, 173, temperature (now, min, max), 246, 247, 248.
CRON_SAMPLES = (
    ("Wed May  1 12:00:01 UTC 2024", 8123, 77, (30, 27, 33), 24587123456, 412345678, 263456789),
    ("Wed May  1 13:00:01 UTC 2024", 8124, 77, (34, 27, 35), 24612345678, 412765432, 263789012),
    ("Wed May  1 14:00:01 UTC 2024", 8125, 77, (41, 27, 43), 24718901234, 414312345, 265901234),
    ("Wed May  1 15:00:02 UTC 2024", 8126, 78, (44, 27, 45), 24865432109, 416523456, 269012345),
    ("Wed May  1 16:00:01 UTC 2024", 8127, 78, (38, 27, 45), 24901234567, 417098765, 269876543),
    ("Wed May  1 17:00:01 UTC 2024", 8128, 78, (33, 27, 45), 24902345678, 417111111, 269999999),
)


def render_cron_log() -> str:
    out = ""
    for number, (stamp, hours, erase, temps, written, host_pages, ftl_pages) in enumerate(
        CRON_SAMPLES
    ):
        changed = {
            9: str(hours),
            173: str(erase),
            194: f"{temps[0]} (Min/Max {temps[1]}/{temps[2]})",
            246: str(written),
            247: str(host_pages),
            248: str(ftl_pages),
        }
        rows = tuple(
            (
                attr_id,
                name,
                flags,
                (100 - temps[0] if attr_id == 194 else values[0], *values[1:]),
                changed.get(attr_id, raw),
            )
            for attr_id, name, flags, values, raw in MX500_ATTRIBUTES
        )
        out += stamp + "\n"
        out += BANNER_73.format(platform=MX500_PLATFORM)
        if number == 0:  # the first run was `smartctl -i -A`, the others `smartctl -A`
            weekday_date_time, zone, year = stamp.rsplit(" ", 2)
            out += mx500_identity(f"{weekday_date_time} {year} {zone}")  # asctime + zone
        out += "=== START OF READ SMART DATA SECTION ===\n"
        out += old_table(rows)
    return out


NVME_980 = {
    "model_name": "Samsung SSD 980 1TB",
    "serial_number": "S649NJ0R712345A",
    "firmware_version": "2B4QFXO7",
    "nvme_pci_vendor": {"id": 0x144D},
    "nvme_ieee_oui_identifier": 0x002538,
    "nvme_total_capacity": 1000204886016,
    "nvme_unallocated_capacity": 0,
    "nvme_controller_id": 5,
    "nvme_number_of_namespaces": 1,
    "nvme_namespaces": [
        {
            "size": {"bytes": 1000204886016},
            "capacity": {"bytes": 1000204886016},
            "utilization": {"bytes": 1000204886016},
            "formatted_lba_size": 512,
            "eui64": {"oui": 0x002538, "ext_id": 0x41A1B2C3D4},
        }
    ],
}

# Local time, data units written, data units read, host write commands, power on hours,
# temperature, percentage used.
NVME_SAMPLES = (
    ("Sat Jun  1 10:00:00 2024 CEST", 41234567, 38765432, 512345678, 3120, 38, 4),
    ("Sun Jun  2 10:00:00 2024 CEST", 41456789, 38812345, 514567890, 3144, 39, 4),
    ("Mon Jun  3 10:00:00 2024 CEST", 41987654, 38901234, 519876543, 3168, 41, 4),
    ("Tue Jun  4 10:00:01 2024 CEST", 42345678, 39012345, 523456789, 3192, 40, 5),
    ("Wed Jun  5 10:00:00 2024 CEST", 42456789, 39123456, 524567890, 3216, 37, 5),
)


def render_nvme_blocks() -> str:
    out = ""
    for local_time, written, read, writes, hours, celsius, used in NVME_SAMPLES:
        log = {
            "critical_warning": 0,
            "temperature": celsius,
            "available_spare": 100,
            "available_spare_threshold": 10,
            "percentage_used": used,
            "data_units_read": read,
            "data_units_written": written,
            "host_reads": 401234567 + read // 10,
            "host_writes": writes,
            "controller_busy_time": 2345 + hours // 24,
            "power_cycles": 212,
            "power_on_hours": hours,
            "unsafe_shutdowns": 17,
            "media_errors": 0,
            "num_err_log_entries": 0,
            "warning_temp_time": 0,
            "critical_comp_time": 0,
            "temperature_sensors": [celsius, celsius + 6],
        }
        out += BANNER_73.format(platform="x86_64-linux-6.8.0-31-generic")
        out += nvme_info(NVME_980, local_time)
        out += "=== START OF SMART DATA SECTION ===\n"
        out += "SMART overall-health self-assessment test result: PASSED\n\n"
        out += nvme_health_log(log, "SMART/Health Information (NVMe Log 0x02)")
        out += "Error Information (NVMe Log 0x01, 16 of 64 entries)\nNo Errors Logged\n\n"
    return out


def main() -> None:
    shared = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/testdata/smart"
    outputs = {
        "samsung-860evo-x.txt": render_860evo_x(
            json.loads((shared / "samsung-860evo-500GB-sata-x.json").read_text())
        ),
        "kingston-a400-i-H-A-brief.txt": render_a400_brief(
            json.loads((shared / "kingston-a400-SA400M8120G-phison-sata.json").read_text())
        ),
        "samsung-970evo-nvme-a.txt": render_970evo_a(
            json.loads((shared / "samsung-970evo-500GB-nvme-x.json").read_text())
        ),
        "mx500-A.txt": render_mx500_a_only(),
        "cron-mx500-date-A.log": render_cron_log(),
        "cron-nvme-a-localtime.log": render_nvme_blocks(),
    }
    for name, text in outputs.items():
        (HERE / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
