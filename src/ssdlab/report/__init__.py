"""Pure documents built from stored runs, and renderers that turn them into text."""
