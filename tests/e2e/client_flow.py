"""Getting started (docs/index.md) through a Python client generated from the OpenAPI document:
a key created, a link created with it, followed twice (as a library, a bot, and as Firefox), and
its stats read, then the team: someone invited and the invitation listed and revoked, each
answer as the client's typed model.

Run by tests/e2e/test_generated_client.py with the generator's virtualenv (.venv-client) and the
generated package `shortlink_client` on PYTHONPATH:

    python tests/e2e/client_flow.py BASE_URL API_KEY
"""

import sys
import time
from datetime import datetime

from shortlink_client import AuthenticatedClient, Client  # type: ignore[import-not-found]
from shortlink_client.api.default import (  # type: ignore[import-not-found]
    create_key,
    create_link,
    follow,
    invite_member,
    link_stats,
    list_invitations,
    list_members,
    revoke_invitation,
)
from shortlink_client.models import (  # type: ignore[import-not-found]
    CreatedKey,
    CreateKeyRequest,
    CreateKeyRequestScopesItem,
    CreateLinkRequest,
    InvitationList,
    InvitationMadeView,
    InviteRequest,
    InviteRequestRole,
    LinkStats,
    LinkView,
    MemberList,
)

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
DESTINATION = "https://example.com/a/long/page"


def main(base_url: str, admin_key: str) -> None:
    # An API key for the examples, as `tools.operators.admin keys create` makes one (here: POST /keys)
    admin = AuthenticatedClient(base_url=base_url, token=admin_key, raise_on_unexpected_status=True)
    scopes = [CreateKeyRequestScopesItem(scope) for scope in ("links:read", "links:write", "stats:read")]
    key = create_key.sync(client=admin, body=CreateKeyRequest(name="generated-client", scopes=scopes))
    assert isinstance(key, CreatedKey), key
    me = AuthenticatedClient(base_url=base_url, token=key.key, raise_on_unexpected_status=True)

    # Create a short link
    link = create_link.sync(client=me, body=CreateLinkRequest(url=DESTINATION))
    assert isinstance(link, LinkView), link
    assert link.url == DESTINATION
    assert link.short_url == f"{base_url}/{link.code}"

    # Follow it: as an HTTP library (a bot), then as Firefox (a visitor)
    for visitor in (Client(base_url=base_url), Client(base_url=base_url, headers={"User-Agent": FIREFOX})):
        followed = follow.sync_detailed(link.code, client=visitor)
        assert followed.status_code == 302, followed
        assert followed.headers["location"] == DESTINATION

    # See it counted (clicks are counted a second or two after the redirect)
    deadline = time.monotonic() + 30
    while True:
        stats = link_stats.sync(link.code, client=me)
        assert isinstance(stats, LinkStats), stats
        if stats.clicks >= 2 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert (stats.code, stats.clicks, stats.bots, stats.unique_visitors) == (link.code, 2, 1, 1), stats
    assert sum(point.clicks for point in stats.series) == 2
    assert all(isinstance(point.start, datetime) for point in stats.series)
    assert stats.orphans.deleted == 0
    print(f"created {link.code}, followed twice, counted: clicks {stats.clicks}, bots {stats.bots}")

    # The team: its members, someone invited (the local stack prints the message: sent), listed, revoked
    members = list_members.sync(client=admin)
    assert isinstance(members, MemberList), members
    made = invite_member.sync(
        client=admin, body=InviteRequest(email="client@example.com", role=InviteRequestRole.EDITOR)
    )
    assert isinstance(made, InvitationMadeView), made
    assert (made.sent, made.invitation.email) == (True, "client@example.com")
    pending = list_invitations.sync(client=admin)
    assert isinstance(pending, InvitationList), pending
    assert made.invitation.invitation_id in [each.invitation_id for each in pending.invitations]
    revoked = revoke_invitation.sync_detailed(made.invitation.invitation_id, client=admin)
    assert revoked.status_code == 204, revoked
    print(f"team: {len(members.members)} members, invited and revoked {made.invitation.invitation_id}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
