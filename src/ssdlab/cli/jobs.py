"""`ssdlab plan …` printed: the job files a run would use (app/plan_jobs.py), as text or as
the `ssdlab-plan` JSON document, and fio --parse-only's refusals as the command's error."""

import json
import sys

from ssdlab.app.plan_jobs import PlannedJobs
from ssdlab.errors import SsdlabError


def print_plan(planned: PlannedJobs, *, as_json: bool) -> int:
    jobs, failures = planned.jobs, planned.parse_failures
    if as_json:
        document = {
            "format": "ssdlab-plan",
            "format_version": 1,
            "destructive": planned.destructive,
            "target": planned.target_path,
            "jobs": [{"name": n, "text": t} for n, t in jobs],
            "notes": list(planned.notes),
            "parse_only_failures": None if failures is None else list(failures),
        }
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        sys.stdout.write("".join(f"### {name}.fio\n{text}\n" for name, text in jobs))
        lines = [f"# {len(jobs)} job files; nothing was run."]
        lines.extend(f"# {note}" for note in planned.notes)
        if planned.destructive:
            where = planned.target_path
            lines.append(
                f"# These jobs WRITE to {where}: running them needs --destroy-data {where}."
            )
        if planned.created_file:
            lines.append(f"# The test file {planned.target_path} would be created and removed.")
        if failures is not None:
            lines.append(f"# fio --parse-only: {len(jobs) - len(failures)} of {len(jobs)} OK.")
        sys.stdout.write("\n".join(lines) + "\n")
    if failures:
        raise SsdlabError("fio --parse-only rejected: " + "; ".join(failures))
    return 0
