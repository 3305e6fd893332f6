"""Side by side: random full hands on spades' engine and on OpenSpiel's C++ spades, both from Python.

Run: ``.venv/bin/pip install -e '.[bench]' && .venv/bin/python benchmarks/engine_vs_openspiel.py``

Both do the same work per hand: shuffle, deal 52 cards, four bids, 52 random legal plays, scoring.
Both deal from the same shuffle (``--shuffle keys``: a sort by one ``random()`` per card, the source
of every other pick, as OpenSpiel's chance sampling uses one uniform double per outcome; ``--shuffle
random``: ``random.shuffle``), pick the dealer, each bid among the legal bids and each card by
``int(random() * k)``. Our side is ``spades.bench.random_hand`` (``Hand()``, ``legal_actions()`` and
``apply_unchecked`` for the bids, ``play_out_random``, ``score_hand``); OpenSpiel's is 52 chance
actions, then ``legal_actions()`` and ``apply_action()`` to the end, then ``returns()``.
They run interleaved in rounds in one process, so machine noise hits both alike; the figure to read
is the ratio. Rounds are timed in this process's CPU time by default (``--clock wall`` for wall-clock
time): on a loaded machine the wall clock also counts the time other jobs hold the core. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from spades.bench import Shuffle, random_hand, shuffled, std_shuffled
from spades.core import Rules

_DECK = tuple(range(52))
"""OpenSpiel's deal actions: card c goes to the next seat. Dealt in the order ``shuffled`` gives."""


def openspiel_hands(game: Any, count: int, rng: random.Random, shuffle: Shuffle) -> None:
    """``count`` random hands on OpenSpiel: 52 chance deals, then random legal actions to the end."""
    rand = rng.random
    for _ in range(count):
        state = game.new_initial_state()
        for card in shuffle(_DECK, rng):
            state.apply_action(card)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rand() * len(legal))])
        state.returns()


def spades_hands(rules: Rules, count: int, rng: random.Random, shuffle: Shuffle) -> None:
    """``count`` random hands on this engine's fast path."""
    for _ in range(count):
        random_hand(rules, rng, shuffle)


def main() -> None:
    """Interleave rounds of both and print hands per second and the ratio."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=2000, help="hands per round per engine")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="time rounds in process CPU time (default) or wall-clock time")
    ap.add_argument("--shuffle", choices=("keys", "random"), default="keys",
                    help="both engines deal from: a sort by one random() per card (default), or random.shuffle")
    args = ap.parse_args()
    shuffle = shuffled if args.shuffle == "keys" else std_shuffled
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game("spades")
    rules = Rules()
    rng = random.Random(1)
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(args.rounds):
        t = clock()
        spades_hands(rules, args.hands, rng, shuffle)
        ours.append(args.hands / (clock() - t))
        t = clock()
        openspiel_hands(game, args.hands, rng, shuffle)
        theirs.append(args.hands / (clock() - t))
    a, b = statistics.median(ours), statistics.median(theirs)
    print(json.dumps({"spades_hands_per_second": round(a), "openspiel_hands_per_second": round(b),
                      "ratio": round(a / b, 3),
                      # each round's ratio shows how far the machine's load moved the figure
                      "round_ratios": [round(x / y, 3) for x, y in zip(ours, theirs, strict=True)],
                      "rounds": args.rounds, "hands_per_round": args.hands,
                      "clock": args.clock, "shuffle": args.shuffle}))


if __name__ == "__main__":
    main()
