"""`spades play`: every preset is playable to the end in the terminal by someone who reads the screen, every
phase that needs the human (bids, blind bids, team totals, forced bids, nil and blind nil passing, the
two-handed draw, the dealer's discard, misdeal calls) can be completed by typing, bad input gives one line
and changes nothing, and each hand's tricks are all shown.

The "human" here reads only what the terminal printed: the bid options, the pass/discard hint, the draw
question and the example of a legal card. Computer players are the random level, and games are short
(target 200, floor -200).
"""

from __future__ import annotations

import io
import os
import random
import re
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from spades.core.actions import Accept, Bid, Discard, Draw, Misdeal, Pass
from spades.core.game import Game
from spades.terminal import play_terminal
from spades.variants import PRESETS, load_rules

SHORT = {"target": 200, "lose_at": -200}


class Screen:
    """A console the test reads like a player: ``new()`` is what was printed since the last prompt."""

    def __init__(self) -> None:
        self.buf = io.StringIO()
        self.console = Console(file=self.buf, width=200)
        self.pos = 0

    def new(self) -> str:
        text = self.buf.getvalue()[self.pos:]
        self.pos = len(self.buf.getvalue())
        return text

    @property
    def text(self) -> str:
        return self.buf.getvalue()


def answer(screen_text: str, rng: random.Random, prefer: tuple[str, ...] = ()) -> str | None:
    """What a player types after reading the screen: a preferred option when offered, else a low bid,
    the suggested cards to pass or discard, keep or discard at the draw, or the example legal card."""
    bids = re.findall(r"^Bid: (.*)$", screen_text, flags=re.M)
    if bids:
        options = [o.split(" (")[0].strip() for o in bids[-1].split(",")]
        for p in prefer:
            if p in options:
                return p
        low = [o for o in options if o.isdigit() and int(o) <= 3]
        return rng.choice(low or options)
    picks = re.findall(r"^(?:Pass|Discard) \d cards, e\.g\. (.*)$", screen_text, flags=re.M)
    if picks:
        return picks[-1].strip()
    if "keep or discard?" in screen_text:
        return rng.choice(["keep", "discard"])
    plays = re.findall(r"Play a card \(e\.g\. (\w+)\)", screen_text)
    if plays:
        return plays[-1]
    return None


def play(spec: Any, seed: int, prefer: tuple[str, ...] = (), bad: list[str] | None = None,
         seat: int = 0) -> tuple[Game, str, int]:
    """A whole game in the terminal; returns it, the screen, and how many valid answers the human gave."""
    rules = load_rules({**SHORT, **({"preset": spec} if isinstance(spec, str) else spec)})
    screen = Screen()
    rng = random.Random(seed)
    bad = list(bad or [])
    state = {"valid": 0, "last": ""}

    def ask(_prompt: str) -> str:
        text = screen.new()
        reply = answer(text, rng, prefer)
        if reply is None:  # after an error line the position above still stands
            reply = answer(state["last"], rng, prefer)
        else:
            state["last"] = text
        assert reply is not None, text
        if bad:
            return bad.pop(0)
        state["valid"] += 1
        return reply

    game = play_terminal(rules, seat=seat, seed=seed, level="random", console=screen.console, ask=ask)
    return game, screen.text, state["valid"]


def human_actions(game: Game, seat: int = 0) -> list[Any]:
    return [a for h in game.hands for a in h.actions if a.seat == seat]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_plays_to_the_end(preset: str) -> None:
    game, text, valid = play(preset, seed=3)
    assert game.over and game.winner is not None
    assert "Game over. Winner:" in text
    # Every hand's last trick is shown before the score (the next hand is dealt at once).
    size = game.rules.layout.hand_size
    scored = [r for r in game.results if not r.misdeal]
    assert text.count(f"Trick {size}:") == len(scored)
    assert text.count("Hand over.") == len(scored)
    # Each answer was one action of the human's (Look and Accept are typed too).
    assert len(human_actions(game)) == valid


PHASES: list[tuple[str, Any, tuple[str, ...], Callable[[Any], bool]]] = [
    ("two-handed draw", "two-handed", (), lambda a: isinstance(a, Draw)),
    ("dealer's discard", "jokers-54", (), lambda a: isinstance(a, Discard)),
    ("nil, then the nil pass", {"nil_pass": 3}, ("nil",), lambda a: isinstance(a, Pass) and len(a.cards) == 3),
    ("blind nil, then the blind pass", "casual", ("blind nil",), lambda a: isinstance(a, Pass)),
    ("blind 6", {"blind_bids": True, "blind_behind": 0}, ("blind 6",),
     lambda a: isinstance(a, Bid) and a.value.blind and a.value.tricks == 6),
    ("team bidding: accept the partner's total", {"team_bidding": True}, ("accept",),
     lambda a: isinstance(a, Accept)),
    ("suicide: the nil", "suicide", ("nil",), lambda a: isinstance(a, Bid) and a.value.is_nil),
    ("mirror: the spade count", "mirror", (), lambda a: isinstance(a, Bid)),
    ("whiz: nil", "whiz", ("nil",), lambda a: isinstance(a, Bid) and a.value.is_nil),
    ("six-handed nil pass", {"preset": "six-handed", "nil_pass": 1}, ("nil",), lambda a: isinstance(a, Pass)),
]


@pytest.mark.parametrize(("what", "spec", "prefer", "done"), PHASES, ids=[p[0] for p in PHASES])
def test_the_human_completes_each_phase(what: str, spec: Any, prefer: tuple[str, ...],
                                         done: Callable[[Any], bool]) -> None:
    # seed 0: seat 0 (the human) deals the first hand, so it discards in jokers-54.
    for seed in range(0, 40, 4):
        game, _, _ = play(spec, seed, prefer)
        assert game.over and game.winner is not None
        if any(done(a) for a in human_actions(game)):
            return
    pytest.fail(f"the human never got to {what}")


def test_a_misdeal_call_by_the_human_redeals() -> None:
    for seed in range(40):
        game, text, _ = play({"misdeal": True}, seed, prefer=("misdeal",))
        calls = [r for r, h in zip(game.results, game.hands, strict=True)
                 if r.misdeal and any(isinstance(a, Misdeal) and a.seat == 0 for a in h.actions)]
        if calls:
            assert "Misdeal called: the same dealer deals again." in text
            i = game.results.index(calls[0])
            assert game.hands[i + 1].dealer == game.hands[i].dealer
            return
    pytest.fail("the human never held a hand that may call a misdeal")


def test_a_timed_game_ends_after_the_hand_in_which_the_time_runs_out() -> None:
    # The clock is injected: a minute passes at each of the human's answers (a bid and 13 cards a hand), and
    # the game has 20.
    rules = load_rules({"time_limit_minutes": 20, "target": 10000, "lose_at": -10000})
    now = [0.0]
    screen = Screen()
    rng = random.Random(4)

    def ask(_prompt: str) -> str:
        now[0] += 60
        reply = answer(screen.new(), rng)
        assert reply is not None
        return reply

    game = play_terminal(rules, seat=0, seed=4, level="random", console=screen.console, ask=ask, clock=lambda: now[0])
    assert game.over and game.winner is not None
    # 14 minutes after the first hand, 28 after the second: the time ran out in the second hand.
    tied = [i for i, r in enumerate(game.results) if i >= 1 and len(set(_totals(game, i + 1))) == 1]
    assert len(game.results) == 2 + len(tied)
    assert "Time left: 6:00" in screen.text
    assert "Time is up" in screen.text


def _totals(game: Game, hands: int) -> list[int]:
    t = [0] * len(game.totals)
    for r in game.results[:hands]:
        t = [a + s.points for a, s in zip(t, r.sides, strict=True)]
    return t


def test_passed_cards_are_shown_to_the_receiver_only() -> None:
    game, text, _ = play({"nil_pass": 2}, 1, prefer=("nil",))
    mine = [(giver, cards) for h in game.hands for giver, to, cards in h.passes if to == 0]
    assert mine
    assert "Seat 2 passed you:" in text
    # The bots' exchange between seats 1 and 3 is announced without its cards.
    others = [p for h in game.hands for p in h.passes if 0 not in p[:2]]
    if others:
        assert re.search(r"Seat [13] passes cards face down to Seat [13]", text)


@pytest.mark.parametrize("junk", ["zz", "14", "blind 2", "", "qq", "keep keep", "2C 2C 2C"])
def test_bad_input_is_one_line_and_changes_nothing(junk: str) -> None:
    game, text, valid = play("standard", 2, bad=[junk, junk, "hint?"])
    errors = [ln for ln in text.splitlines() if ln and not ln.startswith(("Seat", "Trick", "Bid", "Your", "Play",
                                                                          "Hand over", "Game over", "Type", "Spades",
                                                                          "Pass", "Misdeal", "You", "Top"))]
    assert len(errors) >= 3, text[:2000]
    assert "Traceback" not in text
    # Only the valid answers acted: the rejected lines changed nothing.
    assert len(human_actions(game)) == valid
    assert game.over


def test_spades_play_through_a_pipe() -> None:
    # The real command, its stdin a pipe: a short two-handed game (the draw, the bids, the play) to the end.
    exe = Path(sys.executable).with_name("spades")
    proc = subprocess.Popen([str(exe), "play", "--rules", "two-handed", "--set", "target=100", "--set", "lose_at=-100",
                             "--seed", "7", "--level", "random"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "200"})
    assert proc.stdin is not None and proc.stdout is not None
    rng = random.Random(7)
    seen = b""
    last = ""
    answers = 0
    try:
        while True:
            ready, _, _ = select.select([proc.stdout], [], [], 60)
            assert ready, f"no output for 60 s after: {seen[-500:]!r}"
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            seen += chunk
            if seen.endswith(b"> "):
                text = seen.decode()
                reply = answer(text, rng) or answer(last, rng)
                last = text if answer(text, rng) else last
                assert reply is not None, text
                proc.stdin.write(reply.encode() + b"\n")
                proc.stdin.flush()
                answers += 1
                seen = b""
                assert answers < 2000
    finally:
        proc.kill() if proc.poll() is None else None
    assert proc.wait(30) == 0
    assert b"Game over. Winner:" in seen
    assert b"Trick 13:" in seen


@pytest.mark.parametrize(("spec", "dealer", "want"), [("casual", 3, "Hint:[/] look - "),
                                                       ("two-handed", 1, "Hint:[/] draw "),
                                                       ("jokers-54", 0, "Hint:[/] discard ")])
def test_the_hint_names_the_action_as_it_is_typed(spec: str, dealer: int, want: str) -> None:
    from spades.core.game import seeded_shuffler
    from spades.terminal import hint_text

    game = Game(load_rules(spec), first_dealer=dealer, shuffler=seeded_shuffler(3))
    text = hint_text(game, game.hand.to_act)
    assert want in text and "True" not in text
