#!/usr/bin/python
# -*- coding: utf-8 -*-
# MIT License (see the ssdlab repository)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ssdlab_export
short_description: An ssdlab node's runs as one store file on the node, ready to fetch
description:
  - Runs C(ssdlab node export) on the node (the store is only read; a run may be writing it)
    and keeps its answer, one self-contained SQLite store file holding the node's runs, at
    I(dest) on the node. Bring it to the seat with M(ansible.builtin.fetch) and merge it into
    the seat's store with C(ssdlab fleet merge FILE --host NAME), which takes each run once.
  - Idempotent. The file is replaced only when the runs it would hold differ from those of
    the file there (another run, another status) or a run is still running; otherwise it is
    left as it is, so a fetch after it copies nothing.
version_added: "0.1.0"
author:
  - ssdlab developers
extends_documentation_fragment:
  - ssdlab.bench.node
options:
  dest:
    description: Where the export is kept on the node (its folder must exist).
    type: path
    required: true
  known:
    description:
      - The UUIDs of runs the seat holds finished already; they are left out of the file.
    type: list
    elements: str
    default: []
notes:
  - Supports check mode (the export is made and compared, nothing is written).
  - The export is written by C(ssdlab node export --to) beside I(dest), never through the
    module's memory.
"""

EXAMPLES = r"""
- name: Export the node's runs
  ssdlab.bench.ssdlab_export:
    ssdlab: "{{ ssdlab_command | default('ssdlab') }}"
    db: "{{ ssdlab_db | default(omit) }}"
    dest: /var/tmp/ssdlab-export.db
  register: exported

- name: Bring it to the seat
  ansible.builtin.fetch:
    src: "{{ exported.dest }}"
    dest: "exports/{{ inventory_hostname }}.db"
    flat: true
"""

RETURN = r"""
dest:
  description: The export's path on the node.
  returned: success
  type: str
size:
  description: The export's size in bytes.
  returned: success
  type: int
runs:
  description: The runs the export holds, each with its uuid, status, profile and target.
  returned: success
  type: list
  elements: dict
"""

import json
import os
import sqlite3
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes
from ansible_collections.ssdlab.bench.plugins.module_utils.ssdlab_node import (
    SSDLAB_ARGS,
    run_ssdlab,
    store_words,
)

try:
    from urllib.parse import quote
except ImportError:  # Python 2
    from urllib import quote


def runs_of(path):
    """The runs a store file holds (uuid, status, profile, target), or None when it is not one
    (then it is replaced)."""
    try:
        conn = sqlite3.connect("file:%s?mode=ro" % quote(path), uri=True)
        try:
            rows = conn.execute(
                "SELECT uuid, status, profile, target_path FROM runs ORDER BY id"
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return [dict(uuid=r[0], status=r[1], profile=r[2], target=r[3]) for r in rows]


def _same(old, new):
    if old is None:
        return False
    key = [(r["uuid"], r["status"]) for r in new]
    return key == [(r["uuid"], r["status"]) for r in old] and all(
        r["status"] != "running" for r in new
    )


def main():
    spec = dict(SSDLAB_ARGS)
    spec.update(
        dest=dict(type="path", required=True),
        known=dict(type="list", elements="str", default=[]),
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    dest = module.params["dest"]
    folder = os.path.dirname(os.path.abspath(dest))
    if not os.path.isdir(folder):
        module.fail_json(msg="dest: the folder %s does not exist" % folder)
    if os.path.isdir(dest):
        module.fail_json(msg="dest: %s is a folder; give a file's path" % dest)
    known = to_bytes(json.dumps(list(module.params["known"])))
    fd, scratch = tempfile.mkstemp(prefix=".ssdlab-export-", suffix=".db", dir=folder)
    os.close(fd)
    try:
        run_ssdlab(
            module,
            ["node", "export", "--to", scratch] + store_words(module),
            data=known,
            dest=dest,
        )
        new = runs_of(scratch)
        if new is None:
            module.fail_json(msg="ssdlab node export wrote no store file", dest=dest)
        old = runs_of(dest) if os.path.isfile(dest) else None
        result = dict(dest=dest, runs=new, changed=not _same(old, new))
        if result["changed"] and not module.check_mode:
            os.rename(scratch, dest)
        result["size"] = os.path.getsize(dest if os.path.isfile(dest) else scratch)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
