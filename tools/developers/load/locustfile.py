"""Visitors following known short links at a constant rate (locust, run by tools.developers.load)."""

import os
import random

from locust import HttpUser, constant_throughput, task

CODES = os.environ["LOAD_CODES"].split(",")
RATE_PER_USER = float(os.environ.get("LOAD_RATE_PER_USER", "10"))


class Visitor(HttpUser):  # type: ignore[misc]  # locust is not installed in the dev environment
    wait_time = constant_throughput(RATE_PER_USER)

    @task
    def follow(self) -> None:
        code = random.choice(CODES)  # noqa: S311 - picking a link, not a secret
        with self.client.get(f"/{code}", name="GET /{code}", allow_redirects=False, catch_response=True) as answer:
            if answer.status_code != 302 or not answer.headers.get("Location"):
                answer.failure(f"expected a 302 with Location, got {answer.status_code}")
