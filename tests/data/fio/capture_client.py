"""Re-make the fio client/server capture in this folder (see README.md): two fio servers on unix
sockets in a private folder, one client sending them client-sock-2servers.fio, as `ssdlab fleet
load` runs fio (there, each socket is a node's, forwarded by ssh).

Usage: python tests/data/fio/capture_client.py
The job does 4 KiB random I/O on /tmp/ssdlab-fio-captures/client-load.dat (4 MiB, removed
afterwards), never on a block device.
"""

import shutil
import signal
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAME = "client-sock-2servers"
SCRATCH = Path("/tmp/ssdlab-fio-captures")


def main() -> None:
    SCRATCH.mkdir(exist_ok=True)
    folder = SCRATCH / "sockets"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700)
    sockets = [f"{folder}/server{n}.sock" for n in (1, 2)]
    servers = [subprocess.Popen(["fio", f"--server=sock:{path}"], cwd=folder) for path in sockets]
    try:
        while not all(Path(path).exists() for path in sockets):
            time.sleep(0.05)
        argv = ["fio", "--output-format=json"]
        for path in sockets:
            argv += [f"--client=sock:{path}", str(HERE / f"{NAME}.fio")]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
    finally:
        for server in servers:
            server.send_signal(signal.SIGTERM)
            server.wait()
    shutil.rmtree(folder)
    (HERE / f"{NAME}.stdout").write_text(done.stdout)
    print(f"{NAME}: fio exit status {done.returncode}; stderr: {done.stderr!r}")
    (SCRATCH / "client-load.dat").unlink(missing_ok=True)
    print(subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
