"""An import's file as the API receives it: bytes that must be UTF-8 text holding a link."""

from typing import Literal

from shortlink.transfer.formats import Format, Record, UnreadableFile, read


def read_upload(body: bytes, file_format: Format | Literal["auto"], media_type: str | None, limit: int) -> list[Record]:
    """The records of an uploaded file: UTF-8 text holding at least one link (UnreadableFile
    otherwise, TooManyRecords past `limit`)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise UnreadableFile("the file must be UTF-8 text") from None
    if not (records := read(text, file_format, media_type, limit)):
        raise UnreadableFile("the file holds no links")
    return records
