"""HTTP adapter: an identity provider's discovery document or SAML metadata, fetched when an owner
saves single sign-on, as the webhooks' deliveries are sent (shortlink.adapters.http.guarded: https
only, every resolved address checked and connected to, no redirect followed, bounded in size and
time). Every failure is DocumentUnreadable naming it for the settings page."""

from shortlink.adapters.http.guarded import GuardedHttp, Resolver, Unreachable, resolve
from shortlink.sso.setup_steps import DocumentUnreadable

USER_AGENT = "Shortlink-Console/1"
READ_TIMEOUT_SECONDS = 5.0


class GuardedProviderDocuments:
    def __init__(self, allow_loopback: bool = False, resolver: Resolver = resolve) -> None:
        self._http = GuardedHttp(allow_loopback, resolver, READ_TIMEOUT_SECONDS)

    def fetch(self, url: str, max_bytes: int) -> bytes:
        headers = {"accept": "application/json, application/xml, text/xml", "user-agent": USER_AGENT}
        try:
            answer = self._http.request("GET", url, headers, None, max_bytes)
        except Unreachable as error:
            raise DocumentUnreadable(f"{url} could not be read: {error}") from None
        if 300 <= answer.status < 400:
            raise DocumentUnreadable(f"{url} answered {answer.status}, a redirect, which is not followed")
        if answer.status != 200:
            raise DocumentUnreadable(f"{url} answered {answer.status}")
        if len(answer.body) > max_bytes:
            raise DocumentUnreadable(f"{url} is longer than {max_bytes // 1024} KB")
        return answer.body
