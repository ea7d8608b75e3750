"""The devices runs were made on: one row per device identity, shared by its runs."""

import sqlite3

from ssdlab.model.json_fields import dumps
from ssdlab.model.target import DeviceIdentity
from ssdlab.store.codec import DEVICE_IDENTITY, to_blob
from ssdlab.store.transaction import transaction


def upsert_device(conn: sqlite3.Connection, device: DeviceIdentity) -> int:
    identity = to_blob(device, DEVICE_IDENTITY)
    with transaction(conn):
        # a device first stored before blobs had versions is found by its unversioned JSON
        row = conn.execute(
            "SELECT id FROM devices WHERE identity_json IN (?, ?) ORDER BY id",
            (identity, dumps(device)),
        ).fetchone()
        if row is not None:
            return int(row[0])
        cursor = conn.execute(
            "INSERT INTO devices (name, path, model, serial, firmware, capacity_bytes, transport,"
            " identity_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                device.name,
                device.path,
                device.model,
                device.serial,
                device.firmware,
                device.capacity_bytes,
                device.transport,
                identity,
            ),
        )
        return int(cursor.lastrowid or 0)
