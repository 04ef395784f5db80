"""The endpoints the benchmark loads, each with its floor (see bench/README.md).

A scenario is added only when its route exists in this checkout; the others are listed as not
measured, so the harness runs at every stage of the project.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class LoadSettings:
    rounds: int
    seconds: float
    connections: int
    threads: int
    warmup_seconds: float
    # gunicorn workers; 0: as production runs it (lms/gunicorn_conf.py: one per core).
    workers: int = 0


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None


@dataclass
class Scenario:
    """One line of the table: what wrk sends and what it must get back."""

    key: str
    label: str
    expect: int
    # The requests wrk cycles through in a round (round -1 is the warm-up); a scenario that
    # consumes rows (a submitted attempt) gets fresh ones each round.
    requests: Callable[[int], list[Request]]
    # One more request like them, sent through the test client to count queries.
    probe: Callable[[], Request]
    floor: str | None = None  # key of the floor this is compared with
    # Each request uses up a row (an attempt to submit, a client review id): running out and
    # starting over would measure replays, so a wrap makes the line unusable.
    consumes: bool = False
    # Called with the round index right before each run of the line (outside the timing).
    prepare: Callable[[int], None] | None = None


def token_header(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}"}


def session_header(session_key: str) -> dict[str, str]:
    """A signed-in browser: the session cookie (``sessionid``) the log-in page set."""
    from django.conf import settings

    return {"Cookie": f"{settings.SESSION_COOKIE_NAME}={session_key}"}


# Learners whose fresh exam attempts the exam page shows (never submitted by the submit line).
EXAM_PAGE_LEARNERS = 20


def _round_slices(load: LoadSettings) -> list[int]:
    """The rounds that consume rows: the warm-up (-1) if there is one, then 0 .. rounds-1."""
    return ([-1] if load.warmup_seconds else []) + list(range(load.rounds))


def build(
    manifest,
    *,
    routed: Callable[[str], bool],
    load: LoadSettings,
    only: set[str] | None = None,
):
    """(scenarios, names of the endpoints not routed yet); ``only`` limits the lines built."""
    scenarios: list[Scenario] = []
    missing: list[str] = []
    module = manifest.module
    numbers = manifest.step_numbers
    tokens = [token for _, token in manifest.learner_tokens]
    _heavy_id, heavy_token = manifest.heavy_learner

    # --- content -------------------------------------------------------------------------
    def step_path(number: int) -> str:
        return f"/api/v1/modules/{module}/steps/{number}/"

    if routed(step_path(numbers[0])):
        from django.test import Client

        client = Client(HTTP_HOST="127.0.0.1")
        etags = {n: client.get(step_path(n)).headers["ETag"] for n in numbers}
        scenarios += [
            Scenario(
                key="step",
                label=f"step detail, anonymous (all {len(numbers)} steps in turn)",
                expect=200,
                requests=lambda _round: [Request("GET", step_path(n)) for n in numbers],
                probe=lambda: Request("GET", step_path(numbers[len(numbers) // 2])),
                floor="floor",
            ),
            Scenario(
                key="step_304",
                label="step detail with matching If-None-Match (304)",
                expect=304,
                requests=lambda _round: [
                    Request("GET", step_path(n), {"If-None-Match": etags[n]}) for n in numbers
                ],
                probe=lambda: Request(
                    "GET", step_path(numbers[0]), {"If-None-Match": etags[numbers[0]]}
                ),
                floor="floor",
            ),
        ]
    else:
        missing.append("step detail (GET /api/v1/modules/{m}/steps/{n}/)")

    bundle_path = f"/api/v1/modules/{module}/bundle/"
    if routed(bundle_path):
        # As an app asks for it: brotli-compressed (the body is kept rendered, the compression
        # is paid per request).
        brotli_header = {"Accept-Encoding": "br"}
        scenarios.append(
            Scenario(
                key="bundle",
                label=f"module bundle, brotli ({len(numbers)} steps in one request)",
                expect=200,
                requests=lambda _round: [Request("GET", bundle_path, brotli_header)],
                probe=lambda: Request("GET", bundle_path, brotli_header),
                floor="floor",
            )
        )
    else:
        missing.append("module bundle (GET /api/v1/modules/{m}/bundle/)")

    # --- progress ------------------------------------------------------------------------
    progress_path = f"/api/v1/modules/{module}/progress/"
    if routed(progress_path):
        scenarios.append(
            Scenario(
                key="progress",
                label=f"module progress of a learner ({len(tokens)} learners in turn)",
                expect=200,
                requests=lambda _round: [
                    Request("GET", progress_path, token_header(t)) for t in tokens
                ],
                probe=lambda: Request("GET", progress_path, token_header(tokens[0])),
                floor="floor_auth",
            )
        )
    else:
        missing.append("module progress (GET /api/v1/modules/{m}/progress/)")

    # --- reviews -------------------------------------------------------------------------
    if routed("/api/v1/reviews/due/"):
        scenarios.append(
            Scenario(
                key="due",
                label="due queue of the learner with 10,000 cards",
                expect=200,
                requests=lambda _round: [
                    Request("GET", "/api/v1/reviews/due/", token_header(heavy_token))
                ],
                probe=lambda: Request("GET", "/api/v1/reviews/due/", token_header(heavy_token)),
                floor="floor_auth",
            )
        )
    else:
        missing.append("due queue (GET /api/v1/reviews/due/)")

    if routed("/api/v1/reviews/"):
        scenarios.append(_review_scenario(manifest))
    else:
        missing.append("submit a review (POST /api/v1/reviews/)")

    # --- web pages (session log-in, HTML) ---------------------------------------------------
    scenarios += _web_scenarios(manifest, routed=routed, missing=missing, only=only)

    # --- exam ----------------------------------------------------------------------------
    if not routed("/api/v1/exam-attempts/1/submit/") or not manifest.extra.get("exam_tokens"):
        missing.append("exam submit (POST /api/v1/exam-attempts/{id}/submit/)")
    elif only is None or "exam_submit" in only:
        # Writing the fresh attempts takes a few seconds: only when the line runs.
        scenarios.append(_exam_submit_scenario(manifest, load))
    if only is not None:
        scenarios = [s for s in scenarios if s.key in only]
    return scenarios, missing


def _web_scenarios(manifest, *, routed, missing: list[str], only) -> list[Scenario]:
    """The learner's pages, each beside the HTML floor, for the rotating learners' sessions."""
    module = manifest.module
    numbers = manifest.step_numbers
    sessions = [manifest.extra["sessions"][str(i)] for i, _token in manifest.learner_tokens]
    pages = [
        ("web_step", f"/modules/{module}/steps/{{n}}/", f"step page ({len(numbers)} steps)"),
        ("web_module", f"/modules/{module}/", "module page"),
        ("web_dashboard", "/", "dashboard"),
        ("web_review", "/review/", "review page (next due card)"),
        ("web_stats", "/stats/", "statistics page"),
    ]
    scenarios = []
    for key, pattern, what in pages:
        if not routed(pattern.format(n=numbers[0])):
            missing.append(f"{what} (GET {pattern})")
            continue

        def requests(_round, pattern=pattern):
            # Learner i reads step i mod 32: every learner and every step in turn.
            return [
                Request("GET", pattern.format(n=numbers[i % len(numbers)]), session_header(k))
                for i, k in enumerate(sessions)
            ]

        scenarios.append(
            Scenario(
                key=key,
                label=f"web: {what}, signed in ({len(sessions)} learners in turn)",
                expect=200,
                requests=requests,
                probe=lambda pattern=pattern: Request(
                    "GET", pattern.format(n=numbers[len(numbers) // 2]), session_header(sessions[0])
                ),
                floor="floor_html",
            )
        )
    if only is not None and "web_exam" not in only:
        return scenarios
    if not routed("/exam/attempts/1/") or not manifest.extra.get("exam_tokens"):
        missing.append("exam attempt page (GET /exam/attempts/{id}/)")
        return scenarios
    from bench.build_data import exam_pool_reset, sessions_create

    attempts = exam_pool_reset(manifest, count=EXAM_PAGE_LEARNERS, from_end=True)
    exam_sessions = sessions_create([learner for learner, _a, _t in attempts])
    exam_requests = [
        Request("GET", f"/exam/attempts/{attempt}/", session_header(exam_sessions[learner]))
        for learner, attempt, _token in attempts
    ]
    scenarios.append(
        Scenario(
            key="web_exam",
            label=f"web: exam attempt page, 10 items answered ({len(attempts)} learners in turn)",
            expect=200,
            requests=lambda _round: exam_requests,
            probe=lambda: exam_requests[0],
            floor="floor_html",
        )
    )
    return scenarios


def _review_scenario(manifest) -> Scenario:
    """Each request reviews another card of another learner, with a new client review id."""
    from reviews.models import ReviewCard

    learners = [(learner, token) for learner, token in manifest.learner_tokens]
    cards_by_learner: dict[int, list[int]] = {learner: [] for learner, _ in learners}
    for learner, card in (
        ReviewCard.objects.filter(learner_id__in=list(cards_by_learner))
        .order_by("learner_id", "id")
        .values_list("learner_id", "id")
    ):
        cards_by_learner[learner].append(card)
    # Learner-major interleaving: consecutive requests never lock the same learner's rows.
    pairs = [
        (token, card)
        for column in itertools.zip_longest(
            *[[(token, c) for c in cards_by_learner[learner]] for learner, token in learners]
        )
        for token, card in (p for p in column if p is not None)
    ]
    # Unique across runs on a reused database: a repeated id would be a replay, not a review.
    run_tag = f"b{int(time.time())}"
    probes = itertools.count()

    def body(card: int, tag: str) -> str:
        return json.dumps({"card": card, "rating": 3, "duration_ms": 4200, "client_review_id": tag})

    def requests(round_index: int) -> list[Request]:
        return [
            Request(
                "POST",
                "/api/v1/reviews/",
                token_header(token),
                body(card, f"{run_tag}-{round_index + 1}-{i}"),
            )
            for i, (token, card) in enumerate(pairs)
        ]

    def probe() -> Request:
        token, card = pairs[-1 - next(probes)]
        return Request(
            "POST", "/api/v1/reviews/", token_header(token), body(card, f"{run_tag}-p-{card}")
        )

    return Scenario(
        key="review",
        label=f"submit a review (rating Good; {len(pairs):,} cards of "
        f"{len(learners)} learners in turn)",
        expect=200,
        requests=requests,
        probe=probe,
        floor="floor_auth",
        consumes=True,
    )


def _exam_submit_scenario(manifest, load: LoadSettings) -> Scenario:
    """Each request submits another learner's fresh attempt (10 items, all answered)."""
    from bench.build_data import exam_pool_reset, tokens_renew

    slices = _round_slices(load)
    # The last EXAM_PAGE_LEARNERS keep their attempts open for the exam page.
    per_round = (len(manifest.extra["exam_tokens"]) - 2 - EXAM_PAGE_LEARNERS) // len(slices)
    pool = exam_pool_reset(manifest, count=per_round * len(slices) + 2)
    probes = iter(pool[-2:])

    def submit(entry: tuple[int, int, str]) -> Request:
        _learner, attempt, token = entry
        return Request("POST", f"/api/v1/exam-attempts/{attempt}/submit/", token_header(token))

    def round_slice(round_index: int) -> list[tuple[int, int, str]]:
        start = slices.index(round_index) * per_round
        return pool[start : start + per_round]

    def requests(round_index: int) -> list[Request]:
        return [submit(entry) for entry in round_slice(round_index)]

    def prepare(round_index: int) -> None:
        # knox renews a token's expiry (an UPDATE) when it was last renewed over a minute ago.
        # A learner who submits has been using the token for the whole attempt, so renew this
        # round's tokens now; otherwise every submit here would pay a renewal no real one pays.
        tokens_renew([learner for learner, _attempt, _token in round_slice(round_index)])

    return Scenario(
        key="exam_submit",
        label=f"exam submit, fresh attempts ({per_round:,} per round, 10 answered items each)",
        expect=200,
        requests=requests,
        probe=lambda: submit(next(probes)),
        floor="floor_auth",
        consumes=True,
        prepare=prepare,
    )
