"""`ssdlab fleet collect` against a hostile or broken node (issue #32): a node's answers are
data, never authority over this machine's store. A hostile node is played by crafting the
export it sends (`ssdlab node export`'s store file, the whole attack surface) and handing it
to collect in place of SSH. Every store is a copy of the store an older ssdlab wrote
(tests/data/store/main-98b38bc.sqlite), opened by ssdlab's own store functions."""

import dataclasses
import hashlib
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ssdlab.errors import StoreError
from ssdlab.fleet import play_hosts
from ssdlab.fleet.collect import collect_fleet, export_file_name
from ssdlab.model.fleet import FleetHost, HostCollect
from ssdlab.report.fleet import build_collect_document
from ssdlab.store import raw, vetting
from ssdlab.store.db import open_store
from ssdlab.store.merge import copy_runs, export_runs, run_fingerprint
from ssdlab.system.ansible_play import Play, PlayEvent, PlayOutcome
from ssdlab.system.ssh import SshSettings

OLD_STORE = Path(__file__).resolve().parents[1] / "data" / "store" / "main-98b38bc.sqlite"
RUNS = 14  # the runs the old store holds
GIB = 2**30
ZSTD_MAGIC = (0xFD2FB528).to_bytes(4, "little")
RLE_BLOCK = 1 << 1  # zstd block type 1 (RLE) in a block header
MAX_BLOCK = 128 * 1024


def _store(folder: Path, name: str) -> Path:
    """A copy of the old store, migrated."""
    path = folder / name
    shutil.copyfile(OLD_STORE, path)
    open_store(path).close()
    return path


@pytest.fixture
def central_path(tmp_path: Path) -> Path:
    return _store(tmp_path, "central.sqlite")


@pytest.fixture
def central(central_path: Path) -> Iterator[sqlite3.Connection]:
    conn = open_store(central_path)
    yield conn
    conn.close()


def _export(tmp_path: Path, name: str) -> Path:
    """What an honest node with a copy of the old store sends: `node export` of all its runs."""
    node = _store(tmp_path, f"{name}-node.sqlite")
    out = tmp_path / f"{name}-export.sqlite"
    export_runs(node, out, finished_uuids=())
    return out


def _craft(export: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    """The export changed as a hostile node would send it: plain SQL on its file."""
    conn = sqlite3.connect(export)
    with conn:
        for sql, params in statements:
            conn.execute(sql, params)
    conn.close()


def _uuids(conn: sqlite3.Connection) -> list[str]:
    return [str(row[0]) for row in conn.execute("SELECT uuid FROM runs ORDER BY id")]


def _uuid_of(export: Path, run_id: int) -> str:
    conn = sqlite3.connect(export)
    found = conn.execute("SELECT uuid FROM runs WHERE id = ?", (run_id,)).fetchone()
    conn.close()
    return str(found[0])


def _answering(exports: dict[str, Path], seen: list[Path]) -> Callable[..., PlayOutcome]:
    """A stand-in for `run_play` (ansible-playbook and the collection's collect playbook): each
    host's export arrives where the playbook's fetch puts it, named from a hash of the
    inventory name as the playbook names it."""

    def run_play(_private: Path, play: Play, _on_event: object = None, **_: object) -> PlayOutcome:
        events = []
        for name, variables in play.inventory.items():
            digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:32]
            sink = Path(str(variables["ssdlab_exports_dir"])) / f"host-{digest}.db"
            seen.append(sink)
            sink.write_bytes(exports[name].read_bytes())
            events.append(PlayEvent("ok", name, "ansible.builtin.fetch", 1.0))
        return PlayOutcome(0, 0.0, tuple(events), "")

    return run_play


def _collect(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, exports: dict[str, Path]
) -> tuple[list[HostCollect], list[Path]]:
    seen: list[Path] = []
    # the play every fleet command runs through (fleet/play_hosts.py)
    monkeypatch.setattr(play_hosts, "run_play", _answering(exports, seen))
    hosts = [FleetHost(name, address="unused") for name in exports]
    return collect_fleet(central, hosts, SshSettings()), seen


def _rle_frame(size: int, *, says_size: bool = True) -> bytes:
    """A whole, valid zstd frame of `size` zero bytes in RLE blocks (4 bytes per 128 KiB):
    a few hundred KiB that decompress to 16 GiB. With `says_size` False its header does not
    say how long it is."""
    frame = bytearray(ZSTD_MAGIC)
    # single segment with an 8-byte content size; or a 128 KiB window and no content size
    frame += bytes([0xE0]) + size.to_bytes(8, "little") if says_size else bytes([0x00, 0x38])
    left = size
    while left > 0:
        block = min(left, MAX_BLOCK)
        left -= block
        header = (1 if left == 0 else 0) | RLE_BLOCK | (block << 3)
        frame += header.to_bytes(3, "little") + b"\0"
    return bytes(frame)


def _packed(frame: bytes) -> bytes:
    return bytes([raw.ZSTD]) + frame


def _one_line(found: HostCollect) -> str:
    (line,) = found.refused
    assert "\n" not in line
    return line


# ---- a. a node cannot touch a run it did not send before -----------------------------------


def _steps_of(conn: sqlite3.Connection, run_id: int) -> int:
    found = conn.execute("SELECT COUNT(*) FROM step_results WHERE run_id = ?", (run_id,))
    return int(found.fetchone()[0])


def _set_running(path: Path, run_id: int) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "UPDATE runs SET status = 'running', ended_at_s = NULL WHERE id = ?", (run_id,)
        )
    conn.close()


def _copy_in(export: Path, central: sqlite3.Connection, host: str) -> None:
    """An earlier collect of `export` from `host`."""
    source = open_store(export)
    copy_runs(source, central, host=host, collected_at_s=1000.0)
    source.close()


def test_a_run_with_the_uuid_of_a_run_of_another_host_is_refused_and_left_alone(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path
) -> None:
    honest = _export(tmp_path, "lab-a")
    _set_running(honest, 14)
    _copy_in(honest, central, "lab-a")
    victim = _uuid_of(honest, 14)
    victim_id = int(central.execute("SELECT id FROM runs WHERE uuid = ?", (victim,)).fetchone()[0])
    before = run_fingerprint(central, victim_id)
    hostile = _export(tmp_path, "lab-b")
    _craft(
        hostile,
        ("UPDATE runs SET uuid = ?, target_path = '/dev/evil' WHERE id = 1", (victim,)),
        ("UPDATE runs SET status = 'complete', ended_at_s = 9.0 WHERE id = 1", ()),
    )
    (found,), _seen = _collect(monkeypatch, central, {"lab-b": hostile})
    host, target, status = central.execute(
        "SELECT host, target_path, status FROM runs WHERE id = ?", (victim_id,)
    ).fetchone()
    assert (host, target, status) == ("lab-a", _target(honest, 14), "running")
    assert run_fingerprint(central, victim_id) == before
    assert victim in _one_line(found)
    assert "lab-a" in _one_line(found)
    assert victim not in found.added + found.updated
    assert len(found.added) == RUNS - 1  # the node's other runs are its own: taken
    document = build_collect_document([found])
    assert tuple(document.data["hosts"][0]["refused"]) == (_one_line(found),)
    assert any(victim in line for line in document.verdict)


def _target(path: Path, run_id: int) -> str:
    conn = sqlite3.connect(path)
    found = conn.execute("SELECT target_path FROM runs WHERE id = ?", (run_id,)).fetchone()
    conn.close()
    return str(found[0])


def test_a_run_with_the_uuid_of_a_run_made_here_is_refused_and_left_alone(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path
) -> None:
    central.execute("UPDATE runs SET status = 'running', ended_at_s = NULL WHERE id = 14")
    own = _uuids(central)[13]
    before = run_fingerprint(central, 14)
    steps = _steps_of(central, 14)
    hostile = _export(tmp_path, "lab-1")
    _craft(hostile, ("UPDATE runs SET uuid = ? WHERE id = 2", (own,)))
    (found,), _seen = _collect(monkeypatch, central, {"lab-1": hostile})
    row = central.execute("SELECT host, collected_at_s FROM runs WHERE id = 14").fetchone()
    assert tuple(row) == ("vm", None)
    assert run_fingerprint(central, 14) == before
    assert _steps_of(central, 14) == steps
    assert own in _one_line(found)
    assert "made on this machine" in _one_line(found)


def test_a_finished_run_of_another_host_is_refused_not_passed_over_in_silence(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path
) -> None:
    taken = _uuids(central)[0]
    hostile = _export(tmp_path, "lab-1")
    _craft(hostile, ("UPDATE runs SET uuid = ? WHERE id = 1", (taken,)))
    (found,), _seen = _collect(monkeypatch, central, {"lab-1": hostile})
    assert taken in _one_line(found)


def test_a_host_still_brings_its_own_running_run_up_to_date(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path
) -> None:
    export = _export(tmp_path, "lab-1")
    _set_running(export, 14)
    _copy_in(export, central, "lab-1")
    _craft(export, ("UPDATE runs SET status = 'complete', ended_at_s = 9.0 WHERE id = 14", ()))
    (found,), _seen = _collect(monkeypatch, central, {"lab-1": export})
    assert found.updated == (_uuid_of(export, 14),)
    assert found.refused == ()


# ---- b. bounded decompression and bounded fields ---------------------------------------------


def test_a_frame_claiming_16_gib_is_refused_at_collect(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path
) -> None:
    hostile = _export(tmp_path, "lab-1")
    bomb = _packed(_rle_frame(16 * GIB))
    _craft(
        hostile,
        ("UPDATE captures SET stdout = ? WHERE id = (SELECT MIN(id) FROM captures)", (bomb,)),
    )
    (found,), _seen = _collect(monkeypatch, central, {"lab-1": hostile})
    line = _one_line(found)
    assert "decompressed" in line
    assert len(found.added) == RUNS - 1
    stored = central.execute("SELECT COUNT(*) FROM captures WHERE stdout = ?", (bomb,))
    assert stored.fetchone()[0] == 0


def test_a_frame_claiming_16_gib_reads_as_a_damaged_value(central: sqlite3.Connection) -> None:
    bomb = _packed(_rle_frame(16 * GIB))
    with pytest.raises(StoreError, match="damaged"):
        raw.unpack_raw(central, bomb, "fio's output in capture 1")


@pytest.mark.parametrize("says_size", [True, False])
def test_a_frame_longer_than_the_limit_is_refused_when_read(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, says_size: bool
) -> None:
    monkeypatch.setattr(raw, "MAX_RAW_BYTES", 1 << 20)
    value = _packed(_rle_frame((1 << 20) + 1, says_size=says_size))
    with pytest.raises(StoreError, match="damaged"):
        raw.unpack_raw(central, value, "a raw output")


@pytest.mark.parametrize("says_size", [True, False])
def test_a_frame_within_the_limit_reads_back_whole(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, says_size: bool
) -> None:
    monkeypatch.setattr(raw, "MAX_RAW_BYTES", 1 << 20)
    value = _packed(_rle_frame(1 << 20, says_size=says_size))
    assert raw.unpack_raw(central, value, "a raw output") == "\0" * (1 << 20)


def test_a_frame_that_does_not_say_its_length_is_refused_at_collect_past_the_limit(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path
) -> None:
    monkeypatch.setattr(raw, "MAX_RAW_BYTES", 1 << 20)
    hostile = _export(tmp_path, "lab-1")
    bomb = _packed(_rle_frame(2 << 20, says_size=False))
    _craft(hostile, ("UPDATE capture_files SET content = ? WHERE rowid = 1", (bomb,)))
    (found,), _seen = _collect(monkeypatch, central, {"lab-1": hostile})
    assert "capture_files.content" in _one_line(found)


# a step histogram a node sends for run 3 (schema 10: fio's buckets, 0 to 1,855)
_HISTOGRAM = (
    "INSERT INTO step_histograms (step_result_id, direction, second, ios, counts_json)"
    " SELECT MIN(id), 'read', {second}, {ios}, ? FROM step_results WHERE run_id = 3"
)


@pytest.mark.parametrize(
    ("sql", "value", "said"),
    [
        (
            "UPDATE runs SET target_path = ? WHERE id = 3",
            "x" * (vetting.MAX_TEXT_CHARS + 1),
            "runs.target_path",
        ),
        ("UPDATE runs SET status_reason = ? WHERE id = 3", b"\x00binary", "runs.status_reason"),
        ("UPDATE runs SET plan_json = ? WHERE id = 3", "{not json", "runs.plan_json"),
        (
            "UPDATE health_samples SET capture_ids_json = ?"
            " WHERE id = (SELECT MIN(id) FROM health_samples)",
            "[" * 100_000 + "]" * 100_000,
            "is not JSON ssdlab can read",
        ),
        ("UPDATE runs SET uuid = ? WHERE id = 3", "u" * 100_000, "UUID"),
        ("UPDATE captures SET stdout = ? WHERE run_id = 3", b"\x07unknown", "no known kind"),
        (_HISTOGRAM.format(second=1, ios=5), "[[1856, 5]]", "ascending below 1,856"),
        (_HISTOGRAM.format(second=1, ios=5), "[[9, 5], [3, 5]]", "ascending below 1,856"),
        (_HISTOGRAM.format(second=1, ios=5), "[[3, 4]]", "sum of its buckets"),
        (_HISTOGRAM.format(second=1, ios=-5), "[[3, -5]]", "I/Os are not from 1"),
        (_HISTOGRAM.format(second=1, ios=5), "[[3, 5.0]]", "pair of whole numbers"),
        (_HISTOGRAM.format(second=1, ios=5), "[" * 100_000 + "]" * 100_000, "not JSON"),
        (_HISTOGRAM.format(second=-1, ios=5), "[[3, 5]]", "its second"),
        (_HISTOGRAM.format(second=10**12, ios=5), "[[3, 5]]", "its second"),
        (_HISTOGRAM.format(second=1, ios=5).replace("'read'", "'up'"), "[[3, 5]]", "direction"),
    ],
)
def test_a_run_holding_what_no_run_of_ssdlabs_would_is_refused_whole(
    monkeypatch: pytest.MonkeyPatch,
    central: sqlite3.Connection,
    tmp_path: Path,
    sql: str,
    value: object,
    said: str,
) -> None:
    hostile = _export(tmp_path, "lab-1")
    runs_before = central.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    _craft(hostile, (sql, (value,)))
    (found,), _seen = _collect(monkeypatch, central, {"lab-1": hostile})
    line = _one_line(found)
    assert said in line
    assert len(line) < 400  # the node's text is never quoted at length
    assert len(found.added) == RUNS - 1
    assert central.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == runs_before + RUNS - 1


def test_a_run_with_more_rows_than_a_run_has_is_refused(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path
) -> None:
    monkeypatch.setitem(vetting.MAX_ROWS, "findings", 1)
    hostile = _export(tmp_path, "lab-1")
    conn = open_store(hostile)
    many = [
        r[0]
        for r in conn.execute("SELECT run_id FROM findings GROUP BY run_id HAVING COUNT(*) > 1")
    ]
    conn.close()
    (found,), _seen = _collect(monkeypatch, central, {"lab-1": hostile})
    assert many
    assert len(found.refused) == len(many)
    assert all("more than 1 rows of findings" in line for line in found.refused)


def test_a_dictionary_under_a_key_that_is_not_its_contents_is_not_taken(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path
) -> None:
    hostile = _export(tmp_path, "lab-1")
    content = _packed(raw._frame(b"not what the key names"))
    _craft(
        hostile,
        (
            "INSERT INTO raw_dictionaries (key, source, content, created_at_s) VALUES (?, ?, ?, ?)",
            ("00112233aabbccdd", "fio", content, 1.0),
        ),
    )
    (found,), _seen = _collect(monkeypatch, central, {"lab-1": hostile})
    assert found.added == ()
    assert all("does not hold the content its key names" in line for line in found.refused)
    assert central.execute("SELECT COUNT(*) FROM raw_dictionaries").fetchone()[0] == 0


# ---- c. the host's name never becomes a path -------------------------------------------------


@pytest.mark.parametrize("name", ["../escaped", "../../escaped", "TMP/escaped", "a/../../b", ".."])
def test_collect_writes_only_inside_its_own_folder_whatever_the_host_is_named(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path, name: str
) -> None:
    name = name.replace("TMP", str(tmp_path))  # an absolute path, inside this test's folder
    export = _export(tmp_path, "node")
    scratch = tmp_path / "deep" / "er" / "scratch"
    scratch.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    listing = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    (found,), seen = _collect(monkeypatch, central, {name: export})
    (received,) = seen
    assert scratch in received.parents
    assert received.name == export_file_name(name)
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == listing
    assert len(found.added) == RUNS


def test_export_file_names_are_plain_and_distinct() -> None:
    names = ["lab-1", "../x", "/etc/passwd", "..", ".", "", "a/b", "a\\b", "\udcff", "x" * 10_000]
    files = [export_file_name(name) for name in names]
    assert len(set(files)) == len(names)
    for file in files:
        assert Path(file).name == file
        assert not file.startswith(".")
        assert len(file) < 64


def test_a_collect_document_without_refusals_keeps_its_shape() -> None:
    found = HostCollect("lab-1", added=("u",))
    assert dataclasses.asdict(found)["refused"] == ()
    assert build_collect_document([found]).verdict == ("1 new runs from 1 hosts",)


def test_a_run_breaking_a_rule_of_the_store_is_refused_alone_among_its_batch(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path
) -> None:
    """A node's file is its own: it can hold a row this store's rules forbid (here a status
    no run has, written with the file's CHECK constraints switched off). That run is rolled
    back alone; the runs copied before and after it in the same transaction are kept."""
    hostile = _export(tmp_path, "lab-1")
    conn = sqlite3.connect(hostile)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    with conn:
        conn.execute("UPDATE runs SET status = 'bogus' WHERE id = 3")
    conn.close()
    runs_before = central.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    (found,), _seen = _collect(monkeypatch, central, {"lab-1": hostile})
    assert "it breaks a rule of the store" in _one_line(found)
    assert _uuid_of(hostile, 3) in _one_line(found)
    assert len(found.added) == RUNS - 1
    assert central.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == runs_before + RUNS - 1
    orphans = central.execute(
        "SELECT COUNT(*) FROM captures WHERE run_id NOT IN (SELECT id FROM runs)"
    )
    assert orphans.fetchone()[0] == 0


def test_a_runs_step_histograms_are_carried_to_this_store(
    monkeypatch: pytest.MonkeyPatch, central: sqlite3.Connection, tmp_path: Path
) -> None:
    honest = _export(tmp_path, "lab-1")
    uuid = _uuid_of(honest, 3)
    _craft(honest, (_HISTOGRAM.format(second=2, ios=7), ("[[3, 5], [1855, 2]]",)))
    (found,), _seen = _collect(monkeypatch, central, {"lab-1": honest})
    assert not found.refused
    rows = central.execute(
        "SELECT h.direction, h.second, h.ios, h.counts_json FROM step_histograms h"
        " JOIN step_results s ON s.id = h.step_result_id JOIN runs r ON r.id = s.run_id"
        " WHERE r.uuid = ?",
        (uuid,),
    ).fetchall()
    assert [tuple(r) for r in rows] == [("read", 2, 7, "[[3, 5], [1855, 2]]")]
