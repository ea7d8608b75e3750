#!/usr/bin/python
# -*- coding: utf-8 -*-
# MIT License (see the ssdlab repository)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ssdlab_clock
short_description: The node's clock against the seat's, with the uncertainty of the reading
description:
  - Reads the node's clock (C(date +%s.%N), else C(python3)) between two readings of the seat's
    clock, several times, and keeps the reading with the shortest round trip.
  - The node's offset is its time minus the midpoint of the round trip; it is good to half the
    round trip (C(uncertainty_s)), so an offset smaller than its uncertainty says nothing
    about whether the clocks agree.
  - This is an action plugin that runs on the seat; the node only runs the one command that
    prints its time. Nothing is changed on the node.
version_added: "0.1.0"
author:
  - ssdlab developers
options:
  samples:
    description: How many readings to take (the one with the shortest round trip is kept).
    type: int
    default: 3
notes:
  - Supports check mode (it changes nothing).
"""

EXAMPLES = r"""
- name: The node's clock against this machine's
  ssdlab.bench.ssdlab_clock:
  register: clock

- name: Say how far off it is
  ansible.builtin.debug:
    msg: "{{ (clock.clock.offset_s * 1000) | round(1) }} ms ± {{ (clock.clock.uncertainty_s * 1000) | round(1) }} ms"
"""

RETURN = r"""
clock:
  description: The kept reading.
  returned: success
  type: dict
  contains:
    node_s: {description: The node's time (seconds since the epoch)., type: float}
    seat_before_s: {description: The seat's time before the command was sent., type: float}
    seat_after_s: {description: The seat's time once its answer arrived., type: float}
    offset_s: {description: The node's time minus the midpoint of the two., type: float}
    uncertainty_s: {description: Half the round trip; the offset is good to this., type: float}
    samples: {description: How many readings were taken., type: int}
    command: {description: The command that read the node's clock., type: str}
"""
