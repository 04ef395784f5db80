"""Sessions and tokens live in PostgreSQL (docs/operations/scaling.md): made on one web host, they
work on the other; a log-out or a revoked token on one is refused on the other within a second."""

from __future__ import annotations

import re

from tests.cluster.clients import (
    browser_login,
    cookie_from,
    learner_make,
    token_login,
    wait_for,
)

REFUSED_WITHIN = 1.0  # seconds


def _session(cookie: str) -> dict[str, str]:
    return {"Cookie": f"sessionid={cookie}"}


def _token(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}"}


def test_a_browser_session_made_on_a_works_on_b_and_its_log_out_on_a_is_refused_on_b(cluster):
    username = learner_make(cluster, enrolled=True)
    cookie = browser_login(cluster, "web-a", username)
    settings_b = cluster.direct("web-b", "/settings/", headers=_session(cookie))
    assert settings_b.status == 200, settings_b.status
    assert username in settings_b.text
    step_b = cluster.direct("web-b", "/modules/self-hosting-27/steps/1/", headers=_session(cookie))
    assert step_b.status == 200

    # Log out on A as the page does (POST with the form's CSRF token, cookie and origin).
    page = cluster.direct("web-a", "/settings/", headers=_session(cookie))
    csrf_token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)[1]
    logout = cluster.direct(
        "web-a",
        "/logout/",
        data=f"csrfmiddlewaretoken={csrf_token}".encode(),
        headers={
            "Cookie": f"sessionid={cookie}; csrftoken={cookie_from(page, 'csrftoken')}",
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": cluster.base,
            "Referer": cluster.base + "/settings/",
        },
    )
    assert logout.status == 302, (logout.status, logout.text[:300])
    seconds = wait_for(
        lambda: cluster.direct("web-b", "/settings/", headers=_session(cookie)).status == 302,
        timeout=REFUSED_WITHIN,
    )
    assert seconds < REFUSED_WITHIN
    refused = cluster.direct("web-b", "/settings/", headers=_session(cookie))
    assert refused.status == 302 and refused.headers["Location"].startswith("/login/")


def test_a_token_made_on_a_works_on_b_and_its_log_out_on_a_is_refused_on_b(cluster):
    username = learner_make(cluster, enrolled=True)
    token = token_login(cluster, "web-a", username)
    assert cluster.direct("web-b", "/api/v1/reviews/due/", headers=_token(token)).status == 200
    logout = cluster.direct("web-a", "/api/v1/auth/logout/", data=b"", headers=_token(token))
    assert logout.status == 204, (logout.status, logout.text[:300])
    wait_for(
        lambda: (
            cluster.direct("web-b", "/api/v1/reviews/due/", headers=_token(token)).status == 401
        ),
        timeout=REFUSED_WITHIN,
    )


def test_a_token_revoked_from_another_device_on_a_is_refused_on_b(cluster):
    username = learner_make(cluster)
    phone = token_login(cluster, "web-a", username)
    tablet = token_login(cluster, "web-b", username)
    devices = cluster.direct("web-a", "/api/v1/auth/tokens/", headers=_token(tablet)).json()
    rows = devices["results"] if isinstance(devices, dict) else devices
    assert len(rows) == 2
    # The tablet revokes the phone's token on A; the phone is refused on B.
    current = [row for row in rows if row.get("current")]
    assert len(current) == 1
    (phone_row,) = [row for row in rows if not row["current"]]
    assert cluster.direct("web-b", "/api/v1/reviews/due/", headers=_token(phone)).status == 200
    revoked = cluster.direct(
        "web-a", f"/api/v1/auth/tokens/{phone_row['id']}/", method="DELETE", headers=_token(tablet)
    )
    assert revoked.status == 204, (revoked.status, revoked.text[:300])
    wait_for(
        lambda: (
            cluster.direct("web-b", "/api/v1/reviews/due/", headers=_token(phone)).status == 401
        ),
        timeout=REFUSED_WITHIN,
    )
    assert cluster.direct("web-b", "/api/v1/reviews/due/", headers=_token(tablet)).status == 200
