"""Write what ssdlab prints for the runs of main-98b38bc.sqlite into DIR: the documents of
tests/e2e/test_old_store.py's DOCUMENTS (`runs`, `show` as text and --json, `export` in every
format, `compare`, `report --format md`, `status` of the endurance run and `wear` between two
imported samples). Made with the code of commit 98b38bc, these are the documents later code
must still print for the same store:

    /work/main/.venv/bin/python tests/data/store/outputs_main_98b38bc.py STORE DIR

run from a checkout of that commit with this file and tests/e2e/test_old_store.py copied in.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(SRC))

from tests.e2e.test_old_store import DOCUMENTS, WIDTH  # noqa: E402


def main(store: Path, out: Path) -> None:
    db = Path(tempfile.mkdtemp()) / "store.sqlite"
    shutil.copyfile(store, db)
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(SRC / "src"), **WIDTH}
    for name, args, with_stderr in DOCUMENTS:
        argv = [sys.executable, "-m", "ssdlab", *args, "--db", str(db)]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        if not with_stderr and done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {done.stderr}")
        (out / name).write_text(done.stdout + (done.stderr if with_stderr else ""))


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
