# -*- coding: utf-8 -*-
# MIT License (see the ssdlab repository)
"""The node's clock read between two readings of the seat's: the action runs on the seat, so
it times the one short command that reads the node's clock itself, and the module's transfer,
Python start-up and Ansible's queues fall outside the interval."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

# the node's time in seconds with a fraction: GNU (and busybox) date first, Python when the
# node's date cannot say nanoseconds
READINGS = (
    "date +%s.%N",
    "python3 -c 'import time; print(repr(time.time()))'",
)


def _seconds(text):
    try:
        found = float((text or "").strip())
    except ValueError:
        return None
    return found if found > 0 and "." in text else None


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def _sample(self, command):
        before = time.time()
        done = self._low_level_execute_command(command, sudoable=False)
        after = time.time()
        if done.get("rc") != 0:
            return None
        node = _seconds(done.get("stdout"))
        return None if node is None else (before, node, after)

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        try:
            samples = int(self._task.args.get("samples", 3))
        except (TypeError, ValueError):
            raise AnsibleActionFail("samples: give a whole number of readings, e.g. 3")
        if not 1 <= samples <= 20:
            raise AnsibleActionFail("samples: give between 1 and 20 readings")
        for command in READINGS:
            taken = [self._sample(command) for _ in range(samples)]
            taken = [sample for sample in taken if sample is not None]
            if taken:
                before, node, after = min(taken, key=lambda s: s[2] - s[0])
                offset = node - (before + after) / 2
                result.update(
                    changed=False,
                    clock=dict(
                        node_s=node,
                        seat_before_s=before,
                        seat_after_s=after,
                        offset_s=offset,
                        uncertainty_s=(after - before) / 2,
                        samples=len(taken),
                        command=command,
                    ),
                )
                return result
        raise AnsibleActionFail("the node's clock could not be read (neither date +%s.%N nor python3)")
