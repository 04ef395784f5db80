"""Helpers shared by test modules (one place, so no module writes its own)."""
