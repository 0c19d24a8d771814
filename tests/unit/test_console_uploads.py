"""The console's multipart form reader (shortlink.console.uploads): what a browser posts comes back
exactly, bytes of files included, and any other body is a ValueError naming the problem, never
another exception (the door turns it into a 400)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from urllib3 import encode_multipart_formdata

from shortlink.console.uploads import MULTIPART, is_multipart, multipart_form

TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r"), max_size=40)


@settings(max_examples=40, deadline=None)
@given(
    fields=st.dictionaries(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), TEXT, max_size=5),
    content=st.binary(max_size=3000),
    filename=st.from_regex(r"[a-zA-Z0-9 ._-]{1,20}", fullmatch=True),
)
def test_a_browsers_form_comes_back_exactly_with_its_files_bytes(fields, content, filename):
    body, content_type = encode_multipart_formdata({**fields, "logo_file": (filename, content, "image/png")})
    upload = multipart_form(body, content_type, 100)
    assert upload.fields == {name: [value] for name, value in fields.items()}
    assert upload.files == ({"logo_file": content} if content else {})


@settings(max_examples=100, deadline=None)
@given(body=st.binary(max_size=400), boundary=st.binary(max_size=30))
def test_any_other_body_is_a_value_error_or_a_form(body, boundary):
    content_type = f"{MULTIPART}; boundary={boundary.decode('latin-1')}"
    try:
        upload = multipart_form(b"--" + boundary + b"\r\n" + body, content_type, 100)
    except ValueError:
        return
    assert all(isinstance(values, list) for values in upload.fields.values())


def test_a_form_of_too_many_parts_or_text_that_is_not_utf8_is_refused_naming_it():
    body, content_type = encode_multipart_formdata({f"f{n}": "x" for n in range(11)})
    with pytest.raises(ValueError, match="at most 10 fields"):
        multipart_form(body, content_type, 10)
    body, content_type = encode_multipart_formdata({"name": b"\xff\xfe".decode("latin-1")})
    body = body.replace(b"\xc3\xbf\xc3\xbe", b"\xff\xfe")  # the raw bytes a broken client sends
    with pytest.raises(ValueError, match="'name' must be UTF-8"):
        multipart_form(body, content_type, 10)
    assert is_multipart("Multipart/Form-Data; boundary=x")
    assert not is_multipart("application/x-www-form-urlencoded")
