"""The fault tests use the end-to-end fixtures (loop devices, the real ssdlab command)."""

from tests.e2e.conftest import lab

__all__ = ["lab"]
