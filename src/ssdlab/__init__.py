"""ssdlab: an SSD test bench for Linux built on fio, smartctl and SQLite."""

__version__ = "0.1.0"
