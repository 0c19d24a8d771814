"""Managing a link over real HTTP through the local stack."""


def test_list_edit_delete_restore(stack, auth):
    created = stack.request("POST", "/links", {"url": "https://example.com/m", "tags": ["e2e-manage"]}, auth).json()
    code = created["code"]
    listed = stack.request("GET", "/links?tag=e2e-manage&limit=5", headers=auth)
    assert listed.status == 200, listed.body
    assert [link["code"] for link in listed.json()["links"]] == [code]

    edited = stack.request("PATCH", f"/links/{code}", {"url": "https://example.com/m2", "title": "Edited"}, auth)
    assert edited.status == 200, edited.body
    assert edited.json()["title"] == "Edited"

    assert stack.request("DELETE", f"/links/{code}", headers=auth).status == 204
    gone = stack.request("GET", f"/{code}")  # not followed before: no cached copy
    assert gone.status == 410
    assert b"removed" in gone.body
    assert stack.request("GET", f"/links/{code}", headers=auth).json()["deleted_at"] is not None
    restored = stack.request("POST", f"/links/{code}/restore", headers=auth)
    assert (restored.status, restored.json()["deleted_at"]) == (200, None)
    assert stack.request("GET", f"/links/{code}", headers={"Content-Type": "application/json"}).status == 401


def test_qr_codes_over_http(stack, auth):
    code = stack.request("POST", "/links", {"url": "https://example.com/qr"}, auth).json()["code"]
    svg = stack.request("GET", f"/links/{code}/qr", headers=auth)
    assert (svg.status, svg.headers["content-type"]) == (200, "image/svg+xml")
    assert svg.body.startswith(b"<?xml")
    png = stack.request("GET", f"/links/{code}/qr?format=png", headers=auth)
    assert (png.status, png.headers["content-type"]) == (200, "image/png")
    assert png.body.startswith(b"\x89PNG\r\n\x1a\n")
