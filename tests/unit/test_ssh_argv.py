"""The ssh command lines of the fleet transport: the user's arguments first, no local shell."""

import shlex
from pathlib import Path

from ssdlab.model.fleet import FleetHost
from ssdlab.system.ssh import SshSettings, remote_command, ssh_argv


def test_user_arguments_come_before_ssdlabs_defaults() -> None:
    host = FleetHost("node1", "10.0.0.2", port=2222, user="lab", ssh_args=("-o", "BatchMode=no"))
    argv = ssh_argv(host, ["ssdlab", "node", "facts"], SshSettings())
    assert argv.index("BatchMode=no") < argv.index("BatchMode=yes")
    assert argv[argv.index("-p") + 1] == "2222"
    assert argv[argv.index("-l") + 1] == "lab"
    assert argv[-3:] == ["--", "10.0.0.2", "ssdlab node facts"]


def test_multiplexing_uses_the_private_control_folder() -> None:
    argv = ssh_argv(FleetHost("n", "n"), ["true"], SshSettings(control_dir=Path("/tmp/x")))
    assert "ControlPath=/tmp/x/%C" in argv
    assert "ControlMaster=auto" in argv


def test_forwarded_unix_sockets() -> None:
    argv = ssh_argv(FleetHost("n", "n"), ["fio"], SshSettings(), [("/tmp/a.sock", "/run/b.sock")])
    assert argv[argv.index("-L") + 1] == "/tmp/a.sock:/run/b.sock"
    assert "ExitOnForwardFailure=yes" in argv


def test_remote_words_are_quoted_for_the_remote_shell() -> None:
    words = ["ssdlab", "--db", "/srv/my store.db", "quick", "$(reboot)", "a;b"]
    assert shlex.split(remote_command(words)) == words


def test_a_leading_home_is_left_for_the_remote_shell_to_expand() -> None:
    assert remote_command(["~/.local/bin/ssdlab", "~x"]) == "~/.local/bin/ssdlab '~x'"
