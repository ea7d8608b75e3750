"""The `fill` profile's report: random-write speed against how full the drive is, from the
stored verdict (analysis/profiles/fill.py makes it)."""

from ssdlab.model.finding_names import FILL_LEVELS
from ssdlab.model.profile import ProfileResults
from ssdlab.model.profile_settings import FillSettings
from ssdlab.model.typed_settings import decode_settings
from ssdlab.model.units import format_count, format_latency_us, format_mb_per_s
from ssdlab.report import document as doc
from ssdlab.report.method_notes import FILL_METHOD, method_note
from ssdlab.report.profile_common import compose, format_setting, visible_series, zero_or_log


def build_fill_document(results: ProfileResults) -> doc.Document:
    found = results.findings[FILL_LEVELS]
    rows = found["levels"]
    settings = decode_settings(FillSettings, results.plan.settings)
    table = doc.Table(
        "Random writes by fill level",
        ("full", "IOPS", "MB/s", "mean µs", "p99 µs", "vs lowest"),
        tuple(
            (
                f"{r['level_pct']} %",
                format_count(r["iops"]),
                format_mb_per_s(r["bw_bytes_per_s"]),
                format_latency_us(r["lat_mean_ns"]),
                format_latency_us(r["lat_p99_ns"]),
                "n/a" if r["relative_to_lowest"] is None else f"{r['relative_to_lowest']:.2f}×",
            )
            for r in rows
        ),
        notes=(
            f"block size {format_setting('block_size', settings.block_size)}, "
            f"queue depth {settings.iodepth}",
            method_note(FILL_METHOD),
        ),
    )
    iops = [float(r["iops"]) for r in rows]
    y_log, y_zero = zero_or_log(iops)
    chart = doc.Chart(
        key="fill-iops",
        title="Random-write IOPS against fill level",
        x_label="fill level",
        x_unit="%",
        y_label="I/O rate",
        y_unit="IOPS",
        y_log=y_log,
        y_zero=y_zero,
        series=(
            visible_series(
                "IOPS",
                [float(r["level_pct"]) for r in rows],
                iops,
                point_labels=[
                    "" if r["relative_to_lowest"] is None else f"{r['relative_to_lowest']:.2f}×"
                    for r in rows
                ],
            ),
        ),
        caption="each point labelled with its speed against the emptiest level",
    )
    verdict = [found["summary"]] if found["summary"] else []
    return compose(
        results,
        title="Fill level",
        verdict=verdict,
        sections=(doc.Section("Fill levels", tables=(table,), charts=(chart,)),),
        data=dict(found),
    )
