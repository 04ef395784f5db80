"""What other apps may ask of the LTI app: a learner's data for the export and its erasure."""

from __future__ import annotations

from typing import Any

from lti_tool.models import LtiUser

from lms.privacy import export_rows
from lti.models import LaunchTicket


def learner_export(user_id: int) -> dict[str, Any]:
    """The learner's platform identities (who a platform said they are) and their launch
    tickets (never a ticket's token). Two queries."""
    return {
        "identities": export_rows(
            LtiUser.objects.filter(auth_user_id=user_id), context=("registration__issuer",)
        ),
        "launch_tickets": export_rows(
            LaunchTicket.objects.filter(user_id=user_id), exclude=("token",)
        ),
    }


def learner_erase(user_id: int) -> int:
    """Delete what platforms told about the learner (their identities, and with them the
    grade sends); the account's own deletion removes the rest. How many identities went."""
    deleted, _by_model = LtiUser.objects.filter(auth_user_id=user_id).delete()
    return deleted
