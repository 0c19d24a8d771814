"""One cold start in this fresh process: init (imports) plus the first invocation, until a 302.

    python -m tools.developers.bench.cold_start ours|naive CODE

Prints one JSON object. The environment (endpoint, tables, queue) comes from the parent, which
runs this with `python -S` and only the layer's packages on PYTHONPATH, as in Lambda.
"""

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def main() -> None:
    which, code = sys.argv[1], sys.argv[2]
    event = {
        "version": "2.0",
        "routeKey": "GET /{code}",
        "pathParameters": {"code": code},
        "rawPath": f"/{code}",
        "headers": {},
        "requestContext": {"http": {"method": "GET", "path": f"/{code}", "sourceIp": "203.0.113.9"}},
    }
    # Harness, not measured: Lambda's runtime already serves the Extensions API. Imported for
    # both handlers, so that neither finds more of the standard library loaded than the other.
    from tools.developers.devstack.extensions_api import ExtensionsApi
    from tools.developers.devstack.lambda_runtime import LambdaContext, load_handler

    if which == "ours":
        api = ExtensionsApi("RedirectFunction", "us-east-1")
        os.environ["AWS_LAMBDA_RUNTIME_API"] = api.address
        context = LambdaContext("RedirectFunction", 512, 10, "us-east-1")
        assert "botocore" not in sys.modules, "the harness must not pre-import what the handler imports"
        started = time.perf_counter()
        handler = load_handler(ROOT / "functions" / "redirect", "app.lambda_handler", "cold_redirect")
        initialised = time.perf_counter()
        api.begin_invocation()
        response = handler(event, context)
        finished = time.perf_counter()
        api.release()
        api.wait_until_idle(10)  # let the click go before the process ends (not measured)
    else:
        assert "botocore" not in sys.modules
        started = time.perf_counter()
        from tools.developers.bench import naive

        initialised = time.perf_counter()
        response = naive.handler(event, None)
        finished = time.perf_counter()
    assert response["statusCode"] == 302, response
    print(
        json.dumps(
            {
                "init_ms": (initialised - started) * 1000,
                "first_invoke_ms": (finished - initialised) * 1000,
                "total_ms": (finished - started) * 1000,
            }
        ),
        flush=True,
    )
    # Measured and printed: end here, as Lambda freezes the sandbox, rather than through the
    # interpreter's shutdown, which a loaded machine can find with the click's daemon thread
    # still writing to stdout (a fatal error, SIGABRT, and a lost measurement).
    os._exit(0)


if __name__ == "__main__":
    main()
