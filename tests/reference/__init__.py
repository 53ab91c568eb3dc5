"""Brute-force references the fast code is tested against."""
