"""The endpoints the benchmark loads, each with its floor and target (see bench/README.md).

A scenario is added only when its route exists in this checkout; the others are listed as not
measured, so the harness runs at every stage of the project.
"""

from __future__ import annotations

from collections.abc import Callable

from django.test import Client

from bench.run import Request, Scenario, token_header


def build(manifest, *, routed: Callable[[str], bool], smoke: bool):
    """(scenarios, names of the endpoints not routed yet)."""
    scenarios: list[Scenario] = []
    missing: list[str] = []
    module = manifest.module
    numbers = manifest.step_numbers

    def step_path(number: int) -> str:
        return f"/api/v1/modules/{module}/steps/{number}/"

    if routed(step_path(numbers[0])):
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
                target_ratio=0.6,
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
                target_ratio=0.8,
            ),
        ]
    else:
        missing.append("step detail (GET /api/v1/modules/{m}/steps/{n}/)")
    return scenarios, missing


__all__ = ["build", "token_header"]
