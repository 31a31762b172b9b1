"""Strings and numbers that come from files, shown and used safely."""
