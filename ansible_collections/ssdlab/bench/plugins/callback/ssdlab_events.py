# -*- coding: utf-8 -*-
# MIT License (see the ssdlab repository)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
name: ssdlab_events
type: stdout
short_description: One JSON line per task result and host, for the program that runs the play
description:
  - Prints one JSON object per line on stdout for every task result of every host (ok,
    changed, failed, unreachable, skipped) with the host's inventory name, the task's action,
    the time and what the result says (its message, and a fetch's or an export's destination
    and size, a failed command's last lines of stderr, and any result field named
    C(ssdlab_*), such as the variable a C(debug) task prints, as JSON); nothing else.
    C(ssdlab fleet collect), C(doctor), C(status) and C(deploy) run the collection's
    playbooks with it and read each host's results from these lines.
  - The documents C(fleet doctor) and C(fleet status) read are kept as JSON (a node's
    C(facts), its C(status), a C(clock) reading, and the C(tools) of a node without ssdlab);
    the results' other fields (an export's list of runs) are left out, so the lines stay
    short however many runs a node holds.
version_added: "0.1.0"
author:
  - ssdlab developers
"""

import json
import sys
import time

from ansible.plugins.callback import CallbackBase

KEPT = ("msg", "dest", "size", "rc", "changed", "skip_reason", "took_s")
# kept as they are, as JSON: the node's documents fleet doctor and fleet status read
DOCUMENTS = ("facts", "status", "clock", "tools", "ssdlab_missing", "jobs")
STDERR_KEPT = 2000  # characters of a failed command's stderr (its end: pip's ERROR lines)


def _parts(result):
    """(host name, task action, result dict, task name) across ansible-core versions (2.19
    renamed the private fields)."""
    host = getattr(result, "host", None) or result._host
    task = getattr(result, "task", None) or result._task
    found = getattr(result, "result", None)
    if not isinstance(found, dict):
        found = result._result
    return host.get_name(), task.action, found, task.get_name()


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "ssdlab.bench.ssdlab_events"

    def _emit(self, event, result):
        host, action, found, task_name = _parts(result)
        line = dict(event=event, host=host, action=action, time=time.time(), task=task_name)
        for key in KEPT:
            if key in found:
                value = found[key]
                line[key] = value if isinstance(value, (int, float, bool)) else str(value)
        for key in DOCUMENTS:
            if key in found:
                line[key] = found[key]
        if event == "failed" and found.get("stderr"):
            line["stderr"] = str(found["stderr"])[-STDERR_KEPT:]
        for key, value in found.items():
            if str(key).startswith("ssdlab_"):
                line[str(key)] = json.loads(json.dumps(value, default=str))
        sys.stdout.write(json.dumps(line, default=str) + "\n")
        sys.stdout.flush()

    def v2_runner_on_ok(self, result):
        self._emit("ok", result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._emit("failed", result)

    def v2_runner_on_unreachable(self, result):
        self._emit("unreachable", result)

    def v2_runner_on_skipped(self, result):
        self._emit("skipped", result)

    def v2_playbook_on_start(self, playbook):
        sys.stdout.write(json.dumps(dict(event="start", time=time.time())) + "\n")
        sys.stdout.flush()
