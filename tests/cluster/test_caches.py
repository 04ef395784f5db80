"""Caches that must agree (README "Scaling out"): each web process trusts a step's ETag, the
module's outline and its content for one second (lms/content_cache.py), so a course import
through host A is served by host B within a second: the step page, the step's API body and
ETag, the module page's outline and the module bundle of the mobile app."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from tests.cluster.clients import learner_make, token_login
from tests.cluster.hosts import ROOT

MODULE = "self-hosting-27"
DOCUMENTS = ROOT / "fixtures" / "documents"
DOCUMENT = "000_f1ef75877a9e6e7d.txt"
ORIGINAL = "CUDA Out of Memory bedeutet"
# One second of trust, plus the request that notices it on two busy shared cores.
WITHIN = 1.5  # seconds


def _sessions_of(cluster, username):
    from tests.cluster.clients import browser_login

    return browser_login(cluster, "web-a", username)


def test_an_import_on_host_a_is_served_by_host_b_within_a_second(cluster):
    username = learner_make(cluster, enrolled=True)
    token = token_login(cluster, "web-a", username)
    cookie = _sessions_of(cluster, username)
    api = {"Authorization": f"Token {token}"}
    browser = {"Cookie": f"sessionid={cookie}"}
    step = cluster.direct("web-b", f"/api/v1/modules/{MODULE}/steps/1/", headers=api)
    assert step.status == 200 and ORIGINAL in step.text, step.text[:300]
    etag = step.headers["ETag"]
    marker = f"Zustand-{os.urandom(4).hex()}"
    reads = {
        "step page": (f"/modules/{MODULE}/steps/1/", browser),
        "step API": (f"/api/v1/modules/{MODULE}/steps/1/", api),
        "module bundle": (f"/api/v1/modules/{MODULE}/bundle/", api),
        "outline (module page)": (f"/modules/{MODULE}/", browser),
    }
    # Every web process of B has the old content cached (two sync workers: ask often).
    for _ in range(6):
        for name, (path, headers) in reads.items():
            answer = cluster.direct("web-b", path, headers=headers)
            assert answer.status == 200, (name, answer.status)
            assert marker not in answer.text
        assert (
            cluster.direct(
                "web-b",
                f"/api/v1/modules/{MODULE}/steps/1/",
                headers={**api, "If-None-Match": etag},
            ).status
            == 304
        )

    folder = cluster.folder / f"documents-{marker}"
    shutil.copytree(DOCUMENTS, folder)
    changed = folder / DOCUMENT
    text = changed.read_text(encoding="utf-8")
    assert text.count(ORIGINAL) >= 1
    changed.write_text(
        text.replace(ORIGINAL, f"CUDA Out of Memory ({marker}) bedeutet", 1), encoding="utf-8"
    )
    cluster.manage("import_course", *sorted(str(p) for p in Path(folder).glob("*.txt")))
    imported = time.monotonic()

    seen: dict[str, float] = {}
    while len(seen) < len(reads) + 1 and time.monotonic() - imported < 10:
        for name, (path, headers) in reads.items():
            if name not in seen and marker in cluster.direct("web-b", path, headers=headers).text:
                seen[name] = time.monotonic() - imported
        if "ETag" not in seen:
            conditional = cluster.direct(
                "web-b",
                f"/api/v1/modules/{MODULE}/steps/1/",
                headers={**api, "If-None-Match": etag},
            )
            if conditional.status == 200 and conditional.headers["ETag"] != etag:
                seen["ETag"] = time.monotonic() - imported
        time.sleep(0.02)
    assert set(seen) == {*reads, "ETag"}, seen
    assert max(seen.values()) < WITHIN, seen
    # And it stays: no process of B serves the old content any more.
    for _ in range(6):
        for name, (path, headers) in reads.items():
            assert marker in cluster.direct("web-b", path, headers=headers).text, name
