"""What fio's JSON output meant in each release, from fio's own history (axboe/fio, stat.c
and client.c; each commit with the first release tag that contains it):

- `cc372b17`, 2.0.10: `--output-format=json`. Per direction `io_bytes` in **KiB**, `bw`
  (KiB/s), `iops` (a whole number), `runtime` (ms), `slat`/`clat`/`lat` (µs);
  `clat.percentile` padded with `"0.00": 0` entries for unused slots of the list.
- `952b05e0`, 2.1.4: client/server output, `client_stats` instead of `jobs`, each entry with
  `hostname` and `port`, and "All clients" sums.
- `9966af7b`, 2.1.14: `total_ios`, `short_ios`, `drop_ios`.
- `91e53870`, 2.2.5: `timestamp`, `time`. `9f68fe3a`, 2.2.6: `iops` a fraction.
- `513e37ee`, 2.2.12: json+ `bins` (the latency histogram).
- `66e19a38`, 2.3: `global options`, `job options`.
- `c12d597a`, 2.21: `io_bytes` in **bytes** ("since the dawn of time, this has outputted
  kilobytes"), `io_kbytes` the old figure.
- `d6bb626e`, 2.99 (3.0): `slat_ns`/`clat_ns`/`lat_ns` in ns replace the µs objects.
- `b599759b`, 3.1: `lat_percentiles=1` gives total-latency percentiles instead of completion
  ones, still printed under `clat_ns`.
- `aedd021d`, 3.2: `bw_bytes`. `702bd977`, 3.4: no more `"0.00": 0` padding.
- `e5eb6fbf`, 3.13: with `lat_percentiles=1` the table is printed under `lat_ns`.
- `56440e63`, 3.18: slat, clat and lat percentiles each on their own (`*_percentiles`
  options); `N` (samples) in every latency object.
- `1cbbba65`, 3.30: per-priority statistics as a `prios` list.
- `6f771553`, 3.39: client/server `global options` a list, one object per server.

Units are decided from the document where fio's own keys say it (`io_kbytes` exists exactly
when `io_bytes` is in bytes; `clat_ns` when latencies are in ns; `bw_bytes` when there is a
byte rate), and from the release where only the release says it (which table
`lat_percentiles=1` filled).
"""

import re

_RELEASE = re.compile(r"^\s*fio-(\d{1,4})\.(\d{1,4})(?:\.(\d{1,4}))?")

IO_BYTES_IN_BYTES = (2, 21)  # c12d597a
OPTIONS_PRINTED = (2, 3)  # 66e19a38
LAT_TABLE_UNDER_LAT = (3, 13)  # e5eb6fbf


def fio_release(version: str | None) -> tuple[int, int, int] | None:
    """(major, minor, patch) of 'fio-2.1.4', 'fio-3.14-6-g97134' (a build after 3.14: 3.14),
    'fio-3.35'; None when unknown."""
    if not version:
        return None
    match = _RELEASE.match(version)
    if match is None:
        return None
    return int(match[1]), int(match[2]), int(match[3] or 0)


def io_bytes_in_kib(has_io_kbytes: bool) -> bool:
    """fio before 2.21 printed `io_bytes` in KiB and no `io_kbytes`; from 2.21 on it prints
    both, `io_bytes` in bytes (c12d597a)."""
    return not has_io_kbytes


def contradicts_io_bytes_unit(version: str | None, has_io_kbytes: bool) -> bool:
    """A document that claims fio 2.21 or later but has no `io_kbytes` (or a release before
    it with one) cannot be read: fio never printed that, so its `io_bytes` unit is unknown.
    A build between two releases ('fio-2.20-27-g1234') may print either."""
    release = fio_release(version)
    if release is None:
        return False
    if release[:2] >= IO_BYTES_IN_BYTES:
        return not has_io_kbytes
    between = bool(re.search(r"-\d+-g[0-9a-f]+", version or ""))
    return has_io_kbytes and not between
