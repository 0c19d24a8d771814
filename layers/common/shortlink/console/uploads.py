"""A console form posted as multipart/form-data (a form with a file input): its text fields as a
Form, and its files' bytes by field name. Parsed by the standard library's MIME parser (RFC 7578
form data is MIME), after the door has bounded the body's size."""

from dataclasses import dataclass, field
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP

from shortlink.console.forms import Form

MULTIPART = "multipart/form-data"


@dataclass(frozen=True)
class Upload:
    """A multipart form: its text fields, and the files chosen (an empty file input sends none)."""

    fields: Form = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)


def is_multipart(content_type: str | None) -> bool:
    return (content_type or "").split(";")[0].strip().lower() == MULTIPART


def multipart_form(body: bytes, content_type: str, max_fields: int) -> Upload:
    """The form in `body`; ValueError naming the problem when it is not well-formed multipart
    form data, has more than `max_fields` parts, or a text field is not UTF-8."""
    if "\r" in content_type or "\n" in content_type:
        raise ValueError("the form's content type is malformed")
    head = f"Content-Type: {content_type}\r\n\r\n".encode("latin-1", "replace")
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    if not message.is_multipart() or message.defects:
        raise ValueError("the form is not well-formed multipart/form-data")
    parts = [part for part in message.get_payload() if isinstance(part, Message)]
    if len(parts) > max_fields:
        raise ValueError(f"the form must have at most {max_fields} fields")
    upload = Upload()
    for part in parts:
        name, content = _named(part)
        if part.get_filename() is not None:
            if content:  # an empty file input posts a part with no content
                upload.files[name] = content
            continue
        try:
            upload.fields.setdefault(name, []).append(content.decode("utf-8"))
        except UnicodeDecodeError:
            raise ValueError(f"the form's field {name[:40]!r} must be UTF-8 text") from None
    return upload


def _named(part: Message) -> tuple[str, bytes]:
    name = part.get_param("name", header="content-disposition")
    if not isinstance(name, str) or part.get_content_disposition() != "form-data":
        raise ValueError("each part of the form needs a form-data disposition with a name")
    content = part.get_payload(decode=True)
    return name, content if isinstance(content, bytes) else b""
