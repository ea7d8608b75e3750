#!/usr/bin/python
# -*- coding: utf-8 -*-
# MIT License (see the ssdlab repository)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ssdlab_run
short_description: Start an ssdlab run on each given target of the node, detached, at a given time
description:
  - Starts C(ssdlab PROFILE TARGET ... --json --start-at TIME) on the node for every target
    with one C(ssdlab node start --batch), as C(ssdlab fleet run) does; each run is detached
    there (it outlives the SSH connection and the play), keeps its results in the node's own
    store and waits for the start time after every check, so that runs on many hosts begin
    together. One module call a host however many targets it has.
  - Idempotent. The node's jobs are listed first (C(ssdlab node jobs)); when a job with the
    very same command line (profile, target, options, store, start time, erasure) was started
    before and is not lost, it is returned and nothing is started for that target. Give every
    host the same I(start_at), chosen once, and a play run twice starts each run once.
  - Every safety rule is the node's ssdlab's, on the machine that owns the device; a device is
    written only when it is named in I(destroy_data) too. A target whose run the node would
    not start fails the task with its reason; the node's other runs go on.
version_added: "0.1.0"
author:
  - ssdlab developers
extends_documentation_fragment:
  - ssdlab.bench.node
options:
  jobs_dir:
    description: Where the node keeps its jobs (default fleet-jobs beside the store).
    type: path
  profile:
    description: C(quick), C(endure), or a profile of C(ssdlab run) (e.g. C(cache)).
    type: str
    default: quick
  targets:
    description: The node's targets, directories, files or block devices (its C(ssdlab_targets)).
    type: list
    elements: str
    required: true
  args:
    description:
      - The profile's options, as after C(--) of C(ssdlab fleet run), e.g.
        C([--preset, nvme, --size, 4GiB]). C(--db), C(--destroy-data), C(--start-at),
        C(--start-sent-at) and C(--json) are the module's own and are refused here.
    type: list
    elements: str
    default: []
  start_at:
    description:
      - When the runs begin (Unix seconds, or ISO 8601 with a time zone), after their checks
        and preparation. Give every host the same value.
    type: str
    required: true
  start_sent_at:
    description:
      - The seat's clock as the start leaves it (Unix seconds), e.g.
        C("{{ now().timestamp() }}"), templated on the seat. A node whose clock disagrees with
        it by more than the journey explains refuses the run and says by how much; without it a
        late start is only said to be late.
    type: str
  destroy_data:
    description:
      - The targets a run may erase (C(ssdlab_destroy_data)); C(--destroy-data TARGET) is given
        only for a target named here.
    type: list
    elements: str
    default: []
notes:
  - Supports check mode (says which runs would be started).
  - Wait for the runs with M(ssdlab.bench.ssdlab_status) and C(until).
"""

EXAMPLES = r"""
- name: Start quick on every target at one time
  ssdlab.bench.ssdlab_run:
    ssdlab: "{{ ssdlab_command | default('ssdlab') }}"
    db: "{{ ssdlab_db | default(omit) }}"
    profile: quick
    targets: "{{ ssdlab_targets }}"
    args: [--preset, nvme]
    start_at: "{{ hostvars['localhost'].ssdlab_start_at }}"
    start_sent_at: "{{ now().timestamp() }}"
    destroy_data: "{{ ssdlab_destroy_data | default([]) }}"
  register: started
"""

RETURN = r"""
jobs:
  description: One per target, in the order given.
  returned: always
  type: list
  elements: dict
  contains:
    target:
      description: The target.
      type: str
    argv:
      description: The ssdlab command line the job runs (without the command itself and without
        C(--start-sent-at)).
      type: list
      elements: str
    job:
      description: The node's job id (C(ssdlab node start)'s); none when it was not started.
      type: str
      sample: 20261126T120000.123Z-1a2b3c4d
    dir:
      description: The job's folder on the node.
      type: str
    started:
      description: Whether this call started the job (false when it was there already).
      type: bool
    state:
      description: The job's state when it was there already (running, exited, starting).
      type: str
    problem:
      description: Why the node did not start it.
      type: str
"""

import json

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ssdlab.bench.plugins.module_utils.ssdlab_node import (
    SSDLAB_ARGS,
    run_json,
    set_by_module,
    store_words,
)


def _profile_words(profile):
    return [profile] if profile in ("quick", "endure") else ["run", profile]


def _start_at(text):
    """Unix seconds as ssdlab fleet writes them (three decimals); any other text as given."""
    try:
        return "%.3f" % float(text)
    except ValueError:
        return text


def node_words(params, target):
    """What the node runs for one target, word for word as ssdlab fleet run has it run
    (fleet/launch.py's node_words)."""
    words = _profile_words(params["profile"]) + [target] + list(params["args"]) + ["--json"]
    if params["db"]:
        words += ["--db", params["db"]]
    words += ["--start-at", _start_at(params["start_at"])]
    if target in params["destroy_data"]:
        words += ["--destroy-data", target]
    return words


def without_sent(argv):
    """A job's command line without --start-sent-at and its value: the same start sent again
    later is the same run."""
    words = list(argv)
    if "--start-sent-at" in words:
        at = words.index("--start-sent-at")
        del words[at : at + 2]
    return words


def answered(answers, count):
    """What `node start --batch` said for each of its `count` command lines: a job (a dict
    with its id) or {"problem": why}."""
    if not isinstance(answers, list):
        return [{"problem": "ssdlab node start printed no list of job ids"}] * count
    if len(answers) != count:
        said = "ssdlab node start answered for %d of %d runs" % (len(answers), count)
        return [{"problem": said}] * count
    found = []
    for answer in answers:
        if isinstance(answer, dict) and isinstance(answer.get("job"), str):
            found.append(answer)
        else:
            problem = answer.get("problem") if isinstance(answer, dict) else None
            if not isinstance(problem, str):
                problem = "ssdlab node start gave no job id for it"
            found.append({"problem": problem})
    return found


def _jobs_words(module):
    words = store_words(module)
    if module.params["jobs_dir"]:
        words += ["--jobs-dir", module.params["jobs_dir"]]
    return words


def _known_jobs(module, result):
    jobs = run_json(module, ["node", "jobs"] + _jobs_words(module), **result)
    listed = jobs if isinstance(jobs, list) else []
    return [job for job in listed if isinstance(job, dict) and job.get("state") != "lost"]


def main():
    spec = dict(SSDLAB_ARGS)
    spec.update(
        jobs_dir=dict(type="path"),
        profile=dict(type="str", default="quick"),
        targets=dict(type="list", elements="str", required=True),
        args=dict(type="list", elements="str", default=[]),
        start_at=dict(type="str", required=True),
        start_sent_at=dict(type="str"),
        destroy_data=dict(type="list", elements="str", default=[]),
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    params = module.params
    params["destroy_data"] = [t.strip() for t in params["destroy_data"] if t.strip()]
    targets = [t.strip() for t in params["targets"] if t.strip()]
    if not targets:
        module.fail_json(msg="targets: give the node's targets")
    fought = set_by_module(params["args"])
    if fought:
        module.fail_json(
            msg="%s in args is set by the module: the store is db, the targets to erase "
            "destroy_data, the start start_at and start_sent_at" % ", ".join(fought)
        )
    rows = [dict(target=t, argv=node_words(params, t), started=False, job=None) for t in targets]
    result = dict(changed=False, jobs=rows)
    known = _known_jobs(module, result)
    to_start = []
    for row in rows:
        same = [job for job in known if without_sent(job.get("argv") or []) == row["argv"]]
        if same:
            row.update(job=same[-1].get("job"), dir=same[-1].get("dir"))
            row["state"] = same[-1].get("state")
        else:
            to_start.append(row)
    if to_start and module.check_mode:
        result["changed"] = True
    elif to_start:
        sent = params["start_sent_at"]
        extra = ["--start-sent-at", _start_at(sent)] if sent else []
        argvs = [row["argv"] + extra for row in to_start]
        words = ["node", "start"] + _jobs_words(module) + ["--batch"]
        answers = run_json(module, words, data=json.dumps(argvs), **result)
        for row, answer in zip(to_start, answered(answers, len(to_start))):
            if "job" in answer:
                row.update(job=answer["job"], dir=answer.get("dir"), started=True)
            else:
                row["problem"] = answer["problem"]
        result["changed"] = any(row["started"] for row in rows)
    refused = [row for row in rows if row.get("problem")]
    if refused:
        said = "; ".join("%s: %s" % (row["target"], row["problem"]) for row in refused)
        module.fail_json(msg="not started: " + said, **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
