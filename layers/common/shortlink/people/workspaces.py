"""A workspace's own settings: its name, which its owners set and its members see beside its id
(the workspace id stays what it always was, the first key's id: nothing is keyed by the name)."""

import secrets
import unicodedata
from datetime import datetime

from shortlink.people.errors import InvalidWorkspaceSetting
from shortlink.people.ports import WorkspaceNames

MAX_NAME_CHARS = 64
MAX_OWNED_WORKSPACES = 50  # a person owns at most this many (one account must not mint them without end)


def checked_name(text: str) -> str:
    """A name as people read it: NFC, trimmed, 1 to 64 characters, none of them a control or
    formatting character (which could hide or reorder what a member reads beside it)."""
    name = unicodedata.normalize("NFC", text).strip()
    if not 0 < len(name) <= MAX_NAME_CHARS:
        raise InvalidWorkspaceSetting("name", f"name: 1 to {MAX_NAME_CHARS} characters")
    if any(unicodedata.category(char).startswith("C") for char in name):
        raise InvalidWorkspaceSetting("name", "name: letters, digits, spaces and punctuation only")
    return name


def rename(names: WorkspaceNames, workspace_id: str, text: str, now: datetime) -> str:
    """Give `workspace_id` the name `text`, checked: the name as stored."""
    name = checked_name(text)
    names.rename(workspace_id, name, now)
    return name


def new_workspace_id() -> str:
    """A new workspace's id, shaped as the first key's id that names older ones (12 hex
    digits): 48 random bits, so that no two workspaces meet."""
    return secrets.token_hex(6)
