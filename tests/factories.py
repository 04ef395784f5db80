"""The one set of builders for test data: learners, enrollments, API clients.

Fixtures in the conftests are thin wrappers around these, so every test makes a learner the same
way (and the password a test logs in with is always ``learner_password(username)``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from rest_framework.test import APIClient


def learner_password(username: str) -> str:
    """The password ``learner_create`` gives a user (long and uncommon enough for the
    validators)."""
    return f"{username}-Lernpfad-Passwort-2026"


def learner_create(username: str = "lena", **fields: Any):
    """A learner row as ``create_user`` makes it (address ``<username>@example.org``); any
    field of the user may be given (``time_zone="Asia/Tokyo"``, ``is_staff=True`` …)."""
    fields.setdefault("email", f"{username}@example.org")
    fields.setdefault("password", learner_password(username))
    return get_user_model().objects.create_user(username=username, **fields)


def learner_register(username: str = "lena", **fields: Any):
    """A learner signed up through the accounts service, as the sign-up page and the API do
    (preferences validated, next reminder instant stored)."""
    from accounts.services import user_register

    fields.setdefault("email", f"{username}@example.org")
    fields.setdefault("password", learner_password(username))
    return user_register(username=username, **fields)


def enrollment_create(learner, module, *, at=None):
    """Enroll ``learner`` in ``module`` (a Module row) the way the service does: with a "not
    started" progress row per active step."""
    from progress.services.enrollment import enrollment_create as enroll

    enrollment, _ = enroll(learner_id=learner.pk, module_slug=module.slug)
    if at is not None:
        type(enrollment).objects.filter(pk=enrollment.pk).update(enrolled_at=at)
        enrollment.refresh_from_db()
    return enrollment


def api_client_for(user) -> APIClient:
    """An API client authenticated as ``user`` without a token (no auth queries, so query
    counts are the view's own)."""
    client = APIClient()
    client.force_authenticate(user)
    return client


# --- exam items of the typed kinds (quizzes/answers.py) ---

TYPED_KINDS = ("short_answer", "numerical", "matching")


def exam_typed_answer(row, *, right: bool) -> dict:
    """A right or wrong answer to a short-answer, numerical or matching attempt item, as a
    learner would type it: the accepted answer in capitals, a number with a decimal comma just
    inside the tolerance, the pairs (wrong: the first two options swapped)."""
    from decimal import Decimal

    key = row.answer_key
    if row.kind == "short_answer":
        text = key["accepted"][0].upper() if right else "ganz sicher falsch"
        return {"item": row.pk, "text": text}
    if row.kind == "numerical":
        first = key["answers"][0]
        high = (
            Decimal(str(first["max"]))
            if "max" in first
            else Decimal(str(first["value"])) + Decimal(str(first["tolerance"]))
        )
        number = high if right else high + 1
        return {"item": row.pk, "number": str(number).replace(".", ",")}
    pairs = dict(key["pairs"])
    if not right:
        first, second = list(pairs)[:2]
        if pairs[first] == pairs[second]:
            pairs[first] = next(c["key"] for c in row.choices if c["key"] != pairs[first])
        else:
            pairs[first], pairs[second] = pairs[second], pairs[first]
    return {
        "item": row.pk,
        "pairs": [{"option": option, "choice": choice} for option, choice in pairs.items()],
    }


def exam_typed_items_create(module, *, count: int = 1, **extra):
    """``count`` each of a short-answer, a numerical and a matching item in the module's bank."""
    from quizzes.models import ExamItem

    items = []
    for index in range(count):
        items += [
            ExamItem(
                module=module,
                kind="short_answer",
                prompt=f"Welches Werkzeug baut CUDA-Programme? ({index})",
                answer_key={"accepted": ["nvcc", "NVIDIA CUDA Compiler"]},
                explanation="nvcc übersetzt CUDA-C++.",
                **extra,
            ),
            ExamItem(
                module=module,
                kind="numerical",
                prompt=(
                    f"Wie viel VRAM (GB) belegen die Gewichte eines 7-Milliarden-Parameter-"
                    f"Modells in FP16? ({index})"
                ),
                answer_key={"answers": [{"value": "14", "tolerance": "0.5"}]},
                explanation="7 Mrd. x 2 Byte = 14 GB.",
                **extra,
            ),
            ExamItem(
                module=module,
                kind="matching",
                prompt=f"Ordne jedem Format seine Bytes pro Parameter zu. ({index})",
                answer_key={
                    "pairs": [
                        {"left": "FP32", "right": "4 Byte"},
                        {"left": "FP16", "right": "2 Byte"},
                        {"left": "BF16", "right": "2 Byte"},
                        {"left": "INT8", "right": "1 Byte"},
                        {"left": "", "right": "8 Byte"},
                    ]
                },
                **extra,
            ),
        ]
    for item in items:
        item.full_clean()
    return ExamItem.objects.bulk_create(items)
