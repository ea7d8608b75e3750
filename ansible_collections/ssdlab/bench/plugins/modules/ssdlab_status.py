#!/usr/bin/python
# -*- coding: utf-8 -*-
# MIT License (see the ssdlab repository)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ssdlab_status
short_description: Where an ssdlab node's runs and jobs stand
description:
  - Runs C(ssdlab node status) on the node, which lists its running and recent runs (an endurance run with
    its iterations, WAF and days to end of life) and its jobs (running, exited with their exit
    code, or lost).
  - With I(jobs), also says whether those jobs have all ended and which of them failed, so a
    play can wait for runs started by M(ssdlab.bench.ssdlab_run) with C(until).
  - Nothing is changed on the node.
version_added: "0.1.0"
author:
  - ssdlab developers
extends_documentation_fragment:
  - ssdlab.bench.node
options:
  jobs_dir:
    description: Where the node keeps its jobs (default fleet-jobs beside the store).
    type: path
  jobs:
    description: The job ids to wait for (C(job) of M(ssdlab.bench.ssdlab_run)).
    type: list
    elements: str
    default: []
notes:
  - Supports check mode (it changes nothing).
"""

EXAMPLES = r"""
- name: Wait for the runs started on this node
  ssdlab.bench.ssdlab_status:
    ssdlab: "{{ ssdlab_command | default('ssdlab') }}"
    db: "{{ ssdlab_db | default(omit) }}"
    jobs: "{{ started.results | map(attribute='job') | list }}"
  register: status
  until: status.done
  retries: 720
  delay: 10
"""

RETURN = r"""
status:
  description: The node's status, as C(ssdlab node status) prints it (format ssdlab-node-status).
  returned: success
  type: dict
jobs:
  description: The jobs asked for (all of the node's when none were), each as the node lists it.
  returned: success
  type: list
  elements: dict
running:
  description: How many of those jobs have not ended yet.
  returned: success
  type: int
done:
  description: Whether every job asked for has ended (exited, or lost).
  returned: success
  type: bool
failed_jobs:
  description: The jobs asked for that ended badly (an exit code other than 0, or lost).
  returned: success
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ssdlab.bench.plugins.module_utils.ssdlab_node import (
    SSDLAB_ARGS,
    run_json,
    store_words,
)


def main():
    spec = dict(SSDLAB_ARGS)
    spec.update(
        jobs_dir=dict(type="path"),
        jobs=dict(type="list", elements="str", default=[]),
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    words = ["node", "status"] + store_words(module)
    if module.params["jobs_dir"]:
        words += ["--jobs-dir", module.params["jobs_dir"]]
    status = run_json(module, words)
    every = status.get("jobs") or []
    wanted = [job for job in module.params["jobs"] if job]
    found = {job.get("job"): job for job in every}
    missing = [job for job in wanted if job not in found]
    if missing:
        module.fail_json(msg="the node has no job %s" % ", ".join(missing), status=status)
    jobs = [found[job] for job in wanted] if wanted else every
    running = [job for job in jobs if job.get("state") in ("running", "starting")]
    failed = [
        job
        for job in jobs
        if job.get("state") == "lost" or (job.get("state") == "exited" and job.get("exit") != 0)
    ]
    module.exit_json(
        changed=False,
        status=status,
        jobs=jobs,
        running=len(running),
        done=not running,
        failed_jobs=failed,
    )


if __name__ == "__main__":
    main()
