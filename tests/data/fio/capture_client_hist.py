"""Re-make the fio client/server histogram logs in client-hist-2servers/ (see README.md): two
fio servers on unix sockets, one client sending each its own job (direct I/O to one, buffered
to the other, so their latencies differ), the client's working directory the folder the logs
land in, the sockets named relative to it as `ssdlab fleet load` names them.

Usage: python tests/data/fio/capture_client_hist.py
The jobs do 4 KiB random I/O on two 4 MiB files under /tmp/ssdlab-fio-captures (removed
afterwards), never on a block device.
"""

import shutil
import signal
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "client-hist-2servers"
SCRATCH = Path("/tmp/ssdlab-fio-captures")
JOBS = ("direct", "buffered")


def main() -> None:
    SCRATCH.mkdir(exist_ok=True)
    folder = SCRATCH / "hist-sockets"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700)
    client = folder / "client"
    client.mkdir(mode=0o700)
    servers = []
    for index in range(len(JOBS)):
        home = folder / f"server{index}"
        home.mkdir(mode=0o700)
        path = home / "fio.sock"
        servers.append(subprocess.Popen(["fio", f"--server=sock:{path}"], cwd=home))
        (client / f"{index}.sock").symlink_to(path)
    try:
        while not all((folder / f"server{n}" / "fio.sock").exists() for n in range(len(JOBS))):
            time.sleep(0.05)
        argv = ["fio", "--output-format=json"]
        for index, job in enumerate(JOBS):
            argv += [f"--client=sock:{index}.sock", str(OUT / f"{job}.fio")]
        done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=client)
    finally:
        for server in servers:
            server.send_signal(signal.SIGTERM)
            server.wait()
    for index in range(len(JOBS)):
        left = sorted(p.name for p in (folder / f"server{index}").iterdir())
        print(f"server{index}'s folder holds {left}")
    for log in sorted(client.glob("*.log.*.sock")):
        shutil.copyfile(log, OUT / log.name)
    (OUT / "client.stdout").write_text(done.stdout)
    print(f"fio exit status {done.returncode}; stderr: {done.stderr!r}")
    shutil.rmtree(folder)
    for job in JOBS:
        (SCRATCH / f"client-hist-{job}.dat").unlink(missing_ok=True)
    print(subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
