"""POST /links/bulk over real HTTP through the local stack."""


def test_a_bulk_create_reports_each_link(stack, auth):
    links = [{"url": "https://example.com/bulk/1"}, {"url": "mailto:x@y.z"}, {"url": "https://example.com/bulk/3"}]
    answer = stack.request("POST", "/links/bulk", {"links": links}, auth)
    assert answer.status == 200, answer.body
    body = answer.json()
    assert [result["status"] for result in body["results"]] == [201, 422, 201]
    for result in (body["results"][0], body["results"][2]):
        assert stack.request("GET", f"/{result['link']['code']}").status == 302
