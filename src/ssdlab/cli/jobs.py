"""`ssdlab plan …`: print the job files a run would use, optionally checked by fio."""

import json
import sys
from collections.abc import Sequence

from ssdlab.errors import SsdlabError
from ssdlab.system.fio import check_job_parses, find_fio
from ssdlab.system.process import ProcessRunner


def emit_plan(
    jobs: Sequence[tuple[str, str]],
    *,
    target_path: str,
    destructive: bool,
    created_file: bool,
    check: bool,
    as_json: bool,
    notes: Sequence[str] = (),
) -> int:
    """Print (name, job text) pairs; with `check`, fio --parse-only must accept each one."""
    failures: list[str] = []
    if check:
        processes = ProcessRunner()
        fio = find_fio(processes)
        for name, text in jobs:
            capture = check_job_parses(processes, fio, text)
            if capture.exit_code != 0:
                failures.append(f"{name}: {capture.stderr.strip() or capture.stdout.strip()}")
    if as_json:
        document = {
            "format": "ssdlab-plan",
            "format_version": 1,
            "destructive": destructive,
            "target": target_path,
            "jobs": [{"name": n, "text": t} for n, t in jobs],
            "notes": list(notes),
            "parse_only_failures": failures if check else None,
        }
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        for name, text in jobs:
            sys.stdout.write(f"### {name}.fio\n{text}\n")
        lines = [f"# {len(jobs)} job files; nothing was run."]
        lines.extend(f"# {note}" for note in notes)
        if destructive:
            lines.append(
                f"# These jobs WRITE to {target_path}: running them needs "
                f"--destroy-data {target_path}."
            )
        if created_file:
            lines.append(f"# The test file {target_path} would be created and removed.")
        if check:
            lines.append(f"# fio --parse-only: {len(jobs) - len(failures)} of {len(jobs)} OK.")
        sys.stdout.write("\n".join(lines) + "\n")
    if failures:
        raise SsdlabError("fio --parse-only rejected: " + "; ".join(failures))
    return 0
