"""A node that answers `ssdlab node …` as the real ssdlab does, except `node fio-server`: there
it serves tests/abuse/hostile_fio_server.py on the socket instead of fio's server. Its first
three words say the file it tries to steal, the name it plants and where it writes, as JSON,
what the client sent back. It runs on a lab node as the inventory's `ssdlab_command`:
`python3 tests/abuse/hostile_node.py STEAL PLANT LOOT node fio-server --socket PATH`."""

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.abuse.hostile_fio_server import HostileServer

PLANTED = b"ssh-ed25519 AAAAC3Nza the-node's-key\n"


def _serve(socket_path: Path, steal: str, plant: str, loot_path: Path) -> None:
    socket_path.parent.mkdir(mode=0o700)
    with HostileServer(socket_path, steal, plant, PLANTED) as server:
        fio = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=True)
        version = fio.stdout.strip()  # the seat checks that its fio and the node's agree
        sys.stdout.write(json.dumps({"socket": str(socket_path), "fio_version": version}) + "\n")
        sys.stdout.flush()
        sys.stdin.read()  # until the seat hangs up, as the real one
    loot = server.loot
    data = None if loot.data is None else loot.data.decode(errors="replace")
    document = {"error": loot.error, "data": data, "opcodes": loot.opcodes}
    loot_path.write_text(json.dumps(document), encoding="utf-8")


def main(argv: list[str]) -> None:
    steal, plant, loot, *words = argv
    if words[:3] == ["node", "fio-server", "--socket"]:
        _serve(Path(words[3]), steal, plant, Path(loot))
        return
    os.execv(sys.executable, [sys.executable, "-m", "ssdlab", *words])


if __name__ == "__main__":
    main(sys.argv[1:])
