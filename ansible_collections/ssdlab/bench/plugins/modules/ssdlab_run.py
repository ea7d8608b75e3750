#!/usr/bin/python
# -*- coding: utf-8 -*-
# MIT License (see the ssdlab repository)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ssdlab_run
short_description: Start an ssdlab run on one target of the node, detached, at a given time
description:
  - Starts C(ssdlab PROFILE TARGET ... --json --start-at TIME) on the node through
    C(ssdlab node start), as C(ssdlab fleet run) does; the run is detached there (it outlives
    the SSH connection and the play), keeps its results in the node's own store and waits
    for the start time after every check, so that runs on many hosts begin together.
  - Idempotent. The node's jobs are listed first (C(ssdlab node jobs)); when a job with the
    very same command line (profile, target, options, store, start time, erasure) was started
    before and is not lost, it is returned and nothing is started. Give every host the same
    I(start_at), chosen once, and a play run twice starts each run once.
  - Every safety rule is the node's ssdlab's, on the machine that owns the device; a device is
    written only when it is named in I(destroy_data) too.
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
  target:
    description: The node's target, a directory, file or block device (one of C(ssdlab_targets)).
    type: str
    required: true
  args:
    description:
      - The profile's options, as after C(--) of C(ssdlab fleet run), e.g.
        C([--preset, nvme, --size, 4GiB]). C(--db), C(--destroy-data), C(--start-at) and
        C(--json) are the module's own and are refused here.
    type: list
    elements: str
    default: []
  start_at:
    description:
      - When the run begins (Unix seconds, or ISO 8601 with a time zone), after its checks and
        preparation. Give every host the same value.
    type: str
    required: true
  destroy_data:
    description:
      - The targets a run may erase (C(ssdlab_destroy_data)); C(--destroy-data TARGET) is given
        only when I(target) is named here.
    type: list
    elements: str
    default: []
notes:
  - Supports check mode (says whether a run would be started).
  - Wait for the run with M(ssdlab.bench.ssdlab_status) and C(until).
"""

EXAMPLES = r"""
- name: Start quick on every target at one time
  ssdlab.bench.ssdlab_run:
    ssdlab: "{{ ssdlab_command | default('ssdlab') }}"
    db: "{{ ssdlab_db | default(omit) }}"
    profile: quick
    target: "{{ item }}"
    args: [--preset, nvme]
    start_at: "{{ hostvars['localhost'].ssdlab_start_at }}"
    destroy_data: "{{ ssdlab_destroy_data | default([]) }}"
  loop: "{{ ssdlab_targets }}"
  register: started
"""

RETURN = r"""
job:
  description: The node's job id (C(ssdlab node start)'s), none in check mode when not started.
  returned: always
  type: str
  sample: 20261126T120000.123Z-1a2b3c4d
dir:
  description: The job's folder on the node.
  returned: when there is a job
  type: str
argv:
  description: The ssdlab command line the job runs (without the command itself).
  returned: always
  type: list
  elements: str
started:
  description: Whether this call started the job (false when it was there already).
  returned: always
  type: bool
state:
  description: The job's state when it was there already (running, exited, starting).
  returned: when the job was there already
  type: str
"""

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


def node_words(params):
    """What the node runs, word for word as ssdlab fleet run has it run (fleet/launch.py)."""
    target = params["target"]
    words = _profile_words(params["profile"]) + [target] + list(params["args"]) + ["--json"]
    if params["db"]:
        words += ["--db", params["db"]]
    words += ["--start-at", _start_at(params["start_at"])]
    if target in params["destroy_data"]:
        words += ["--destroy-data", target]
    return words


def _jobs_words(module):
    words = store_words(module)
    if module.params["jobs_dir"]:
        words += ["--jobs-dir", module.params["jobs_dir"]]
    return words


def main():
    spec = dict(SSDLAB_ARGS)
    spec.update(
        jobs_dir=dict(type="path"),
        profile=dict(type="str", default="quick"),
        target=dict(type="str", required=True),
        args=dict(type="list", elements="str", default=[]),
        start_at=dict(type="str", required=True),
        destroy_data=dict(type="list", elements="str", default=[]),
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    params = module.params
    params["destroy_data"] = [t.strip() for t in params["destroy_data"] if t.strip()]
    if not params["target"].strip():
        module.fail_json(msg="target: give one of the node's targets")
    fought = set_by_module(params["args"])
    if fought:
        module.fail_json(
            msg="%s in args is set by the module: the store is db, the targets to erase "
            "destroy_data, the start start_at" % ", ".join(fought)
        )
    words = node_words(params)
    result = dict(changed=False, argv=words, started=False, job=None)
    jobs = run_json(module, ["node", "jobs"] + _jobs_words(module), **result)
    same = [
        job
        for job in (jobs if isinstance(jobs, list) else [])
        if job.get("argv") == words and job.get("state") != "lost"
    ]
    if same:
        job = same[-1]
        result.update(job=job.get("job"), dir=job.get("dir"), state=job.get("state"))
        module.exit_json(**result)
    if module.check_mode:
        result["changed"] = True
        module.exit_json(**result)
    started = run_json(module, ["node", "start"] + _jobs_words(module) + ["--"] + words, **result)
    result.update(changed=True, started=True, job=started.get("job"), dir=started.get("dir"))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
