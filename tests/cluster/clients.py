"""Accounts, log-ins and waiting in the cluster (tests/cluster/hosts.py), as clients meet it."""

from __future__ import annotations

import http.cookies
import json
import os
import re
import sys
import time
import urllib.parse

from tests.cluster.hosts import Cluster

# --- accounts in the cluster, made as a learner makes them ------------------------------------

_names = iter(range(10**6))


def learner_make(cluster: Cluster, *, enrolled: bool = False, staff: bool = False) -> str:
    """A confirmed learner (tests.factories.learner_register) in the cluster's database; returns
    the username (its password is tests.factories.learner_password(username))."""
    username = f"c{int(time.time() * 1000) % 10**9}x{next(_names)}"
    code = (
        "from tests.factories import learner_register\n"
        f"user = learner_register({username!r})\n"
        + ("user.is_staff = user.is_superuser = True\nuser.save()\n" if staff else "")
        + (
            "from progress.services.enrollment import enrollment_create\n"
            "enrollment_create(learner_id=user.pk, module_slug='self-hosting-27')\n"
            if enrolled
            else ""
        )
    )
    cluster.python(code)
    return username


def browser_login(cluster: Cluster, host: str, username: str) -> str:
    """Log in through the log-in page of one web host; returns the session cookie's value."""
    from tests.factories import learner_password

    page = cluster.direct(host, "/login/")
    assert page.status == 200, page.status
    csrf = cookie_from(page, "csrftoken")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)[1]
    body = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": token, "username": username, "password": learner_password(username)}
    ).encode()
    answer = cluster.direct(
        host,
        "/login/",
        data=body,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf}",
            "Origin": cluster.base,
            "Referer": cluster.base + "/login/",
        },
    )
    assert answer.status == 302, (answer.status, answer.text[:500])
    return cookie_from(answer, "sessionid")


def cookie_from(answer, name: str) -> str:
    for header in answer.cookies:
        jar = http.cookies.SimpleCookie()
        jar.load(header)
        if name in jar:
            return jar[name].value
    raise AssertionError(f"no {name} cookie in {answer.cookies}")


def token_login(cluster: Cluster, host: str, username: str) -> str:
    """A mobile token (POST /api/v1/auth/token/) from one web host."""
    from tests.factories import learner_password

    answer = cluster.direct(
        host,
        "/api/v1/auth/token/",
        data=json.dumps({"login": username, "password": learner_password(username)}).encode(),
        headers={"Content-Type": "application/json"},
    )
    assert answer.status == 200, (answer.status, answer.text[:500])
    return answer.json()["token"]


def wait_for(predicate, *, timeout: float, step: float = 0.05) -> float:
    """Seconds until ``predicate()`` held; AssertionError after ``timeout``."""
    started = time.monotonic()
    while True:
        if predicate():
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not within {timeout} s: {predicate}")
        time.sleep(step)


def learners_seed(cluster: Cluster, count: int) -> dict:
    """``count`` learners with sessions, tokens and cards (tests/cluster/seed.py), in the shape
    bench/locustfile.py reads."""
    out = cluster.folder / f"learners-{os.urandom(3).hex()}.json"
    result = cluster.hosts["web-a"].run(
        [sys.executable, "-m", "tests.cluster.seed", str(count), str(out)],
        env=cluster.app_env("web-a"),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(out.read_text())
