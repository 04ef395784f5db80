"""What other apps may ask of the accounts app. They never import accounts.models directly.

accounts sits below every app that has learners (reviews, progress, quizzes): it imports none of
them. What they need of a learner (the name to print, the preferences a reminder follows) comes
from here as frozen data (``accounts.data``).
"""

from __future__ import annotations

from collections.abc import Iterable

from accounts.models import User


def display_name(user: User) -> str:
    """The name Lernpfad shows or prints for a learner (``User.public_name``). No query."""
    return user.public_name


def display_names(learner_ids: Iterable[int]) -> dict[int, str]:
    """``display_name`` of each learner by id (one query; unknown ids are left out)."""
    users = User.objects.filter(pk__in=list(learner_ids)).only(
        "display_name", "first_name", "last_name", "username"
    )
    return {user.pk: display_name(user) for user in users}
