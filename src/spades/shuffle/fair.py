"""Fair dealing: the production shuffle and verifiable (commit and reveal) dealing.

Two ways to get a permutation of ``range(n)``:

``secure_permutation(n)``
    Fisher-Yates driven by the operating system's secure random source (``secrets.randbelow``), for
    deals nobody needs to check afterwards. Tests may inject a seeded ``randbelow`` instead.

``derive_permutation(server_seed, client_seeds, n)``
    A deterministic permutation from a secret server seed and public client seeds. Before the deal the
    server publishes ``commitment(server_seed)``; the players add their own client seeds; after the hand
    the server reveals its seed and anyone can recompute the deal (``verify_deal``). The exact procedure,
    a worked example and a stand-alone reference implementation are in ``docs/fair-dealing.md``.

The engine deals ``[deck[i] for i in perm]`` one card at a time from the dealer's left; this module
only produces the permutations.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable, Iterator, Sequence

from spades.core.errors import SpadesError

RandBelow = Callable[[int], int]
"""A source of uniform integers: ``randbelow(m)`` returns an int in ``range(m)`` (``m >= 1``)."""

DEAL_PROTOCOL = "spades-deal/1"
"""The name and version of the derivation procedure; it is the first part of every HMAC message."""

_SEED_RE = re.compile(r"[0-9a-fA-F]{64}")

CLIENT_SEED_MAX = 64
"""The longest client seed a player may contribute, in characters."""

CLIENT_SEED_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
"""The characters a player's client seed may use: ASCII letters, digits, ``-`` and ``_``."""

BOT_SEED = "(bot)"
"""The client seed of a seat a bot plays (no player in it) when the deal is made. The parentheses are
outside ``CLIENT_SEED_CHARS``, so no player can send it: a record shows which seats contributed."""

ABSENT_SEED = "(none)"
"""The client seed of a player's seat when the player sent none in time (or was away)."""


class FairDealError(SpadesError):
    """A malformed seed or commitment, or a revealed seed that does not match its commitment."""


def secure_permutation(n: int, randbelow: RandBelow | None = None) -> list[int]:
    """A uniformly random permutation of ``range(n)`` by Fisher-Yates from the top.

    For ``i = n-1`` down to ``1`` the entry at ``i`` is swapped with the entry at ``randbelow(i + 1)``.
    ``randbelow`` defaults to ``secrets.randbelow``, which has no modulo bias; tests inject a seeded
    source such as ``random.Random(seed).randrange``.
    """
    if n < 0:
        raise ValueError(f"cannot shuffle {n} cards: the count must be 0 or more")
    draw = secrets.randbelow if randbelow is None else randbelow
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = draw(i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def new_server_seed() -> str:
    """A fresh secret server seed: 32 bytes from ``secrets`` as 64 lowercase hex digits."""
    return secrets.token_hex(32)


def check_server_seed(server_seed: str) -> bytes:
    """The 32 bytes of a server seed; raises ``FairDealError`` unless it is exactly 64 hex digits."""
    if not isinstance(server_seed, str) or not _SEED_RE.fullmatch(server_seed):
        raise FairDealError(f"{server_seed!r} is not a server seed: it must be exactly 64 hex digits")
    return bytes.fromhex(server_seed)


def check_client_seed(value: object) -> str:
    """A player's client seed as given, or ``FairDealError`` saying what is wrong with it.

    A client seed is 1 to ``CLIENT_SEED_MAX`` characters, each an ASCII letter, a digit, ``-`` or ``_``
    (a browser's default is 32 random hex digits). Nothing is trimmed or changed: the seed that is
    checked is the seed that goes into the derivation.
    """
    if not isinstance(value, str):
        raise FairDealError("a client seed must be a string of letters, digits, '-' and '_'")
    if not value:
        raise FairDealError("a client seed cannot be empty: give 1 to "
                            f"{CLIENT_SEED_MAX} letters, digits, '-' or '_'")
    if len(value) > CLIENT_SEED_MAX:
        raise FairDealError(f"a client seed may be at most {CLIENT_SEED_MAX} characters; this one has {len(value)}")
    for i, ch in enumerate(value):
        if ch not in CLIENT_SEED_CHARS:
            shown = repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"
            raise FairDealError(f"a client seed may use only letters A-Z and a-z, digits, '-' and '_': "
                                f"character {i + 1}, {shown}, is not allowed")
    return value


def commitment(server_seed: str) -> str:
    """The public commitment to a server seed: SHA-256 of the seed's 32 bytes, as 64 lowercase hex.

    The hash is over the bytes the hex digits spell (``bytes.fromhex(server_seed)``), not over the
    64 ASCII characters; so upper- and lowercase spellings of one seed commit alike.
    """
    return hashlib.sha256(check_server_seed(server_seed)).hexdigest()


def client_seeds_json(client_seeds: Sequence[str]) -> bytes:
    """The canonical encoding of the client seeds inside each HMAC message.

    A JSON array of the strings in the order given, no spaces (separators ``,`` and ``:``), every
    non-ASCII character escaped as ``\\uXXXX`` (lowercase hex, as Python's ``json.dumps`` does),
    encoded as ASCII bytes. Example: ``["alice","bob"]``.
    """
    if isinstance(client_seeds, str):
        raise FairDealError("client seeds must be a list of strings, not one string")
    seeds = list(client_seeds)
    for s in seeds:
        if not isinstance(s, str):
            raise FairDealError(f"client seed {s!r} is not a string")
    return json.dumps(seeds, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def hmac_message(client_seeds: Sequence[str], block: int) -> bytes:
    """The HMAC message of block ``block``: ``spades-deal/1:`` + client seeds JSON + ``:`` + block.

    The block number is written in decimal ASCII without leading zeros (``0``, ``1``, ``2``, ...).
    """
    return f"{DEAL_PROTOCOL}:".encode("ascii") + client_seeds_json(client_seeds) + f":{block}".encode("ascii")


def byte_stream(server_seed: str, client_seeds: Sequence[str]) -> Iterator[int]:
    """The deal's random bytes: HMAC-SHA256 blocks 0, 1, 2, ... concatenated, one byte at a time.

    Block ``b`` is ``HMAC-SHA256(key=bytes.fromhex(server_seed), msg=hmac_message(client_seeds, b))``.
    """
    # Checked here, not inside the generator, so bad input fails at once even when no byte is drawn.
    return _hmac_blocks(check_server_seed(server_seed), client_seeds_json(client_seeds))


def _hmac_blocks(key: bytes, seeds_json: bytes) -> Iterator[int]:
    block = 0
    while True:
        message = f"{DEAL_PROTOCOL}:".encode("ascii") + seeds_json + f":{block}".encode("ascii")
        yield from hmac.new(key, message, hashlib.sha256).digest()
        block += 1


def uniform_below(m: int, stream: Iterator[int]) -> int:
    """An unbiased integer in ``range(m)`` from a byte stream, by rejection sampling.

    Take ``w`` bytes, the fewest with ``256**w >= m``, read them as a big-endian integer ``x`` and
    accept it when ``x < limit``, where ``limit = 256**w - 256**w % m`` (the largest multiple of ``m``
    that fits); the result is then ``x % m``. Otherwise discard those bytes and draw ``w`` new ones.
    """
    if m < 1:
        raise ValueError(f"cannot draw below {m}: the bound must be 1 or more")
    width = 0
    while 256**width < m:
        width += 1
    span = 256**width
    limit = span - span % m
    while True:
        x = 0
        for _ in range(width):
            x = x * 256 + next(stream)
        if x < limit:
            return x % m


def derive_permutation(server_seed: str, client_seeds: Sequence[str], n: int) -> list[int]:
    """The permutation of ``range(n)`` determined by a server seed and the client seeds.

    Fisher-Yates from the top: starting from ``[0, 1, ..., n-1]``, for ``i = n-1`` down to ``1`` draw
    ``j = uniform_below(i + 1, stream)`` and swap the entries at ``i`` and ``j``, where ``stream`` is
    ``byte_stream(server_seed, client_seeds)``. See ``docs/fair-dealing.md``.
    """
    if n < 0:
        raise ValueError(f"cannot shuffle {n} cards: the count must be 0 or more")
    stream = byte_stream(server_seed, client_seeds)
    return secure_permutation(n, lambda m: uniform_below(m, stream))


def verify_deal(commitment_hex: str, server_seed: str, client_seeds: Sequence[str], n: int) -> list[int]:
    """Check a revealed server seed against its commitment and return the deal's permutation.

    Raises ``FairDealError`` naming the problem when the commitment is malformed or the seed does not
    hash to it; otherwise returns ``derive_permutation(server_seed, client_seeds, n)``.
    """
    if not isinstance(commitment_hex, str) or not _SEED_RE.fullmatch(commitment_hex):
        raise FairDealError(f"{commitment_hex!r} is not a commitment: it must be exactly 64 hex digits")
    actual = commitment(server_seed)
    if not hmac.compare_digest(actual, commitment_hex.lower()):
        raise FairDealError(
            f"the revealed server seed does not match the commitment: it hashes to {actual}, "
            f"the commitment was {commitment_hex.lower()}"
        )
    return derive_permutation(server_seed, client_seeds, n)


def dealt_cards(deck: Sequence[int], perm: Sequence[int]) -> list[int]:
    """The cards in the order they are dealt: ``[deck[i] for i in perm]`` (the engine's convention)."""
    if sorted(perm) != list(range(len(deck))):
        raise ValueError(f"not a permutation of the {len(deck)} positions of the deck")
    return [deck[i] for i in perm]
