"""Benchmarks of remember; `python -m bench` runs them and prints tables (never part of the tests)."""
