"""Parsers: tool output and text in, model values out. Pure; units converted here only."""
