"""Learners for the cluster's load (``python -m tests.cluster.seed COUNT OUT.json``, run on an
application host with production settings).

Each learner is enrolled in the seed module, has the definition cards of its first steps (as
completing them would leave) and a browser session and a knox token of its own; OUT.json has the
shape bench/locustfile.py reads (BENCH_SESSIONS_FILE). Passwords are unusable: hashing a few
hundred production passwords would take longer than the load test.
"""

from __future__ import annotations

import datetime
import json
import os
import sys

import django


def main(count: int, out: str) -> None:
    django.setup()
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils import timezone
    from knox.models import AuthToken

    from courses.models import Module
    from progress.services.enrollment import enrollment_create
    from reviews import api as reviews_api
    from reviews.models import ReviewCard

    module = Module.objects.get(slug="self-hosting-27")
    steps = list(module.steps.order_by("number")[:3])
    numbers = list(module.steps.order_by("number").values_list("number", flat=True))
    tag = os.urandom(3).hex()
    User = get_user_model()
    users = User.objects.bulk_create(
        [
            User(
                username=f"load{tag}{i}",
                email=f"load{tag}{i}@example.org",
                password="!",  # unusable
            )
            for i in range(count)
        ]
    )
    at = timezone.now() - datetime.timedelta(days=3)
    learners = []
    for user in users:
        enrollment_create(learner_id=user.pk, module_slug=module.slug)
        for step in steps:
            reviews_api.cards_for_step_ensure(learner_id=user.pk, step_id=step.pk, at=at)
        _, token = AuthToken.objects.create(user)
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        cards = list(ReviewCard.objects.filter(learner_id=user.pk).values_list("id", flat=True))
        learners.append(
            {"id": user.pk, "token": token, "session": store.session_key, "cards": cards}
        )
    with open(out, "w", encoding="utf-8") as file:
        json.dump(
            {
                "module": module.slug,
                "step_numbers": numbers,
                "session_cookie": settings.SESSION_COOKIE_NAME,
                "run_tag": f"cluster{tag}",
                "learners": learners,
            },
            file,
        )


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
