"""Frozen views of account data that other apps receive from ``accounts.api``, and the account
settings' ranges other apps follow. Plain Python (no Django)."""

from __future__ import annotations

# The desired retention a learner may choose (the probability of recall FSRS schedules for) and
# its default: the one definition, for the database constraint, the profile checks, the settings
# form and the reviews app.
DESIRED_RETENTION_MIN = 0.80
DESIRED_RETENTION_MAX = 0.97
DEFAULT_DESIRED_RETENTION = 0.90
