"""Re-make every capture in this folder with the fio on PATH (see README.md).

Usage: python tests/data/fio/capture.py [SCRATCH_DIR]   (default: a new temporary folder)
fio runs inside SCRATCH_DIR on a 64 MiB regular file (fio-capture.dat), never on a block device.
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CAPTURES = [
    ("randread-4k-qd32", "json+"),
    ("seqwrite-1m", "json+"),
    ("randrw-70-30", "json+"),
    ("randread-4k-nj4-group", "json+"),
    ("null-ioengine", "json+"),
    ("psync-iodepth-warning", "json+"),
    ("write-error-devfull", "json+"),
    ("randread-4k-json", "json"),
]
LOG_CAPTURES = ["logs-randrw-nj2", "logs-randread-nj2-combined", "logs-write-stall"]


def run_fio(job: Path, output_format: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["fio", f"--output-format={output_format}", str(job)],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def main() -> None:
    scratch = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="fio-"))
    scratch.mkdir(parents=True, exist_ok=True)
    for name, output_format in CAPTURES:
        done = run_fio(HERE / f"{name}.fio", output_format, scratch)
        (HERE / f"{name}.json").write_text(done.stdout)
        stderr = HERE / f"{name}.stderr"
        if done.stderr:
            stderr.write_text(done.stderr)
        else:
            stderr.unlink(missing_ok=True)
        print(f"{name}: fio exit status {done.returncode}")
    for folder in LOG_CAPTURES:
        name = folder.removeprefix("logs-")
        for old in (HERE / folder).glob("*.log"):
            old.unlink()
        work = scratch / folder
        work.mkdir(exist_ok=True)
        done = run_fio(HERE / folder / f"{name}.fio", "json+", work)
        (HERE / folder / f"{name}.json").write_text(done.stdout)
        for log in sorted(work.glob("*.log")):
            shutil.copy(log, HERE / folder / log.name)
            print(f"{folder}: {log.name}")
    for data in scratch.rglob("fio-capture.dat"):
        data.unlink()
    print(subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
