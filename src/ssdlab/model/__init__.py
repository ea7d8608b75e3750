"""Frozen value types passed between ssdlab's layers. Standard library only."""
