"""The command line: arguments, progress display, printing, and errors turned into exit codes."""
