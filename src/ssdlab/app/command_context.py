"""The context of the hints a command prints (model/next_command.py writes them): the store
the command used, named when it is not the default store, so a hint copied runs on it."""

from pathlib import Path

from ssdlab.model.next_command import CommandContext
from ssdlab.store.db import default_db_path


def command_context(database: Path | None) -> CommandContext:
    """`database` the store the command used (None: the default one)."""
    if database is None or database == default_db_path():
        return CommandContext()
    return CommandContext(db=database)
