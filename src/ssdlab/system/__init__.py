"""The only package that runs processes or reads sysfs, procfs and device nodes."""
