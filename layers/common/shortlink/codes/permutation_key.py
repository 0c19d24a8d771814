"""Where the code permutation key comes from: SSM in AWS, an explicit value in the local stack."""

from shortlink.config import Settings
from shortlink.secrets import read_secret


def load_permutation_key(settings: Settings) -> bytes:
    """The key bytes; read on first code generation, never at import (SnapStart-safe)."""
    return read_secret(
        settings.permutation_key,
        settings.permutation_key_parameter,
        ("PERMUTATION_KEY", "PERMUTATION_KEY_PARAMETER"),
        "the permutation key",
    )
