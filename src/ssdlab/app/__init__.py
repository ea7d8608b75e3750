"""The application floor: use cases between the registry/runner and the command line."""
