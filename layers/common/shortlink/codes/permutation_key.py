"""Where the code permutation key comes from: SSM in AWS, an explicit value in the local stack."""

from shortlink.secrets import read_secret


def load_permutation_key(inline: str, parameter: str) -> bytes:
    """The key bytes (`inline`, else SSM `parameter`'s); read on first code generation, never at
    import (SnapStart-safe)."""
    return read_secret(
        inline,
        parameter,
        ("PERMUTATION_KEY", "PERMUTATION_KEY_PARAMETER"),
        "the permutation key",
    )
