"""How new links get their codes (shortlink.codes)."""

from dataclasses import dataclass

from shortlink.settings.environment import EnvironmentModel, choice, integer, text


@dataclass(frozen=True)
class CodeSettings(EnvironmentModel):
    length: int = integer("CODE_LENGTH", 7, 4, 10)
    # "sequence": permuted ids from the counter; "random": CSPRNG codes (see shortlink.codes).
    mode: str = choice("CODE_MODE", "sequence", ("sequence", "random"))
    id_block_size: int = integer("ID_BLOCK_SIZE", 1000, 1, 1_000_000)
    # The permutation key comes from SSM in AWS; PERMUTATION_KEY is for the local stack only.
    permutation_key: str = text("PERMUTATION_KEY", secret=True)
    permutation_key_parameter: str = text("PERMUTATION_KEY_PARAMETER")
