"""The production shuffle and commit-and-reveal dealing: exact, non-statistical properties."""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Iterator

import pytest

from spades.shuffle.fair import (
    FairDealError,
    byte_stream,
    check_server_seed,
    client_seeds_json,
    commitment,
    dealt_cards,
    derive_permutation,
    hmac_message,
    new_server_seed,
    secure_permutation,
    uniform_below,
    verify_deal,
)

SEED = bytes(range(32)).hex()


def test_secure_permutation_is_a_permutation() -> None:
    for n in (0, 1, 2, 52, 54, 104):
        perm = secure_permutation(n)
        assert sorted(perm) == list(range(n))


def test_secure_permutation_rejects_negative_counts() -> None:
    with pytest.raises(ValueError, match="-1"):
        secure_permutation(-1)


def test_injected_randbelow_makes_it_repeatable() -> None:
    a = secure_permutation(52, random.Random(7).randrange)
    b = secure_permutation(52, random.Random(7).randrange)
    c = secure_permutation(52, random.Random(8).randrange)
    assert a == b
    assert a != c


def _all_draw_sequences(n: int) -> Iterator[list[int]]:
    # Fisher-Yates from the top asks for randbelow(n), randbelow(n - 1), ..., randbelow(2).
    yield from (list(t) for t in itertools.product(*(range(m) for m in range(n, 1, -1))))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_fisher_yates_maps_draws_one_to_one_onto_permutations(n: int) -> None:
    # Every sequence of draws is equally likely, so uniform draws give uniform permutations exactly
    # when the n! draw sequences give n! different permutations.
    seen = set()
    for draws in _all_draw_sequences(n):
        it = iter(draws)
        asked: list[int] = []

        def rb(m: int, it: Iterator[int] = it, asked: list[int] = asked) -> int:
            asked.append(m)
            return next(it)

        seen.add(tuple(secure_permutation(n, rb)))
        assert asked == list(range(n, 1, -1))
    assert len(seen) == len(list(itertools.permutations(range(n))))


def test_new_server_seed_is_64_hex_digits_and_fresh() -> None:
    seeds = {new_server_seed() for _ in range(20)}
    assert len(seeds) == 20
    for s in seeds:
        assert len(s) == 64
        assert int(s, 16) >= 0
        assert s == s.lower()


def test_commitment_is_sha256_of_the_seed_bytes() -> None:
    assert commitment("00" * 32) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    assert commitment(SEED) == hashlib.sha256(bytes(range(32))).hexdigest()
    assert commitment(SEED.upper()) == commitment(SEED)


@pytest.mark.parametrize("bad", ["", "00" * 31, "00" * 33, "zz" * 32, " " + "00" * 32, "00" * 31 + " 0"])
def test_malformed_server_seeds_are_refused(bad: str) -> None:
    with pytest.raises(FairDealError, match="64 hex digits"):
        check_server_seed(bad)
    with pytest.raises(FairDealError):
        derive_permutation(bad, [], 1)  # refused even when no byte is needed


def test_client_seeds_json_is_canonical() -> None:
    assert client_seeds_json(["alice", "bob"]) == b'["alice","bob"]'
    assert client_seeds_json([]) == b"[]"
    assert client_seeds_json(['quo"te', "back\\slash", "é", "🂡"]) == (
        b'["quo\\"te","back\\\\slash","\\u00e9","\\ud83c\\udca1"]'
    )
    assert hmac_message(["a"], 12) == b'spades-deal/1:["a"]:12'
    with pytest.raises(FairDealError, match="list of strings"):
        client_seeds_json("alice")
    with pytest.raises(FairDealError, match="not a string"):
        client_seeds_json(["alice", 3])  # type: ignore[list-item]


def test_uniform_below_rejects_exactly_the_biased_tail() -> None:
    # One byte per draw for m <= 256: each value below the limit is accepted, the rest re-drawn.
    for m in range(1, 257):
        limit = 256 - 256 % m
        hits = [0] * m
        for x in range(256):
            stream = iter([x, 0])
            r = uniform_below(m, stream)
            if x < limit:
                assert r == x % m
                hits[r] += 1
                if m > 1:
                    assert next(stream) == 0  # the second byte was left alone
            else:
                assert r == 0  # drawn from the next byte
        assert set(hits) == {limit // m}


def test_uniform_below_takes_two_bytes_above_256() -> None:
    m = 300
    limit = 65536 - 65536 % m
    hits = [0] * m
    for hi in range(256):
        for lo in range(256):
            x = hi * 256 + lo
            if x < limit:
                r = uniform_below(m, iter([hi, lo]))
                assert r == x % m
                hits[r] += 1
    assert set(hits) == {limit // m}
    assert uniform_below(m, iter([255, 255, 1, 44])) == (256 + 44) % m  # 65535 rejected


def test_uniform_below_one_needs_no_bytes() -> None:
    assert uniform_below(1, iter([])) == 0
    with pytest.raises(ValueError):
        uniform_below(0, iter([1]))


def test_byte_stream_is_hmac_blocks() -> None:
    import hmac

    stream = byte_stream(SEED, ["x"])
    first = bytes(next(stream) for _ in range(64))
    key = bytes(range(32))
    assert first[:32] == hmac.new(key, b'spades-deal/1:["x"]:0', "sha256").digest()
    assert first[32:] == hmac.new(key, b'spades-deal/1:["x"]:1', "sha256").digest()


def test_derive_permutation_is_deterministic_and_depends_on_every_input() -> None:
    base = derive_permutation(SEED, ["alice", "bob"], 52)
    assert sorted(base) == list(range(52))
    assert derive_permutation(SEED, ["alice", "bob"], 52) == base
    assert derive_permutation(SEED.upper(), ["alice", "bob"], 52) == base
    assert derive_permutation(SEED, ["bob", "alice"], 52) != base
    assert derive_permutation(SEED, ["alice", "bob", ""], 52) != base
    assert derive_permutation("ff" + SEED[2:], ["alice", "bob"], 52) != base
    assert derive_permutation(SEED, ["alice", "bob"], 0) == []
    assert derive_permutation(SEED, ["alice", "bob"], 1) == [0]
    big = derive_permutation(SEED, ["alice"], 300)  # draws of two bytes
    assert sorted(big) == list(range(300))


def test_verify_deal_accepts_the_true_seed_and_refuses_another() -> None:
    c = commitment(SEED)
    assert verify_deal(c, SEED, ["a", "b"], 52) == derive_permutation(SEED, ["a", "b"], 52)
    assert verify_deal(c.upper(), SEED, ["a", "b"], 52) == derive_permutation(SEED, ["a", "b"], 52)
    other = "11" * 32
    with pytest.raises(FairDealError, match="does not match the commitment"):
        verify_deal(c, other, ["a", "b"], 52)
    with pytest.raises(FairDealError, match="not a commitment"):
        verify_deal("abc", SEED, ["a", "b"], 52)


def test_dealt_cards_follow_the_engine_convention() -> None:
    deck = (5, 6, 7, 8)
    assert dealt_cards(deck, [2, 0, 3, 1]) == [7, 5, 8, 6]
    with pytest.raises(ValueError):
        dealt_cards(deck, [0, 0, 1, 2])
