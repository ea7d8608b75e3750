"""The histogram logs two fio servers sent one fio client, with the per-I/O clat logs of the
same run (tests/data/fio/client-hist-2servers, README.md beside them): each host's records,
and the raw latencies each record counts."""

from pathlib import Path

import numpy as np
import numpy.typing as npt

from ssdlab.parse.fio_hist_log import HistRecord, parse_hist_log

FOLDER = Path(__file__).resolve().parent / "data" / "fio" / "client-hist-2servers"
HOSTS = ("0", "1")  # the client's socket names: host 0 ran direct.fio, host 1 buffered.fio
Ints = npt.NDArray[np.int64]


def hist_text(host: str) -> str:
    return (FOLDER / f"ssdlab-hist_clat_hist.1.log.{host}.sock").read_text(encoding="utf-8")


def host_records(host: str) -> tuple[HistRecord, ...]:
    return parse_hist_log(hist_text(host), relayed=True)


def raw_clat(host: str) -> Ints:
    """(time_ms, value_ns, ddir) of every I/O of the host's per-I/O clat log, in its order."""
    lines = (FOLDER / f"raw_clat.1.log.{host}.sock").read_text(encoding="utf-8").splitlines()
    return np.array([[int(x) for x in line.split(",")[:3]] for line in lines], dtype=np.int64)


def raw_by_record(host: str) -> list[tuple[HistRecord, Ints]]:
    """Each record with the latencies (ns) of the I/Os it counts: a direction's records count
    its I/Os in the order they completed, record after record."""
    raw = raw_clat(host)
    taken: dict[int, int] = {}
    found = []
    for record in host_records(host):
        values = raw[raw[:, 2] == record.direction][:, 1]
        start = taken.get(record.direction, 0)
        found.append((record, values[start : start + record.ios]))
        taken[record.direction] = start + record.ios
    return found
