"""The noise floor of RMSE(bins) on held-out reviews: the TRUE parameters against the defaults
on ever larger held-out sets (pure: the tests' simulator, tests/reviews/test_fitting.py, no
database). If the oracle's lead over the defaults grows with the held-out set, the measure at a
given size is bounded by sampling noise, not by what the parameters predict.

    python -m bench.fsrs_floor      # about a minute
"""

from __future__ import annotations

import os
import random
import sys


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lms.settings.test")
    import django

    django.setup()
    from bench.fsrs_truth import POPULATIONS
    from reviews import fitting
    from reviews.scheduling import DEFAULT_PARAMETERS
    from tests.reviews.test_fitting import simulated_log

    rng = random.Random(5)
    first = 1_000
    for index in (3, 2):
        population = POPULATIONS[index]
        logs = []
        for _learner in range(5):
            truth = population.draw(rng)
            log = simulated_log(
                parameters=truth, reviews=13_000, seed=rng.randrange(10**6), new_per_day=20
            )
            logs.append((truth, log))
        for test in (1_000, 2_500, 6_000, 12_000):
            sums = {"default": [0.0, 0], "oracle": [0.0, 0]}
            for truth, log in logs:
                cut, end = log[first - 1].reviewed_at, log[first - 1 + test].reviewed_at
                held = [
                    item.item
                    for item in fitting._items(log[: first + test], time_zone="UTC")
                    if cut < item.at <= end
                ]
                for name, parameters in (("default", DEFAULT_PARAMETERS), ("oracle", truth)):
                    evaluation = fitting.evaluate(parameters, held)
                    sums[name][0] += evaluation.rmse_bins * evaluation.reviews
                    sums[name][1] += evaluation.reviews
            default = sums["default"][0] / sums["default"][1]
            oracle = sums["oracle"][0] / sums["oracle"][1]
            print(
                f"| {population.name} | {test:,} | {sums['default'][1] // len(logs):,} "
                f"| {default:.4f} | {oracle:.4f} | {100 * (oracle / default - 1):+.0f} % |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())
    raise SystemExit(main())
