"""The environment the functions see in the local stack: the template's variables, resolved."""

import json
import os

from samcli.lib.providers.provider import Function

from tools.developers.devstack.template import LocalTemplate

# Only ever used locally; deployed stacks read their key from SSM.
DEV_PERMUTATION_KEY = "local-dev-permutation-key-do-not-use-in-aws"
DEV_VISITOR_SALT = "local-dev-visitor-salt-do-not-use-in-aws"
DEV_CONSOLE_SESSION_SECRET = "local-dev-console-session-secret-do-not-use-in-aws"
# The local stack stands in for the edge and adds this to every request (tools.developers.devstack).
DEV_EDGE_SECRET = "local-dev-edge-secret-do-not-use-in-aws"
# A made-up signing certificate's fingerprint, for the example assetlinks.json.
EXAMPLE_FINGERPRINT = ":".join(["14", "6D", "E9", "83", "C5", "73", "06", "50"] * 4)
# The local stack's second domain's settings (shortlink.domains.settings); the default domain has none.
DEV_DOMAIN_SETTINGS = json.dumps(
    {
        "go.localhost": {
            "root_url": "https://example.com/",
            "not_found_url": "https://example.com/not-found",
            "apple_app_site_association": {
                "applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/app/*"}]}]}
            },
            "assetlinks": [
                {
                    "relation": ["delegate_permission/common.handle_all_urls"],
                    "target": {
                        "namespace": "android_app",
                        "package_name": "com.example.app",
                        "sha256_cert_fingerprints": [EXAMPLE_FINGERPRINT],
                    },
                }
            ],
        }
    }
)


# Which regions the stack runs in and which one takes the writes: tools.developers.devstack.regions starts
# each region's functions with them, and they win over the template's (absent: one region).
REGION_VARIABLES = ("SHORTLINK_REGIONS", "SHORTLINK_HOME_REGION")
# Template parameters of the click counting that `make dev` takes from its own environment too
# (REPEAT_CLICK_WINDOW_SECONDS=0 make dev; COUNTRY_DATABASE=/path/countries.mmdb make dev).
CLICK_VARIABLES = ("REPEAT_CLICK_WINDOW_SECONDS", "COUNTRY_DATABASE", "NETWORK_DATABASE", "SCANNER_BURST_LINKS")
# Every local visitor has one address (loopback): a burst of links would be anyone's, so the
# timing signal is off unless asked for (SCANNER_BURST_LINKS=3 make dev).
LOCAL_SCANNER_BURST_LINKS = "0"
# Workspaces' domains are verified against a DNS server on loopback (tools.developers.txt_records
# serves the records you give it there); DNS_RESOLVER=1.1.1.1 make dev asks public DNS instead.
LOCAL_DNS_RESOLVER = "127.0.0.1:15353"

# Variables each function has a value of its own for: set while its module initialises
# (Powertools reads the service name then), never merged into the shared environment.
OWN_VARIABLES = ("POWERTOOLS_SERVICE_NAME",)


def own_environment(function: Function) -> dict[str, str]:
    """The function's values of OWN_VARIABLES (to load its handler with)."""
    variables = (function.environment or {}).get("Variables") or {}
    return {name: str(variables[name]) for name in OWN_VARIABLES if name in variables}


def function_environment(template: LocalTemplate, queue_urls: dict[str, str]) -> dict[str, str]:
    """The union of the functions' variables but their own (OWN_VARIABLES), queue references
    turned into queue URLs, REGION_VARIABLES and CLICK_VARIABLES as this process has them (the scanner
    bursts off by default), the DNS server that verifies workspaces' domains, plus the local-only
    permutation key, visitor salt and console session secret. All functions share one process, so they must agree."""
    merged: dict[str, str] = {}
    for function in template.functions.values():
        for name, value in ((function.environment or {}).get("Variables") or {}).items():
            if value is None or isinstance(value, dict):  # AWS::NoValue: declared for `sam local` only
                continue
            if name in OWN_VARIABLES:
                continue
            resolved = queue_urls.get(str(value), str(value))
            if merged.setdefault(name, resolved) != resolved:
                raise SystemExit(f"functions disagree on {name}; the local stack runs them in one process")
    merged["SCANNER_BURST_LINKS"] = LOCAL_SCANNER_BURST_LINKS
    merged["DNS_RESOLVER"] = os.environ.get("DNS_RESOLVER", LOCAL_DNS_RESOLVER)
    merged.update({name: os.environ[name] for name in REGION_VARIABLES + CLICK_VARIABLES if name in os.environ})
    merged["PERMUTATION_KEY"] = DEV_PERMUTATION_KEY
    merged["VISITOR_SALT"] = DEV_VISITOR_SALT
    merged["CONSOLE_SESSION_SECRET"] = DEV_CONSOLE_SESSION_SECRET
    return merged
