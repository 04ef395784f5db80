"""One budget per client and per learner across both web hosts (docs/operations/scaling.md):
requests alternate between web-a and web-b, and the limit is reached after as many requests as
on one.

The rates are the small ones of tests/cluster/conftest.py (THROTTLES). Requests go straight to
each host with the headers the proxy writes (tests/cluster/hosts.py ``Cluster.direct``), so the
test decides which host answers.
"""

from __future__ import annotations

import itertools
import json

from tests.cluster.clients import learner_make, token_login
from tests.cluster.conftest import THROTTLES

HOSTS = ("web-a", "web-b")
MODULE = "self-hosting-27"


def _limit(name: str) -> int:
    return int(THROTTLES[name].split("/")[0])


def _refused_at(send, *, limit: int) -> tuple[int, list[int]]:
    """Send alternately to A and B until a 429; returns its number and every status seen."""
    statuses = []
    for number, host in zip(range(1, limit + 4), itertools.cycle(HOSTS), strict=False):
        status = send(host).status
        statuses.append(status)
        if status == 429:
            return number, statuses
    return 0, statuses


def _json(data: dict) -> bytes:
    return json.dumps(data).encode()


def test_the_registration_rate_per_address_counts_once_across_both_hosts(cluster):
    limit = _limit("THROTTLE_LOGIN")
    client = "198.51.100.21"  # the address the proxy would append (DJANGO_NUM_PROXIES=1)

    def reset_mail(host):
        return cluster.direct(
            host,
            "/api/v1/auth/password-reset/",
            data=_json({"email": "nobody@example.org"}),
            headers={"Content-Type": "application/json"},
            client=client,
        )

    refused, statuses = _refused_at(reset_mail, limit=limit)
    assert refused == limit + 1, statuses
    assert set(statuses[:limit]) == {202}, statuses
    # Another address still has its own budget, on either host.
    for host in HOSTS:
        other = cluster.direct(
            host,
            "/api/v1/auth/password-reset/",
            data=_json({"email": "nobody@example.org"}),
            headers={"Content-Type": "application/json"},
            client=f"198.51.100.{22 + HOSTS.index(host)}",
        )
        assert other.status == 202, other.status


def test_failed_log_ins_lock_the_account_once_across_both_hosts(cluster):
    limit = _limit("LOGIN_FAILURE_LIMIT_ACCOUNT")
    username = learner_make(cluster)

    def wrong_password(host):
        return cluster.direct(
            host,
            "/api/v1/auth/token/",
            data=_json({"login": username, "password": "wrong-password-123"}),
            headers={"Content-Type": "application/json"},
            client="198.51.100.31",
        )

    # axes answers the failure that reaches the limit with the lock-out already, on one host
    # as on two: here that last failure goes to the other host than the first.
    hosts = list(itertools.islice(itertools.cycle(HOSTS), limit))
    assert len(set(hosts)) == 2
    statuses = [wrong_password(host).status for host in hosts]
    assert statuses == [400] * (limit - 1) + [429], statuses
    for host in HOSTS:
        locked = wrong_password(host)
        assert locked.status == 429, locked.status
        assert locked.json()["error"]["code"] == "login_locked"


def test_the_exam_budget_counts_once_across_both_hosts(cluster):
    limit = _limit("THROTTLE_EXAM")
    username = learner_make(cluster, enrolled=True)
    token = token_login(cluster, "web-a", username)

    def start_attempt(host):
        # Not eligible yet (no step completed): refused with a 4xx until the budget is spent.
        return cluster.direct(
            host,
            f"/api/v1/modules/{MODULE}/exam/attempts/",
            data=b"{}",
            headers={"Content-Type": "application/json", "Authorization": f"Token {token}"},
        )

    refused, statuses = _refused_at(start_attempt, limit=limit)
    assert refused == limit + 1, statuses
    assert all(400 <= status < 500 and status != 429 for status in statuses[:limit]), statuses


def test_the_review_budget_counts_once_across_both_hosts(cluster):
    limit = _limit("THROTTLE_REVIEW")
    username = learner_make(cluster, enrolled=True)
    token = token_login(cluster, "web-b", username)

    def review(host):
        # A card that is not the learner's: a 4xx, but counted like every review request.
        return cluster.direct(
            host,
            "/api/v1/reviews/",
            data=_json({"card": 2_000_000_000, "rating": 3, "duration_ms": 1000}),
            headers={"Content-Type": "application/json", "Authorization": f"Token {token}"},
        )

    refused, statuses = _refused_at(review, limit=limit)
    assert refused == limit + 1, statuses
    assert 429 not in statuses[:limit], statuses
