"""The only package that touches SQLite."""
