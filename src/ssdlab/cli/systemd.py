"""The systemd unit helpers `endure --print-systemd-unit` uses, which live on the application
floor (app/systemd_unit.py) with the unit of a watch."""

from ssdlab.app.systemd_unit import exec_lines as exec_lines
from ssdlab.app.systemd_unit import unit_command as unit_command
