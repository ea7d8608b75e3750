"""Built-in profiles, shipped as TOML data with the package."""
