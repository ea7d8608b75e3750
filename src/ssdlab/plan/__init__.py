"""Pure planning: profiles and targets in, deterministic fio job files out."""
