"""A fleet's hosts from an Ansible inventory (INI or YAML, with its group_vars/ and host_vars/),
read by ansible-core's own inventory manager: the file people already have, parsed the way
Ansible parses it. ansible-core is the optional extra `ssdlab[fleet]`.

Read from each host: `ansible_host`, `ansible_port`, `ansible_user`,
`ansible_ssh_private_key_file`, `ansible_ssh_common_args` (and `ansible_ssh_extra_args`), and
ssdlab's own `ssdlab_targets`, `ssdlab_destroy_data`, `ssdlab_db`, `ssdlab_command`,
`ssdlab_venv` and `ssdlab_python`. Jinja templates in these values are not rendered: a value
holding `{{` is refused rather than used as it is.

Ansible writes state of its own when loaded (its local temporary folder, by default
~/.ansible/tmp, made at import): it is pointed at a private temporary folder, removed after the
read, so reading an inventory writes nothing under $HOME and works with a HOME that is missing,
a file or read-only. Ansible's settings are in this process's environment only during the read:
the ssh and ssdlab processes started later see the user's environment as it was.
"""

import os
import shlex
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ssdlab.errors import FleetError
from ssdlab.model.fleet import DEFAULT_COMMAND, FleetHost

INSTALL_HINT = "install it with: pip install 'ssdlab[fleet]' (or pip install ansible-core)"


def read_inventory(path: Path, limit: str | None = None) -> tuple[FleetHost, ...]:
    """The hosts of the inventory at `path` (those matching the Ansible host pattern `limit`
    when given), in inventory order."""
    if not path.exists():
        raise FleetError(f"no inventory at {path}; give the path of an Ansible inventory file")
    with _ansible_settings():
        manager, variables = _load(path)
        hosts = manager.get_hosts(pattern=limit or "all")
        if not hosts:
            which = f" matching {limit!r}" if limit else ""
            raise FleetError(f"the inventory {path} lists no host{which}")
        return tuple(_fleet_host(host.name, variables.get_vars(host=host)) for host in hosts)


@contextmanager
def _ansible_settings() -> Iterator[None]:
    """Ansible's settings for one read, set in os.environ (where it reads them, at import and
    as its plugins load) and put back as they were afterwards. Its home and local temporary
    folder are a private folder removed afterwards, whatever the user's settings say: reading
    an inventory needs neither, and Ansible makes the temporary one at import. An inventory
    that does not parse is an error, not a warning and an empty fleet; only the INI and YAML
    readers (unless the user's environment chooses otherwise)."""
    with tempfile.TemporaryDirectory(prefix="ssdlab-ansible-", ignore_cleanup_errors=True) as own:
        settings = {
            "ANSIBLE_HOME": own,
            "ANSIBLE_LOCAL_TEMP": os.path.join(own, "tmp"),
            "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": _given(
                "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED", "1"
            ),
            "ANSIBLE_INVENTORY_ENABLED": _given("ANSIBLE_INVENTORY_ENABLED", "ini,yaml"),
        }
        before = {name: os.environ.get(name) for name in settings}
        os.environ.update(settings)
        try:
            yield
        finally:
            _restore(before)


def _given(name: str, default: str) -> str:
    return os.environ.get(name) or default


def _restore(before: Mapping[str, str | None]) -> None:
    """os.environ as it was: each name set to its value again, or removed if it had none."""
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def _load(path: Path) -> tuple[Any, Any]:
    try:
        from ansible.errors import AnsibleError
    except ImportError as error:
        raise FleetError(
            f"reading an Ansible inventory needs ansible-core; {INSTALL_HINT}"
        ) from error
    try:  # Ansible reads its settings (ANSIBLE_CONFIG, ansible.cfg) as its modules load
        from ansible.inventory.manager import InventoryManager
        from ansible.parsing.dataloader import DataLoader
        from ansible.vars.manager import VariableManager
    except ImportError as error:
        raise FleetError(
            f"reading an Ansible inventory needs ansible-core; {INSTALL_HINT}"
        ) from error
    except AnsibleError as error:
        raise FleetError(
            f"Ansible cannot start, so the inventory {path} is not read: "
            f"{_one_line(error.message)}; correct Ansible's settings (ANSIBLE_CONFIG, "
            "./ansible.cfg, ~/.ansible.cfg, ANSIBLE_* variables)"
        ) from error
    loader = DataLoader()
    try:
        manager = InventoryManager(loader=loader, sources=[str(path)])
    except AnsibleError as error:
        raise FleetError(
            f"cannot read the inventory {path}: {error.message} (Ansible's reason is printed "
            "above); it must be an Ansible inventory in INI or YAML"
        ) from error
    return manager, VariableManager(loader=loader, inventory=manager)


def _one_line(text: str) -> str:
    """Ansible's message on one line (a config file's error quotes the lines it failed on)."""
    return " ".join(text.split())


def _fleet_host(name: str, found: Mapping[str, Any]) -> FleetHost:
    values = {key: value for key, value in found.items() if key.startswith(("ansible_", "ssdlab_"))}
    for key, value in values.items():
        if "{{" in str(value):
            raise FleetError(
                f"host {name}: {key} is a Jinja template ({value}); ssdlab does not render "
                "templates: give the value itself"
            )
    command = _words(name, values, "ssdlab_command") or DEFAULT_COMMAND
    return FleetHost(
        name=name,
        address=_text(name, values, "ansible_host") or name,
        port=_port(name, values.get("ansible_port")),
        user=_text(name, values, "ansible_user"),
        key_file=_text(name, values, "ansible_ssh_private_key_file"),
        ssh_args=_words(name, values, "ansible_ssh_common_args")
        + _words(name, values, "ansible_ssh_extra_args"),
        groups=tuple(str(group) for group in found.get("group_names", ())),
        targets=_paths(name, values, "ssdlab_targets"),
        destroy_data=_paths(name, values, "ssdlab_destroy_data"),
        db=_text(name, values, "ssdlab_db"),
        command=command,
        venv=_text(name, values, "ssdlab_venv"),
        python=_text(name, values, "ssdlab_python"),
    )


def _text(host: str, values: Mapping[str, Any], key: str) -> str | None:
    value = values.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, Mapping | list | tuple | bool):
        raise FleetError(f"host {host}: {key} must be a single value, not {value!r}")
    return str(value)


def _words(host: str, values: Mapping[str, Any], key: str) -> tuple[str, ...]:
    text = _text(host, values, key)
    if text is None:
        return ()
    try:
        return tuple(shlex.split(text))
    except ValueError as error:
        raise FleetError(f"host {host}: {key} has unbalanced quotes ({text})") from error


def _port(host: str, value: object) -> int | None:
    if value is None or value == "":
        return None
    try:
        port = int(str(value))
    except ValueError:
        port = 0
    if not 0 < port < 65536:
        raise FleetError(f"host {host}: ansible_port must be a port number, not {value!r}")
    return port


def _paths(host: str, values: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """A list of paths: a YAML/JSON list, or one string of paths separated by commas."""
    value = values.get(key)
    if value is None or value == "":
        return ()
    if isinstance(value, bool) or str(value).lower() in {"true", "false", "yes", "no"}:
        raise FleetError(
            f"host {host}: {key} must name the targets (e.g. {key}=/dev/sdb), not {value}: "
            "a device is written only when it is named twice"
        )
    items: Sequence[object] = value if isinstance(value, list | tuple) else str(value).split(",")
    paths = tuple(str(item).strip() for item in items if str(item).strip())
    for path in paths:
        if not path.startswith("/"):
            raise FleetError(f"host {host}: {key} holds {path!r}; give absolute paths")
    return paths
