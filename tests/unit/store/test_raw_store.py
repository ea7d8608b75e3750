"""Raw evidence is stored compressed (store/raw.py) and read back byte for byte: fio's JSON,
its stderr, job files and logs, `smartctl -x -j` and nvme-cli output; a store of schema 7 is
migrated to schema 8 with every run readable and every raw value as it was; `store compact`
compresses what an older ssdlab stored as text; runs copied between an old-format store and a
new one keep their raw outputs exact."""

import shutil
import sqlite3
from pathlib import Path

import pytest

from ssdlab.errors import StoreError
from ssdlab.model.run import Capture
from ssdlab.store import raw
from ssdlab.store.captures import add_capture, load_capture_inputs, load_fio_outputs
from ssdlab.store.compaction import compress_stored_text
from ssdlab.store.db import SCHEMA_VERSION, open_store
from ssdlab.store.listing import RunListing, list_run_listings
from ssdlab.store.merge import copy_runs
from ssdlab.store.run_rows import load_run
from ssdlab.store.steps import load_step_results
from tests.conftest import ROOT
from tests.unit.store.test_store import new_run

DATA = ROOT / "tests" / "data"
OLD_STORE = DATA / "store" / "main-98b38bc.sqlite"  # schema 5: every kind of run
# schema 7, written by ssdlab at 34fcbe1 (the last schema-7 ssdlab): a quick run on a file and
# a CrystalDiskMark import
SCHEMA_7_STORE = DATA / "store" / "schema7-34fcbe1.sqlite"
SHARED_SMART = ROOT.parent / "shared" / "testdata" / "smart"


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def raw_kinds() -> list[tuple[str, Capture, dict[str, str]]]:
    """(name, capture, files) of every kind of raw evidence ssdlab stores, from real outputs."""
    fio_json = _text(DATA / "fio" / "logs-randrw-nj2" / "randrw-nj2.json")
    job = _text(DATA / "fio" / "logs-randrw-nj2" / "randrw-nj2.fio")
    log = _text(DATA / "fio" / "logs-randrw-nj2" / "randrw-nj2_bw.1.log")
    smart = sorted(
        [*(DATA / "smart").glob("*.json"), *SHARED_SMART.glob("*.json")], key=lambda p: p.name
    )
    nvme = [p for p in smart if p.name.startswith("nvme-cli")]
    ata = [p for p in smart if not p.name.startswith("nvme-cli")]
    stderr = "fio: note: both iodepth >= 1 and synchronous I/O engine are selected\n" * 40
    return [
        (
            "fio",
            Capture(
                "fio",
                ("fio", "--output-format=json+", "job.fio"),
                0,
                fio_json,
                stderr,
                1.0,
                2.0,
                "fio-3.36",
                job * 4,
            ),
            {"randrw-nj2_bw.1.log": log, "empty.log": ""},
        ),
        *[
            (
                path.name,
                Capture(
                    "smartctl",
                    ("smartctl", "-x", "-j", f"/dev/sd{index}"),
                    0,
                    _text(path),
                    "",
                    1.0,
                    2.0,
                ),
                {},
            )
            for index, path in enumerate(ata)
        ],
        *[
            (
                path.name,
                Capture(
                    "nvme",
                    ("nvme", "smart-log", f"/dev/nvme{index}", "-o", "json"),
                    0,
                    _text(path),
                    "",
                    1.0,
                    2.0,
                ),
                {},
            )
            for index, path in enumerate(nvme)
        ],
        (
            "unicode",
            Capture("replay", ("replay", "x"), 1, "µs ± Ω — ✓\n" * 200, "", 1.0, 2.0),
            {},
        ),
    ]


def stored_values(conn: sqlite3.Connection, capture_id: int) -> dict[str, object]:
    row = conn.execute(
        "SELECT stdout, stderr, input_text FROM captures WHERE id = ?", (capture_id,)
    ).fetchone()
    files = conn.execute(
        "SELECT name, content FROM capture_files WHERE capture_id = ?", (capture_id,)
    ).fetchall()
    return {"stdout": row[0], "stderr": row[1], "input_text": row[2]} | {
        f"file {name}": content for name, content in files
    }


def expected_values(capture: Capture, files: dict[str, str]) -> dict[str, str | None]:
    return {
        "stdout": capture.stdout,
        "stderr": capture.stderr,
        "input_text": capture.input_text,
    } | {f"file {name}": content for name, content in files.items()}


def test_every_raw_kind_reads_back_byte_for_byte_and_compressed(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "s.db")
    run_id = new_run(conn)
    kinds = raw_kinds()
    assert len(kinds) >= 8  # fio, several smartctl and nvme-cli outputs, unicode text
    for name, capture, files in kinds:
        capture_id = add_capture(conn, run_id, capture, files)
        stored = stored_values(conn, capture_id)
        for column, text in expected_values(capture, files).items():
            value = stored[column]
            read = None if value is None else raw.unpack_raw(conn, value)
            assert read == text, f"{name} {column}"
            assert text is None or read is None or read.encode() == text.encode()
            size = len(text.encode()) if text is not None else 0
            least = raw.FILE_PACK_MIN_BYTES if column.startswith("file") else raw.PACK_MIN_BYTES
            if size >= least:
                assert isinstance(value, bytes), f"{name} {column} stored as text"
                ratio = 3 if size >= raw.PACK_MIN_BYTES else 1  # a short log gains less
                assert len(value) < size / ratio, f"{name} {column}: {len(value)} of {size}"
            else:
                assert value == text, f"{name} {column}: a short value stays text"
    raw._cache.clear()  # a new process: dictionaries read from the store again
    for capture_id in [r[0] for r in conn.execute("SELECT id FROM captures")]:
        for value in stored_values(conn, capture_id).values():
            if value is not None:
                raw.unpack_raw(conn, value)


def test_outputs_of_one_command_share_a_dictionary_kept_in_the_store(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "s.db")
    run_id = new_run(conn)
    text = _text(DATA / "smart" / "ata-crucial-mx500-devstat-wrap.json")
    argv = ("smartctl", "-x", "-j", "/dev/sdb")
    first = add_capture(conn, run_id, Capture("smartctl", argv, 0, text, "", 1.0, 2.0))
    later = text.replace('"hours": ', '"hours": 1')  # a later reading: counters moved
    second = add_capture(conn, run_id, Capture("smartctl", argv, 0, later, "", 3.0, 4.0))
    keys = conn.execute("SELECT key, source FROM raw_dictionaries").fetchall()
    assert [tuple(k) for k in keys] == [(keys[0][0], 'smartctl ["-x", "-j", "/dev/sdb"]')]
    for capture_id, expected in ((first, text), (second, later)):
        (value,) = conn.execute(
            "SELECT stdout FROM captures WHERE id = ?", (capture_id,)
        ).fetchone()
        assert value[0] == raw.ZSTD_DICTIONARY
        assert value[1:9].hex() == keys[0][0]
        assert len(value) < len(expected.encode()) / 20  # the dictionary holds the rest
        raw._cache.clear()
        assert raw.unpack_raw(conn, value) == expected


def test_a_value_refering_to_a_missing_dictionary_is_refused_in_one_line(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "s.db")
    run_id = new_run(conn)
    text = _text(DATA / "smart" / "ata-unknown-vendor.json")
    argv = ("smartctl", "-x", "-j", "/dev/sdc")
    capture_id = add_capture(conn, run_id, Capture("smartctl", argv, 0, text, "", 1.0, 2.0))
    conn.execute("DELETE FROM raw_dictionaries")
    raw._cache.clear()
    (value,) = conn.execute("SELECT stdout FROM captures WHERE id = ?", (capture_id,)).fetchone()
    with pytest.raises(StoreError, match="does not hold"):
        raw.unpack_raw(conn, value, f"capture {capture_id}")
    with pytest.raises(StoreError, match="marker 7f"):
        raw.unpack_raw(conn, b"\x7fjunk", "a value")


def _old_store(tmp_path: Path, original: Path = OLD_STORE) -> Path:
    copy = tmp_path / original.name
    shutil.copyfile(original, copy)
    return copy


def _raw_rows(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT c.id, c.stdout, c.stderr, c.input_text, f.name, f.content FROM captures c"
        " LEFT JOIN capture_files f ON f.capture_id = c.id ORDER BY c.id, f.name"
    ).fetchall()
    conn.close()
    return rows


@pytest.mark.parametrize(
    ("original", "version", "runs"), [(SCHEMA_7_STORE, 7, 2), (OLD_STORE, 5, 14)]
)
def test_an_older_store_migrates_with_every_run_readable_and_raw_exact(
    tmp_path: Path, original: Path, version: int, runs: int
) -> None:
    path = _old_store(tmp_path, original)
    before = _raw_rows(path)
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == version
    settings = dict(check.execute("SELECT id, settings_json FROM runs").fetchall())
    check.close()
    conn = open_store(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 8
    assert _raw_rows(path) == before  # read as they are: text, never rewritten
    ids = [int(r[0]) for r in conn.execute("SELECT id FROM runs ORDER BY id")]
    assert len(ids) == runs
    for run_id in ids:
        run = load_run(conn, run_id)
        assert run is not None
        load_step_results(conn, run_id)
        load_fio_outputs(conn, run_id)
    listed = list_run_listings(conn)
    assert [r.run_id for r in listed] == ids[::-1]
    for r in listed:
        assert isinstance(r, RunListing)
        device = conn.execute(
            "SELECT d.model, d.serial FROM runs r LEFT JOIN devices d ON d.id = r.device_id"
            " WHERE r.id = ?",
            (r.run_id,),
        ).fetchone()
        assert (r.drive_model, r.drive_serial) == tuple(device)
        if r.kind == "import" and '"source_tool"' in settings[r.run_id]:
            assert r.source_tool is not None
            assert r.source_tool in settings[r.run_id]
    assert any(r.source_tool for r in listed if isinstance(r, RunListing))


def test_compacting_an_old_store_keeps_every_raw_value_and_can_be_repeated(
    tmp_path: Path,
) -> None:
    path = _old_store(tmp_path)
    conn = open_store(path)
    before = {
        (row[0], row[4]): row for row in _raw_rows(path)
    }  # (capture id, file name) -> values as text
    outputs = {run_id: load_fio_outputs(conn, run_id) for run_id in range(1, 15)}
    jobs = {run_id: load_capture_inputs(conn, run_id) for run_id in range(1, 15)}
    done = compress_stored_text(conn)
    assert done.values > 10
    assert done.stored_bytes < done.text_bytes / 3
    assert compress_stored_text(conn).values == 0  # nothing left: a second run is a no-op
    raw._cache.clear()
    for key, row in before.items():
        (after,) = [r for r in _raw_rows(path) if (r[0], r[4]) == key]
        for column in (1, 2, 3, 5):  # stdout, stderr, job file, a file's content
            new = after[column]
            assert (None if new is None else raw.unpack_raw(conn, new)) == row[column]
    assert {run_id: load_fio_outputs(conn, run_id) for run_id in range(1, 15)} == outputs
    assert {run_id: load_capture_inputs(conn, run_id) for run_id in range(1, 15)} == jobs


@pytest.mark.parametrize("compact_source", [False, True])
def test_runs_copied_between_old_and_new_format_stores_keep_raw_exact(
    tmp_path: Path, compact_source: bool
) -> None:
    """An old store's text values, or its values compressed, copied into a store that already
    holds compressed values (and dictionaries) of its own: all read back as they were."""
    source = open_store(_old_store(tmp_path))
    expected = {
        str(uuid): load_fio_outputs(source, int(run_id))
        for run_id, uuid in source.execute("SELECT id, uuid FROM runs")
    }
    if compact_source:
        compress_stored_text(source)
    dest = open_store(tmp_path / "central.sqlite")
    run_id = new_run(dest)
    own = _text(DATA / "smart" / "ata-missing-attributes.json")
    argv = ("smartctl", "-x", "-j", "/dev/sda")
    add_capture(dest, run_id, Capture("smartctl", argv, 0, own, "", 1.0, 2.0))
    result = copy_runs(source, dest, host="node-1", collected_at_s=5.0)
    assert len(result.added) == 14
    raw._cache.clear()
    for dest_id, uuid in dest.execute("SELECT id, uuid FROM runs WHERE uuid IS NOT NULL"):
        if str(uuid) in expected:
            got = load_fio_outputs(dest, int(dest_id))
            assert sorted(got.values()) == sorted(expected[str(uuid)].values())
    for (value,) in dest.execute("SELECT stdout FROM captures"):
        raw.unpack_raw(dest, value)  # every dictionary a value refers to came along
    (long_text,) = dest.execute(
        "SELECT COUNT(*) FROM captures WHERE typeof(stdout) = 'text'"
        " AND length(CAST(stdout AS BLOB)) >= ?",
        (raw.PACK_MIN_BYTES,),
    ).fetchone()
    assert (long_text == 0) == compact_source  # copied as they were stored, text or not


def test_compacting_cut_short_leaves_the_store_whole_and_carries_on_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _old_store(tmp_path)
    conn = open_store(path)
    outputs = {run_id: load_fio_outputs(conn, run_id) for run_id in range(1, 15)}
    import ssdlab.store.compaction as compaction

    calls = {"n": 0}
    real_pack = raw.pack_raw

    def failing(*args: object, **kwargs: object) -> object:
        calls["n"] += 1
        if calls["n"] > 25:  # part way through the third batch: a full disk, a kill
            raise sqlite3.OperationalError("database or disk is full")
        return real_pack(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(compaction, "BATCH_ROWS", 10)
    monkeypatch.setattr(compaction, "pack_raw", failing)
    with pytest.raises(StoreError, match="cannot write to the run store"):
        compress_stored_text(conn)
    (blobs,) = conn.execute(
        "SELECT COUNT(*) FROM captures WHERE typeof(stdout) = 'blob'"
    ).fetchone()
    assert blobs == 20  # the two batches before the failure were kept, not the third
    assert {run_id: load_fio_outputs(conn, run_id) for run_id in range(1, 15)} == outputs
    monkeypatch.setattr(compaction, "pack_raw", real_pack)
    assert compress_stored_text(conn).values > 0  # carries on with what is left
    assert compress_stored_text(conn).values == 0
    raw._cache.clear()
    assert {run_id: load_fio_outputs(conn, run_id) for run_id in range(1, 15)} == outputs
