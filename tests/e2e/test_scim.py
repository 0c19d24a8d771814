"""SCIM 2.0 end to end on the session's running stack, over real HTTP: the owner `make dev` prints
makes a SCIM token in the console; scim2-tester (an RFC 7643/7644 compliance checker from the
SCIM ecosystem) checks discovery and creates, reads, filters, replaces and deletes Users through
it (Groups are checked through the handler, to keep this test short); then a person invited and
signed in is deactivated as Entra does it, and their very next console request and their access
token are refused.

Moto only: users are written with TransactWriteItems, which dynalite lacks."""

import re
import uuid

import httpx2
import pytest
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import Status, check_server

from tests.e2e.running_stack import RunningStack
from tests.e2e.test_people import Visitor, access_token, invitation_path, owner_credentials, signed_up

pytestmark = pytest.mark.dynamodb_features("TransactWriteItems")
PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp"


def owner_of(stack: RunningStack) -> Visitor:
    email, password = owner_credentials(stack)
    owner = Visitor(stack)
    signed = owner.post("/console/sign-in/person", {"email": email, "password": password})
    assert (signed.status, signed.headers.get("location")) == (303, "/console"), signed.body
    return owner


def scim_token(owner: Visitor) -> str:
    made = owner.post("/console/workspace/scim", {"csrf": owner.csrf("/console/workspace/scim")})
    found = re.search(r'id="new-token">(scim_[0-9A-Za-z]+)<', made.body.decode())
    assert made.status == 201, made.body
    assert found, made.body
    return found.group(1)


def test_scim_passes_a_compliance_checker_and_deprovisioning_ends_access_at_once(stack):
    owner = owner_of(stack)
    token = scim_token(owner)
    headers = {"Authorization": f"Bearer {token}"}

    # Given scim2-tester's checks (discovery, then CRUD of each resource type) over HTTP
    with httpx2.Client(base_url=f"{stack.base_url}/scim/v2", headers=headers, timeout=30) as http:
        client = SyncSCIMClient(http)
        client.discover()
        # Users only: Groups are checked through the handler (tests/integration/test_scim.py)
        results = check_server(client, exclude_tags={"patch"}, resource_types=["User"])
    # Then every check it runs passes (those it skips are features the server says it lacks)
    failed = [(result.title, result.reason) for result in results if result.status == Status.ERROR]
    assert not failed, failed
    assert sum(result.status == Status.SUCCESS for result in results) >= 10

    # Given a person the owner invited, signed in to the console, with an access token of the pool
    run = uuid.uuid4().hex[:6]
    email, password = f"scim-leaver-{run}@example.com", f"Pass-{run}-word1A"
    invited = owner.post("/console/members/invite", {"csrf": owner.csrf("/console/members"), "email": email,
                                                     "role": "editor"})  # fmt: skip
    assert invited.status == 201, invited.body
    assert invitation_path(stack, email)
    leaver = signed_up(stack, email, password)
    pool_token = access_token(stack, email, password)
    assert stack.request("GET", "/people/me", headers={"Authorization": f"Bearer {pool_token}"}).status == 200
    scim = {**headers, "Content-Type": "application/scim+json"}
    created = stack.request("POST", "/scim/v2/Users", {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                                                       "userName": email, "active": True}, scim)  # fmt: skip
    assert created.status == 201, created.body
    user_id = created.json()["id"]

    # When Entra deactivates them
    off = stack.request("PATCH", f"/scim/v2/Users/{user_id}", {"schemas": [PATCH], "Operations": [
        {"op": "Replace", "path": "active", "value": "False"}]}, scim)  # fmt: skip
    assert off.status == 200, off.body
    # Then their very next requests are refused: the console's and their access token's
    refused = leaver.get("/console")
    assert (refused.status, refused.headers.get("location")) == (303, "/console/sign-in?why=removed")
    assert stack.request("GET", "/people/me", headers={"Authorization": f"Bearer {pool_token}"}).status == 401
    # And the token, revoked by the owner, opens nothing more
    [token_id] = re.findall(r'data-token-id="([0-9a-f]{12})"', owner.get("/console/workspace/scim").body.decode())[-1:]
    assert owner.post(f"/console/workspace/scim/{token_id}/revoke", {"csrf": owner.csrf()}).status == 303
    assert stack.request("GET", "/scim/v2/Users", headers=headers).status == 401
