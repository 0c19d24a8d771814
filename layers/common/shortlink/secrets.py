"""A stack's secrets (the permutation key, the visitor-salt root): from SSM in AWS, through
Powertools Parameters (cached an hour), or given inline in the local stack. Read on first use,
never at import (SnapStart-safe, and nothing is fetched by a function that does not need it)."""

from shortlink.errors import ConfigurationError

MIN_SECRET_BYTES = 16


def read_secret(inline: str, parameter: str, variables: tuple[str, str], purpose: str) -> bytes:
    """`inline` if set, else the SSM SecureString `parameter`; `variables` name both settings'
    environment variables for the error message."""
    if inline:
        value = inline
    elif parameter:
        from aws_lambda_powertools.utilities.parameters import get_parameter

        value = get_parameter(parameter, decrypt=True, max_age=3600)
    else:
        inline_variable, parameter_variable = variables
        raise ConfigurationError(f"set {parameter_variable} (an SSM SecureString name) or {inline_variable}")
    if len(value.encode()) < MIN_SECRET_BYTES:
        raise ConfigurationError(f"{purpose} must be at least {MIN_SECRET_BYTES} bytes")
    return value.encode()
