"""The recorded trees here hold symlink cycles (holders/ <-> slaves/), as real sysfs does.

Keep pytest from walking into them when it collects tests; they are data, read by
tests/unit/system/*_recorded.py.
"""

collect_ignore_glob = ["*"]
