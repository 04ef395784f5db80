"""Learners in a study session, for locust (run by ``bench.sessions``; not imported by Django).

Each simulated learner is one locust user with a learner of its own: its own browser session
cookie and its own knox token (``BENCH_SESSIONS_FILE``, written by bench.sessions). A minute of
study is bench/README.md's model: two step pages read in the browser, one progress event, one
read of the module progress, one due-queue read and three reviews, with think time between them (the
minute's eight requests spread over ``60 × BENCH_THINK_SCALE`` seconds), and one minute in ten
the exam's page as well.
"""

from __future__ import annotations

import itertools
import json
import os
import random

from locust import FastHttpUser, task

DATA = json.loads(open(os.environ["BENCH_SESSIONS_FILE"]).read())  # noqa: SIM115
THINK_SCALE = float(os.environ.get("BENCH_THINK_SCALE", "1"))
MODULE = DATA["module"]
NUMBERS = DATA["step_numbers"]
_learners = itertools.cycle(DATA["learners"])
_review_ids = itertools.count()
# Unique per locust process (each stage is one): a repeated client review id is a replay (409).
RUN_TAG = f"{DATA['run_tag']}-{os.urandom(4).hex()}"


class Learner(FastHttpUser):
    """One learner studying: the requests of a minute, each after a think time."""

    # Think time is slept inside the task (one minute of study per task run).
    def wait_time(self) -> float:
        return 0

    def on_start(self) -> None:
        learner = next(_learners)
        self.cookie = {"Cookie": f"{DATA['session_cookie']}={learner['session']}"}
        self.token = {"Authorization": f"Token {learner['token']}"}
        self.cards = learner["cards"]
        self.number_index = random.randrange(len(NUMBERS))
        # Learners arrive spread over a think time, not all at once.
        self.think()

    def think(self) -> None:
        # Eight requests a minute: 7.5 s on average between them.
        self._sleep(random.uniform(5.0, 10.0) * THINK_SCALE)

    def _sleep(self, seconds: float) -> None:
        import gevent

        gevent.sleep(seconds)

    def step_read(self) -> int:
        number = NUMBERS[self.number_index % len(NUMBERS)]
        self.number_index += 1
        self.client.get(
            f"/modules/{MODULE}/steps/{number}/", headers=self.cookie, name="web: step page"
        )
        return number

    def review(self) -> None:
        body = {
            "card": random.choice(self.cards),
            "rating": random.choice((2, 3, 3, 3, 4)),
            "duration_ms": 4200,
            "client_review_id": f"{RUN_TAG}-{next(_review_ids)}",
        }
        self.client.post(
            "/api/v1/reviews/", json=body, headers=self.token, name="api: submit a review"
        )

    @task
    def study_minute(self) -> None:
        number = self.step_read()
        self.think()
        self.client.post(
            f"/api/v1/modules/{MODULE}/steps/{number}/progress/",
            json={"event": "opened"},
            headers=self.token,
            name="api: progress event",
        )
        self.think()
        self.step_read()
        self.think()
        self.client.get(
            f"/api/v1/modules/{MODULE}/progress/", headers=self.token, name="api: module progress"
        )
        self.think()
        self.client.get("/api/v1/reviews/due/", headers=self.token, name="api: due queue")
        for _ in range(3):
            self.think()
            self.review()
        if random.random() < 0.1:
            self.think()
            self.client.get(f"/modules/{MODULE}/exam/", headers=self.cookie, name="web: exam page")
        self.think()
