"""Short codes from ids: allocate an id, permute it with the key, write it in base62."""

from shortlink import base62
from shortlink.errors import CodeSpaceExhausted
from shortlink.id_blocks import IdBlockAllocator
from shortlink.permutation import FeistelPermutation


class CodeGenerator:
    def __init__(self, allocator: IdBlockAllocator, key: bytes, length: int = 7) -> None:
        self.length = length
        self._allocator = allocator
        self._permutation = FeistelPermutation(key, base62.space_size(length))

    def next_code(self) -> str:
        value = self._allocator.next_id()
        if value >= self._permutation.domain_size:
            raise CodeSpaceExhausted(f"all {self._permutation.domain_size} codes of length {self.length} are used")
        return base62.encode(self._permutation.permute(value), self.length)
