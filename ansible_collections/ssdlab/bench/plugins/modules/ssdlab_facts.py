#!/usr/bin/python
# -*- coding: utf-8 -*-
# MIT License (see the ssdlab repository)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ssdlab_facts
short_description: An ssdlab node's facts, and the checks a run on its targets would make
description:
  - Runs C(ssdlab node facts) on the node (versions of ssdlab, Python, fio and smartctl, root,
    boot id, clock, O_DIRECT, each target described) and, with I(check), C(ssdlab node check)
    on each target (the checks a run makes before it writes a byte, run by the node's own
    ssdlab against its own mounts and holders).
  - The facts are returned as C(ansible_facts.ssdlab).
  - When the node has no such ssdlab command, the module fails with C(ssdlab_missing) and the
    first line of C(fio --version) and C(smartctl --version) in C(tools) (null for a tool the
    node lacks), so a play can say what the node has before ssdlab is installed there.
  - Nothing is changed on the node.
version_added: "0.1.0"
author:
  - ssdlab developers
extends_documentation_fragment:
  - ssdlab.bench.node
options:
  targets:
    description: The targets to describe (and check); directories, files or block devices.
    type: list
    elements: str
    default: []
  directories:
    description: Folders in which to say whether O_DIRECT works.
    type: list
    elements: str
    default: []
  check:
    description: Also run the node's checks for a run on each target.
    type: bool
    default: false
  mode:
    description: The run's mode, as for C(ssdlab quick --mode) (what the check looks at).
    type: str
  size:
    description: The run's test size, e.g. C(1GiB) (what the check looks at).
    type: str
  buffered:
    description: The run goes through the page cache (file targets without O_DIRECT).
    type: bool
    default: false
  destroy_data:
    description:
      - The targets a run may erase (C(ssdlab_destroy_data)); a device target is checked as
        writable only when named here too.
    type: list
    elements: str
    default: []
  fail_on_check:
    description: Fail when a target's check says no (the reason is the message).
    type: bool
    default: true
notes:
  - Supports check mode (it changes nothing).
  - The module does not import ssdlab; it runs the node's ssdlab without a shell.
"""

EXAMPLES = r"""
- name: Describe the node and check its targets as a quick run would
  ssdlab.bench.ssdlab_facts:
    ssdlab: "{{ ssdlab_command | default('ssdlab') }}"
    db: "{{ ssdlab_db | default(omit) }}"
    targets: "{{ ssdlab_targets }}"
    destroy_data: "{{ ssdlab_destroy_data | default([]) }}"
    check: true
    size: 1GiB

- name: Show the node's fio
  ansible.builtin.debug:
    var: ansible_facts.ssdlab.tools.fio.version
"""

RETURN = r"""
ansible_facts:
  description: C(ssdlab) holds the node's facts, as C(ssdlab node facts) prints them.
  returned: success
  type: dict
facts:
  description: The node's facts (format C(ssdlab-node-facts)).
  returned: success
  type: dict
  sample: {"format": "ssdlab-node-facts", "ssdlab_version": "0.1.0", "is_root": true}
checks:
  description: Per target, what C(ssdlab node check) answered, C({ok, reason}).
  returned: when check is true
  type: dict
  sample: {"/mnt/ssd": {"ok": true}}
took_s:
  description:
    - How long the node's C(ssdlab node facts) took, in seconds: one start of ssdlab on the
      node, on its CPUs as they are. C(ssdlab fleet run) sets the fleet's start time from it.
  returned: success
  type: float
  sample: 0.41
ok:
  description: Whether every checked target may be run on.
  returned: always
  type: bool
ssdlab_missing:
  description: The node has no such ssdlab command (the module fails).
  returned: when ssdlab is not found
  type: bool
tools:
  description: The first line of fio's and smartctl's C(--version), null where not installed.
  returned: when ssdlab is not found
  type: dict
  sample: {"fio": "fio-3.36", "smartctl": null}
"""

import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ssdlab.bench.plugins.module_utils.ssdlab_node import (
    SSDLAB_ARGS,
    run_json,
    ssdlab_found,
    ssdlab_words,
    store_words,
)


def _first_line(module, tool):
    """The first line `tool --version` prints, or None when the node has no such tool."""
    path = module.get_bin_path(tool)
    if path is None:
        return None
    rc, out, _err = module.run_command([path, "--version"], check_rc=False)
    lines = [line.strip() for line in (out or "").splitlines() if line.strip()]
    return lines[0] if rc == 0 and lines else None


def _fail_without_ssdlab(module, words):
    tools = dict((tool, _first_line(module, tool)) for tool in ("fio", "smartctl"))
    module.fail_json(
        msg="%s is not found on the node" % words[0], ssdlab_missing=True, tools=tools, ok=False
    )


def _check_words(module, target):
    words = ["node", "check", target] + store_words(module)
    params = module.params
    if params["mode"]:
        words += ["--mode", params["mode"]]
    if params["size"]:
        words += ["--size", params["size"]]
    if params["buffered"]:
        words.append("--buffered")
    if target in params["destroy_data"]:
        words += ["--destroy-data", target]
    return words


def main():
    spec = dict(SSDLAB_ARGS)
    spec.update(
        targets=dict(type="list", elements="str", default=[]),
        directories=dict(type="list", elements="str", default=[]),
        check=dict(type="bool", default=False),
        mode=dict(type="str"),
        size=dict(type="str"),
        buffered=dict(type="bool", default=False),
        destroy_data=dict(type="list", elements="str", default=[]),
        fail_on_check=dict(type="bool", default=True),
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    targets = [t.strip() for t in module.params["targets"] if t.strip()]
    command = ssdlab_words(module)
    if not ssdlab_found(module, command):
        _fail_without_ssdlab(module, command)
    words = ["node", "facts"] + store_words(module)
    for directory in module.params["directories"]:
        words += ["--directory", directory]
    for target in targets:
        words += ["--target", target]
    began = time.time()
    facts = run_json(module, words)
    took_s = round(time.time() - began, 3)
    result = dict(changed=False, facts=facts, ansible_facts=dict(ssdlab=facts), ok=True)
    result["took_s"] = took_s
    if module.params["check"]:
        checks = {}
        for target in targets:
            checks[target] = run_json(module, _check_words(module, target), **result)
        result["checks"] = checks
        refused = [(t, c) for t, c in checks.items() if not c.get("ok")]
        result["ok"] = not refused
        if refused and module.params["fail_on_check"]:
            said = "; ".join("%s: %s" % (t, c.get("reason") or "refused") for t, c in refused)
            module.fail_json(msg=said, **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
