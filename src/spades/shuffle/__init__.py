"""Dealing randomness: the production shuffle, verifiable dealing, shuffle models and mixing figures.

- ``spades.shuffle.fair``: ``secure_permutation``, commit-and-reveal dealing (``new_server_seed``,
  ``commitment``, ``derive_permutation``, ``verify_deal``); see ``docs/fair-dealing.md``.
- ``spades.shuffle.models``: riffle, machine pass, overhand and cut models over a list.
- ``spades.shuffle.mixing``: exact total variation, separation and bits left after k riffles.
- ``spades.shuffle.simulate``: gathered tricks, k passes, what the players would notice.
- ``spades.shuffle.cli``: the ``spades shuffle`` command (imported on demand, it needs Typer).

See ``docs/shuffle-lab.md``.
"""

from spades.shuffle.fair import (
    FairDealError,
    commitment,
    derive_permutation,
    new_server_seed,
    secure_permutation,
    verify_deal,
)

__all__ = [
    "FairDealError",
    "commitment",
    "derive_permutation",
    "new_server_seed",
    "secure_permutation",
    "verify_deal",
]
