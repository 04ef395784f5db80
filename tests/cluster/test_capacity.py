"""How far a second web host carries the learner-session load (docs/operations/scaling.md).

The learner-session load of the performance issue (bench/locustfile.py, one stage at a time by
bench.sessions.stage_run, CPU shares by its CpuMeter from /proc) runs through the proxy, first with
web-b stopped (one web host), then with both. On this 2-core machine every host shares the same
two cores, so the figures that carry over are the ratio two/one and where the CPU goes (the
database host's share), not the absolute numbers.

Short stages by default (``LERNPFAD_CLUSTER_STAGES``, learners per stage; ``…_SECONDS``; think
time × ``…_THINK``); the figures go to the test's output and, with ``LERNPFAD_CLUSTER_REPORT``
naming a file, to that file as JSON.
"""

from __future__ import annotations

import json
import os
import time

from bench.sessions import CpuMeter, _descendants, stage_run
from tests.cluster.clients import learners_seed

STAGES = [int(s) for s in os.environ.get("LERNPFAD_CLUSTER_STAGES", "40,80").split(",")]
SECONDS = float(os.environ.get("LERNPFAD_CLUSTER_SECONDS", "8"))
# A tenth of bench/README.md's think time: ten times the requests per learner, so a few dozen
# simulated learners load the hosts as a few hundred would (and seeding them stays quick).
THINK = os.environ.get("LERNPFAD_CLUSTER_THINK", "0.1")


def _groups(cluster, web_hosts):
    def web():
        found = set()
        for host in web_hosts:
            found |= _descendants(cluster.hosts[host].process("gunicorn").pid)
        return found

    def database():
        return _descendants(cluster.pg.pid) | {cluster.pgbouncer.pid}

    def workers():
        found = set()
        for host in ("worker-a", "worker-b", "beat"):
            for process in cluster.hosts[host].processes:
                if process.alive():
                    found |= _descendants(process.pid)
        return found

    return {
        "web": web,
        "database": database,
        "proxy": lambda: _descendants(cluster.caddy.pid),
        "redis": lambda: {cluster.redis.pid},
        "celery": workers,
    }


def _stages(cluster, web_hosts, *, env, tmp) -> list[dict]:
    meter = CpuMeter(_groups(cluster, web_hosts))
    # Warm-up (not recorded): templates compiled, per-process caches filled.
    stage_run(base=cluster.base, users=STAGES[0], seconds=4, env=env, tmp=tmp, meter=meter)
    results = []
    for users in STAGES:
        result = stage_run(
            base=cluster.base, users=users, seconds=SECONDS, env=env, tmp=tmp, meter=meter
        )
        result["load_average"] = round(os.getloadavg()[0], 2)
        result.pop("by_request", None)
        # CPU milliseconds per request of each host group: unlike requests/s, these hardly
        # depend on what else the shared cores run, and their ratio says how many web hosts
        # one database host of the same size carries.
        cores = os.cpu_count() or 1
        result["cpu_ms_per_request"] = {
            name: round(share * cores * 1000 / result["rps"], 2) if result["rps"] else None
            for name, share in result["cpu_share"].items()
        }
        results.append(result)
    return results


def _summary(stage: dict) -> str:
    cpu = stage["cpu_share"]
    return (
        f"{stage['learners']:4d} learners {stage['rps']:6.1f} req/s p50 {stage['p50_ms']:4.0f} "
        f"p95 {stage['p95_ms']:4.0f} p99 {stage['p99_ms']:4.0f} ms failures {stage['failures']} "
        + " ".join(f"{name} {share:.0%}" for name, share in cpu.items())
    )


def test_the_learner_session_load_on_one_web_host_and_then_on_two(cluster, tmp_path):
    data = learners_seed(cluster, max(STAGES))
    sessions_file = tmp_path / "learners.json"
    sessions_file.write_text(json.dumps(data))
    env = {
        **os.environ,
        "BENCH_SESSIONS_FILE": str(sessions_file),
        "BENCH_THINK_SCALE": THINK,
        "no_proxy": "*",
    }
    web_b = cluster.hosts["web-b"].process("gunicorn")
    web_b.stop()
    time.sleep(3)  # Caddy's active health check (every 2 s) takes web-b out
    try:
        one = _stages(cluster, ("web-a",), env=env, tmp=tmp_path)
    finally:
        cluster.web_start("web-b")
    time.sleep(3)  # and back in
    two = _stages(cluster, ("web-a", "web-b"), env=env, tmp=tmp_path)

    report = {
        "stages": STAGES,
        "seconds": SECONDS,
        "think_scale": float(THINK),
        "one_host": one,
        "two_hosts": two,
        "ratio_rps_top_stage": round(two[-1]["rps"] / one[-1]["rps"], 3),
        "ratio_p95_top_stage": round(two[-1]["p95_ms"] / max(one[-1]["p95_ms"], 1), 3),
        "web_per_database_cpu_top_stage": round(
            two[-1]["cpu_ms_per_request"]["web"] / two[-1]["cpu_ms_per_request"]["database"], 1
        ),
    }
    print("\none web host:\n  " + "\n  ".join(_summary(s) for s in one))
    print("two web hosts:\n  " + "\n  ".join(_summary(s) for s in two))
    print(json.dumps({k: v for k, v in report.items() if k.startswith(("ratio", "web_per"))}))
    print("CPU ms per request:", [(s["learners"], s["cpu_ms_per_request"]) for s in one + two])
    if os.environ.get("LERNPFAD_CLUSTER_REPORT"):
        with open(os.environ["LERNPFAD_CLUSTER_REPORT"], "w", encoding="utf-8") as file:
            json.dump(report, file, indent=2)
    for stage in one + two:
        assert stage["failures"] == 0, stage["failure_samples"]
        assert stage["cpu_share"]["web"] > 0 and stage["cpu_share"]["database"] > 0
        assert stage["requests"] > 0 and stage["locust_exit"] in (0, 1), stage["locust_tail"]
    # Every request of the two-host stages that went to web-b was served by it: it carried load.
    assert "GET /modules/" in cluster.hosts["web-b"].process("gunicorn").log.read_text()
