"""The inventory a fleet command gives its play (system/ansible_play.unsafe_yaml): every value
reaches the play as it was given, a Jinja template in it never rendered. Checked by the real
ansible-playbook, on this machine only (a local connection)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.system.ansible_play import unsafe_yaml

pytest.importorskip("ansible")

# values an inventory may hold (ssdlab refuses `{{` when it reads one, not the others)
HOSTILE = {
    "statement": "{% if true %}rendered{% endif %}",
    "comment": "/srv/{# gone #}ssd",
    "expression": "{{ 1 + 1 }}",
    "quotes": 'it\'s "quoted" \\ and\nnew line, ünïcode: ✓',
}
# texts YAML would read as something else unquoted: ansible-core 2.19 reads a text tagged
# !unsafe as if unquoted (`fleet run … -- --ioengine null` reached the node as `--ioengine ''`)
PLAIN = ["null", "~", "true", "yes", "off", "1", "0x10", "1e3", ".inf", "2026-11-30", "12:30"]


def test_no_template_in_the_plays_inventory_is_rendered(tmp_path: Path) -> None:
    host = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    host |= {"words": ["env", HOSTILE["statement"], *PLAIN], "port": 22, "flag": True}
    host |= {"none": None, "plain": "null"}
    host |= HOSTILE
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(unsafe_yaml({"all": {"hosts": {"h1": host}}}), encoding="utf-8")
    playbook = tmp_path / "show.yml"
    playbook.write_text(
        "- hosts: all\n  gather_facts: false\n  tasks:\n"
        "    - ansible.builtin.copy:\n"
        "        dest: " + json.dumps(str(tmp_path / "seen.json")) + "\n"
        "        content: \"{{ {'words': words, 'port': port, 'flag': flag, 'none': none,"
        " 'plain': plain, 'statement': statement, 'comment': comment, 'expression': expression,"
        " 'quotes': quotes} | to_json }}\"\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "ANSIBLE_HOME": str(tmp_path / "home"),
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "tmp"),
        "ANSIBLE_CONFIG": str(tmp_path / "ansible.cfg"),
        "ANSIBLE_INVENTORY_ENABLED": "yaml",
    }
    (tmp_path / "ansible.cfg").write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "ansible", "playbook", "-i", str(inventory), str(playbook)],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    seen = json.loads((tmp_path / "seen.json").read_text(encoding="utf-8"))
    assert seen == {
        "words": ["env", HOSTILE["statement"], *PLAIN],
        "port": 22,
        "flag": True,
        "none": None,
        "plain": "null",
        **HOSTILE,
    }
