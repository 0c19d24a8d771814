"""The console behind the local stack's edge, over real HTTP: the edge replaces Host with the
API's own (tools.developers.devstack.edge), yet a form from the console's own origin passes the origin check
and one from another site's does not."""

from urllib.parse import urlencode

from tools.developers.devstack.edge import API_HOST

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def test_the_origin_check_reads_the_viewers_host_through_the_local_edge(stack):
    own = stack.base_url.removeprefix("http://")
    body = urlencode({"api_key": stack.api_key})
    signed_in = stack.request("POST", "/console/sign-in", body, {**FORM, "Origin": stack.base_url})
    assert (signed_in.status, signed_in.headers["location"]) == (303, "/console")
    for origin, host in [
        ("http://evil.example", own),  # another site's page
        (f"http://{API_HOST}", own),  # the API's own host is not the browser's
    ]:
        refused = stack.request("POST", "/console/sign-in", body, {**FORM, "Origin": origin, "Host": host})
        assert refused.status == 403, (origin, host, refused.body)
