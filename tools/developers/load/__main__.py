"""Run the local stack, create links, and hold a steady rate of redirects on it for 60 s.

Loopback only; the run is bounded by locust's --run-time. Prints one JSON summary (also in
bench-results/load.json). Environment: LOAD_RATE (requests/s, default 25, what the local stack's
single environment per function holds; see README) and LOAD_SECONDS (60).
"""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.e2e.running_stack import ROOT, RunningStack

USERS = 5
LINKS = 100
LOCUST = ROOT / ".venv-load" / "bin" / "locust"


def main() -> None:
    rate = float(os.environ.get("LOAD_RATE", "25"))
    seconds = int(os.environ.get("LOAD_SECONDS", "60"))
    results = ROOT / "bench-results"
    results.mkdir(exist_ok=True)
    # The setup creates LINKS links with one key in a few seconds: no create rate limit.
    stack = RunningStack.start(SHORTLINK_API_KEY="sl_loadTestKeyForTheDevStack0000000", SHORTLINK_CREATE_RATE_LIMIT="0")
    if not stack.ready:
        sys.exit(f"the local stack did not start:\n{stack.output()}")
    try:
        headers = {"Authorization": f"Bearer {stack.api_key}", "Content-Type": "application/json"}
        codes = [
            stack.request("POST", "/links", {"url": f"https://example.com/load/{i}"}, headers).json()["code"]
            for i in range(LINKS)
        ]
        prefix = results / "load"
        subprocess.run(
            [
                str(LOCUST),
                "-f",
                str(Path(__file__).with_name("locustfile.py")),
                "--headless",
                "--host",
                stack.base_url,
                "--users",
                str(USERS),
                "--spawn-rate",
                str(USERS),
                "--run-time",
                f"{seconds}s",
                "--stop-timeout",
                "5",
                "--csv",
                str(prefix),
                "--only-summary",
            ],
            env={**os.environ, "LOAD_CODES": ",".join(codes), "LOAD_RATE_PER_USER": str(rate / USERS)},
            check=False,
            timeout=seconds + 120,
        )
    finally:
        stack.stop()
    with open(f"{prefix}_stats.csv") as stats:
        total = next(row for row in csv.DictReader(stats) if row["Name"] == "Aggregated")
    summary = {
        "target_rate_per_s": rate,
        "seconds": seconds,
        "requests": int(total["Request Count"]),
        "failures": int(total["Failure Count"]),
        "achieved_rate_per_s": round(float(total["Requests/s"]), 1),
        "p50_ms": float(total["50%"]),
        "p99_ms": float(total["99%"]),
        "max_ms": float(total["Max Response Time"]),
    }
    (results / "load.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    sys.exit(1 if summary["failures"] else 0)


if __name__ == "__main__":
    main()
