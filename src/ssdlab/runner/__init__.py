"""Executes plans: ordering, pauses, signals, persistence after every unit of work."""
