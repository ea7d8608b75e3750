"""Raw evidence stored compressed: tool output (fio's JSON, `smartctl -x -j`, nvme-cli JSON),
job files and fio logs, each read back byte for byte.

A raw value of at least `PACK_MIN_BYTES` is stored as a BLOB: one marker byte, then a zstd
frame of its UTF-8 text — `ZSTD` a frame on its own, `ZSTD_DICTIONARY` a frame made with a
dictionary, whose key (8 bytes) comes between the marker and the frame. A shorter value, and
every value a store held before schema 8, is TEXT and reads as it is: the type of the value
is the marker, so stores are never rewritten to be read (`ssdlab store compact` compresses
what an older ssdlab wrote, when wanted).

A dictionary is the first output of a command the store kept (the first `smartctl -x -j
/dev/sda`, the first fio output): later outputs of that command differ from it in a few
counters, and a frame that refers to it holds little more than those. Dictionaries live in
the store itself (`raw_dictionaries`), keyed by a hash of their content, so a value decodes
in every store it is copied to (`fleet collect` copies values as they are, and the
dictionaries with them) and a dictionary is never replaced.

Every decompression is bounded: a value that would be longer than `MAX_RAW_BYTES` once
decompressed (a dictionary: `DICTIONARY_MAX_BYTES`) is refused as damaged, before memory is
spent on it. A frame says its own length; one that claims more than the limit is refused from
its header, and one that does not say it is decompressed piece by piece up to the limit. A
store from a hostile or broken node (`fleet collect`) cannot make `show` or `report` take
more memory than that per value.
"""

import json
import sqlite3
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ssdlab.errors import StoreError

if TYPE_CHECKING:  # zstandard and hashlib load when a value is packed or unpacked, not by
    import zstandard  # every command that opens the store

PACK_MIN_BYTES = 1024  # shorter output or job text gains little from a frame: it stays TEXT
FILE_PACK_MIN_BYTES = 64  # a tool's files (fio's logs: many, short, all numbers) from 64 bytes
ZSTD_LEVEL = 19  # raw outputs are written once and read rarely: the smallest frames
LARGE_LEVEL = 3  # for values above LARGE_BYTES (an imported log of millions of lines)
LARGE_BYTES = 1_000_000
ZSTD = 1  # marker: a zstd frame
ZSTD_DICTIONARY = 2  # marker: a dictionary key (8 bytes), then a zstd frame made with it
_KEY_BYTES = 8
DICTIONARY_MAX_BYTES = 128 * 1024  # a longer first output makes no dictionary
# the longest value a frame may decompress to: SQLite's own limit on one value (10**9 bytes
# by default), so nothing ssdlab kept as text was longer, and a frame claiming more is damage
MAX_RAW_BYTES = 1 << 30
_STREAM_BYTES = 1 << 20  # a frame that does not say its length is read this much at a time
# which outputs share a dictionary: "command", outputs of the same tool and arguments (one
# drive's health readings); "tool", every output of the tool (fio's job files are temporary
# files with new names each time, its JSON is alike across jobs)
DICTIONARY_SCOPE = {"smartctl": "command", "nvme": "command", "fio": "tool"}

_cache: "dict[str, zstandard.ZstdCompressionDict]" = {}
_CACHE_MAX = 64


def dictionary_source(tool: str, argv: Sequence[str]) -> str | None:
    """The name under which outputs of this invocation share a dictionary (None: none)."""
    scope = DICTIONARY_SCOPE.get(tool)
    if scope == "tool":
        return tool
    if scope == "command":
        return f"{tool} {json.dumps(list(argv[1:]))}"
    return None


def _frame(data: bytes, dictionary: "zstandard.ZstdCompressionDict | None" = None) -> bytes:
    import zstandard

    level = ZSTD_LEVEL if len(data) <= LARGE_BYTES else LARGE_LEVEL
    if dictionary is None:
        return zstandard.ZstdCompressor(level=level).compress(data)
    return zstandard.ZstdCompressor(level=level, dict_data=dictionary).compress(data)


def _raw_dictionary(content: bytes) -> "zstandard.ZstdCompressionDict":
    import zstandard

    return zstandard.ZstdCompressionDict(content, dict_type=zstandard.DICT_TYPE_RAWCONTENT)


def has_dictionaries(conn: sqlite3.Connection) -> bool:
    """Whether the store has the table of dictionaries (schema 8 and later)."""
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'raw_dictionaries'"
    ).fetchone()
    return row is not None


def _stored_dictionary(conn: sqlite3.Connection, key: str) -> "zstandard.ZstdCompressionDict":
    found = _cache.get(key)
    if found is not None:
        return found
    row = None
    if has_dictionaries(conn):
        row = conn.execute("SELECT content FROM raw_dictionaries WHERE key = ?", (key,)).fetchone()
    if row is None:
        raise StoreError(
            f"a compressed raw output refers to dictionary {key}, which this store does not "
            "hold: the store was changed outside ssdlab; restore it from a backup"
        )
    content = _unpack_bytes(conn, bytes(row[0]), f"dictionary {key}", DICTIONARY_MAX_BYTES)
    if len(_cache) >= _CACHE_MAX:
        _cache.clear()
    _cache[key] = _raw_dictionary(content)
    return _cache[key]


def _dictionary_for(conn: sqlite3.Connection, source: str, first: bytes) -> str | None:
    """The key of the dictionary of `source`, made from `first` (the output being stored) when
    the store has none yet; the caller's transaction keeps both together."""
    import hashlib

    row = conn.execute(
        "SELECT key FROM raw_dictionaries WHERE source = ? ORDER BY created_at_s, key LIMIT 1",
        (source,),
    ).fetchone()
    if row is not None:
        return str(row[0])
    if len(first) > DICTIONARY_MAX_BYTES:
        return None
    key = hashlib.sha256(first).hexdigest()[: 2 * _KEY_BYTES]
    conn.execute(
        "INSERT OR IGNORE INTO raw_dictionaries (key, source, content, created_at_s)"
        " VALUES (?, ?, ?, ?)",
        (key, source, bytes([ZSTD]) + _frame(first), time.time()),
    )
    return key


def pack_raw(
    conn: sqlite3.Connection,
    text: str | None,
    source: str | None = None,
    min_bytes: int | None = None,
) -> str | bytes | None:
    """`text` as the store keeps it: compressed (a BLOB) from `min_bytes` (`PACK_MIN_BYTES`)
    on, with the dictionary of `source` when given (made from `text` when the store has none
    yet). Call inside the transaction that stores the value."""
    if text is None:
        return None
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return text  # not storable as text either: SQLite refuses it as before
    if len(data) < (PACK_MIN_BYTES if min_bytes is None else min_bytes):
        return text
    if source is not None and has_dictionaries(conn):
        key = _dictionary_for(conn, source, data)
        if key is not None:
            frame = _frame(data, _stored_dictionary(conn, key))
            return bytes([ZSTD_DICTIONARY]) + bytes.fromhex(key) + frame
    return bytes([ZSTD]) + _frame(data)


def _too_long(where: str, limit: int) -> StoreError:
    return StoreError(
        f"{where} is damaged: it would be longer than {limit:,} bytes once decompressed, "
        "more than ssdlab ever stores in one value; restore the store from a backup"
    )


def _bounded_stream(
    dctx: "zstandard.ZstdDecompressor", frame: bytes, limit: int, where: str
) -> bytes:
    """A frame that does not say its length, decompressed piece by piece up to `limit`."""
    pieces: list[bytes] = []
    total = 0
    with dctx.stream_reader(frame) as reader:
        while piece := reader.read(_STREAM_BYTES):
            total += len(piece)
            if total > limit:
                raise _too_long(where, limit)
            pieces.append(piece)
    return b"".join(pieces)


def _decompress(
    frame: bytes,
    dictionary: "zstandard.ZstdCompressionDict | None",
    limit: int,
    where: str,
) -> bytes:
    """One zstd frame decompressed, refused (before any memory is taken for it) when it would
    be longer than `limit`: the length its header claims is checked first, since the library
    allocates that much at once."""
    import zstandard

    claimed = zstandard.frame_content_size(frame)
    if claimed > limit:
        raise _too_long(where, limit)
    dctx = zstandard.ZstdDecompressor(dict_data=dictionary)
    if claimed >= 0:
        return dctx.decompress(frame)
    return _bounded_stream(dctx, frame, limit, where)


def _unpack_bytes(
    conn: sqlite3.Connection, value: bytes, where: str, limit: int | None = None
) -> bytes:
    """A stored BLOB decompressed, at most `limit` bytes long (`MAX_RAW_BYTES`)."""
    import zstandard

    limit = MAX_RAW_BYTES if limit is None else limit
    try:
        if value[:1] == bytes([ZSTD]):
            return _decompress(value[1:], None, limit, where)
        if value[:1] == bytes([ZSTD_DICTIONARY]):
            key = value[1 : 1 + _KEY_BYTES].hex()
            dictionary = _stored_dictionary(conn, key)
            return _decompress(value[1 + _KEY_BYTES :], dictionary, limit, where)
    except zstandard.ZstdError as error:
        raise StoreError(
            f"{where} cannot be decompressed ({error}): the store was changed outside ssdlab "
            "or damaged; restore it from a backup"
        ) from None
    raise StoreError(
        f"{where} is binary data of no known kind (marker {value[:1].hex() or 'none'}): it "
        "was written by a newer ssdlab (upgrade ssdlab) or damaged"
    )


def unpack_raw(conn: sqlite3.Connection, value: object, where: str = "a raw output") -> str:
    """The text a stored raw value holds, byte for byte as it was stored (TEXT as it is, a
    compressed BLOB decompressed)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        data = _unpack_bytes(conn, bytes(value), where)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise StoreError(f"{where} is not UTF-8 text once decompressed ({error})") from None
    raise StoreError(f"{where} holds {type(value).__name__}, not text")


def unpack_optional(conn: sqlite3.Connection, value: object, where: str) -> str | None:
    """`unpack_raw` of a value that may be NULL."""
    return None if value is None else unpack_raw(conn, value, where)


def check_raw(conn: sqlite3.Connection, value: object, where: str) -> None:
    """Refuse (a `StoreError`) a raw value of `conn` that would not read back within
    `MAX_RAW_BYTES`, or is not a raw value at all, without keeping its text: what `fleet
    collect` asks of every value a node sends. A frame that says its length is judged by its
    header alone; one that does not is decompressed, bounded, and dropped."""
    if value is None:
        return
    if isinstance(value, str):
        if len(value) > MAX_RAW_BYTES:
            raise StoreError(f"{where} is longer than {MAX_RAW_BYTES:,} characters")
        return
    if not isinstance(value, bytes | bytearray | memoryview):
        raise StoreError(f"{where} holds {type(value).__name__}, not text")
    import zstandard

    data = bytes(value)
    skip = {bytes([ZSTD]): 1, bytes([ZSTD_DICTIONARY]): 1 + _KEY_BYTES}.get(data[:1])
    if skip is None:
        _unpack_bytes(conn, data, where)  # raises: a marker of no known kind
        return
    try:
        claimed = zstandard.frame_content_size(data[skip:])
    except zstandard.ZstdError as error:
        raise StoreError(f"{where} is not a zstd frame ({error})") from None
    if claimed > MAX_RAW_BYTES:
        raise _too_long(where, MAX_RAW_BYTES)
    if claimed < 0:
        _unpack_bytes(conn, data, where)


def _check_dictionary(row: tuple[object, ...]) -> None:
    """Refuse a dictionary whose key is not the hash of its content, or whose content is not a
    frame of at most `DICTIONARY_MAX_BYTES`: a store cannot slip a dictionary in under a key
    another value of the receiving store refers to, nor one that is not one."""
    import hashlib

    import zstandard

    key, source, content = row[0], row[1], row[2]
    where = "a dictionary of compressed raw outputs"
    if not isinstance(key, str) or len(key) != 2 * _KEY_BYTES:
        raise StoreError(f"{where} has a key of the wrong kind")
    if not isinstance(source, str) or len(source) > DICTIONARY_MAX_BYTES:
        raise StoreError(f"{where} ({key}) names no source of the right kind")
    if not isinstance(content, bytes) or content[:1] != bytes([ZSTD]):
        raise StoreError(f"{where} ({key}) holds no zstd frame")
    try:
        data = _decompress(content[1:], None, DICTIONARY_MAX_BYTES, f"{where} ({key})")
    except zstandard.ZstdError as error:
        raise StoreError(f"{where} ({key}) cannot be decompressed ({error})") from None
    if hashlib.sha256(data).hexdigest()[: 2 * _KEY_BYTES] != key:
        raise StoreError(f"{where} ({key}) does not hold the content its key names")


def copy_dictionaries(source: sqlite3.Connection, dest: sqlite3.Connection) -> int:
    """Copy the dictionaries `dest` lacks from `source` (values copied as they are refer to
    them); how many were added, each checked first (`_check_dictionary`). Call inside a
    transaction of `dest`."""
    if not has_dictionaries(source) or not has_dictionaries(dest):
        return 0
    have = {str(row[0]) for row in dest.execute("SELECT key FROM raw_dictionaries")}
    added = 0
    for row in source.execute(
        "SELECT key, source, content, created_at_s FROM raw_dictionaries ORDER BY key"
    ):
        if str(row[0]) not in have:
            _check_dictionary(tuple(row))
            dest.execute(
                "INSERT INTO raw_dictionaries (key, source, content, created_at_s)"
                " VALUES (?, ?, ?, ?)",
                tuple(row),
            )
            added += 1
    return added
