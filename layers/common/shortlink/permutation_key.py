"""Where the code permutation key comes from: SSM in AWS, an explicit value in the local stack."""

from shortlink.config import ConfigurationError, Settings

MIN_KEY_BYTES = 16


def load_permutation_key(settings: Settings) -> bytes:
    """The key bytes; read on first code generation, never at import (SnapStart-safe)."""
    if settings.permutation_key:
        key = settings.permutation_key
    elif settings.permutation_key_parameter:
        from aws_lambda_powertools.utilities.parameters import get_parameter

        key = get_parameter(settings.permutation_key_parameter, decrypt=True, max_age=3600)
    else:
        raise ConfigurationError("set PERMUTATION_KEY_PARAMETER (an SSM SecureString name) or PERMUTATION_KEY")
    if len(key.encode()) < MIN_KEY_BYTES:
        raise ConfigurationError(f"the permutation key must be at least {MIN_KEY_BYTES} bytes")
    return key.encode()
