"""The exceptions ssdlab raises; the CLI turns each into a one-paragraph message and exit code."""


class SsdlabError(Exception):
    """Base of every error ssdlab reports to its user (never shown with a traceback)."""

    exit_code = 1


class UsageError(SsdlabError):
    """A bad option value or argument combination (exit 2, like argparse)."""

    exit_code = 2


class TargetError(SsdlabError):
    """The target cannot be used: too small, full, read-only, bad path characters, no O_DIRECT."""


class SafetyRefusal(SsdlabError):
    """A write to a block device was refused before anything was opened for writing."""

    exit_code = 3


class ToolError(SsdlabError):
    """An external tool (fio, smartctl, nvme) is missing, too old or failed."""


class ParseError(SsdlabError):
    """A tool's output could not be understood."""


class StoreError(SsdlabError):
    """The run store cannot be opened or written."""


class SchemaTooNew(StoreError):
    """The database was written by a newer ssdlab."""


class Interrupted(SsdlabError):
    """The run was stopped by a signal; what finished is kept."""

    exit_code = 130


class SafetyStop(SsdlabError):
    """A long run stopped itself on a safety limit (temperature, media errors, end of life)."""

    exit_code = 5


class FleetError(SsdlabError):
    """An inventory that cannot be read, or a fleet that cannot start (unreachable hosts,
    versions that would change the results)."""
