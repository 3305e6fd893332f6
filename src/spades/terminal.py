"""``spades play``: a game against the computer in the terminal.

The human's seat is shown its view only (``spades.core.view``); the hand is sorted clubs, diamonds,
spades, hearts (colours alternate), high to low, and the cards that may be played now are marked.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from rich.console import Console

from spades.ai import make_bot
from spades.core.actions import Accept, Action, Bid, Discard, Draw, Look, Misdeal, Pass, Play
from spades.core.cards import card_name, card_text, parse_face
from spades.core.errors import SpadesError
from spades.core.game import Game, seeded_shuffler
from spades.core.hand import Hand, Phase
from spades.core.record import parse_bid
from spades.core.rules import Rules
from spades.core.view import HandView, view_hand

SUIT_ORDER = {0: 0, 1: 1, 3: 2, 2: 3, 4: 2}
"""Display order of effective suits: clubs, diamonds, spades, hearts (jokers with spades)."""
SUIT_SYMBOL = "♣♦♥♠"
COLOUR = {0: "white", 1: "red", 2: "red", 3: "white"}


def sort_for_display(rules: Rules, cards: tuple[int, ...]) -> list[int]:
    """Clubs, diamonds, spades, hearts; high to low within each (top trumps first among spades)."""
    lay = rules.layout
    return sorted(cards, key=lambda c: (SUIT_ORDER[lay.effective_suit[c]], -lay.power[c], c))


def pretty(card: int) -> str:
    """A card with its suit symbol and colour, as rich markup."""
    t = card_text(card)
    if t in ("BJ", "LJ"):
        return f"[bold magenta]{t}[/]"
    suit = "CDHS".index(t[1])
    rank = "10" if t[0] == "T" else t[0]
    return f"[{COLOUR[suit]}]{rank}{SUIT_SYMBOL[suit]}[/]"


def parse_command(text: str, v: HandView) -> Action:
    """Turn what the player typed into one of their legal actions, or raise ``SpadesError``."""
    seat = v.seat
    assert seat is not None
    t = text.strip().lower()
    if not t:
        raise SpadesError("type something: a card like 'qs', a bid like '3' or 'nil'")
    if v.phase is Phase.PLAY:
        face = parse_face(t)
        for a in v.legal:
            if isinstance(a, Play) and a.card % 54 == face:
                return a
        held = [c for c in v.hand or () if c % 54 == face]
        if not held:
            raise SpadesError(f"the {card_name(face)} is not in your hand")
        return Play(seat, held[0])  # illegal: the engine's check says why (follow suit, spades not broken...)
    if v.phase is Phase.BID:
        if t in ("look", "l"):
            return Look(seat)
        if t in ("misdeal", "m"):
            return Misdeal(seat)
        if t in ("accept", "a"):
            return Accept(seat)
        return Bid(seat, parse_bid(t))
    if v.phase in (Phase.EXCHANGE, Phase.DISCARD):
        faces = [parse_face(x) for x in t.replace(",", " ").split()]
        hand = list(v.hand or ())
        picked = []
        for f in faces:
            match = next((c for c in hand if c % 54 == f and c not in picked), None)
            if match is None:
                raise SpadesError(f"{card_text(f)} is not in your hand")
            picked.append(match)
        cls = Pass if v.phase is Phase.EXCHANGE else Discard
        return cls(seat, tuple(picked))
    if v.phase is Phase.DRAW:
        if t in ("keep", "k"):
            return Draw(seat, True)
        if t in ("discard", "d"):
            return Draw(seat, False)
        raise SpadesError("type keep or discard")
    raise SpadesError("nothing to do now")


def play_terminal(rules: Rules, seat: int, seed: int | None, level: str, console: Console,
                  ask: Callable[[str], str] = input, clock: Callable[[], float] | None = None) -> Game:
    """Play one game with the human in ``seat`` and computer players elsewhere. ``clock`` (seconds, default
    ``time.monotonic``) times a game with ``time_limit_minutes``."""
    seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
    n = rules.layout.n
    bots = {s: make_bot(level, seed + s) for s in range(n) if s != seat}
    clock = (clock or time.monotonic) if rules.time_limit_minutes else None
    game = Game(rules, first_dealer=seed % n, shuffler=seeded_shuffler(seed), clock=clock)
    names = ["You" if s == seat else f"Seat {s}" for s in range(n)]
    console.print("Type ? (or hint) at your turn for the computer's suggestion.")
    console.print(f"[bold]Spades[/] - you are seat {seat}; sides: "
                  + ", ".join("+".join(names[s] for s in side) for side in rules.layout.sides))
    seen_results = 0
    shown_tricks = 0
    shown_passes = 0
    while not game.over:
        hand = game.hand
        v = view_hand(hand, seat)
        for giver, receiver, cards in v.passes[shown_passes:]:
            # The cards handed to the human, as they would pick them up at the table (others' passes stay
            # face down: the view gives their cards only to the two seats of the exchange).
            if receiver == seat and cards is not None:
                shown = " ".join(pretty(c) for c in sort_for_display(rules, cards))
                console.print(f"{names[giver]} passed you: {shown}")
            elif giver != seat:
                console.print(f"{names[giver]} passes cards face down to {names[receiver]}")
        shown_passes = len(v.passes)
        shown_tricks = _show_tricks(console, hand, shown_tricks, names)
        if hand.to_act == seat:
            show(console, v, names)
            while True:
                try:
                    text = ask("> ")
                    if text.strip().lower() in ("?", "hint"):
                        console.print(hint_text(game, seat))
                        continue
                    game.apply(parse_command(text, v))
                    break
                except SpadesError as e:
                    console.print(f"[yellow]{e}[/]")
        elif not hand.is_over:
            bot = bots[hand.to_act]
            d = bot.decide(view_hand(hand, hand.to_act), tuple(game.totals), None, tuple(game.bags))
            game.apply(d.action)
            if isinstance(d.action, Bid):
                console.print(f"{names[d.action.seat]} bids {d.action.value.text()}")
            elif isinstance(d.action, Accept):
                console.print(f"{names[d.action.seat]} lets the side's total stand")
            elif isinstance(d.action, Misdeal):
                console.print(f"{names[d.action.seat]} calls a misdeal")
            elif isinstance(d.action, Discard):
                console.print(f"{names[d.action.seat]} (the dealer) discards {len(d.action.cards)} cards face down")
        if len(game.results) > seen_results:
            res = game.results[seen_results]
            # The next hand is dealt as soon as one ends: show the finished hand's last trick(s) first.
            _show_tricks(console, game.hands[seen_results], shown_tricks, names)
            seen_results += 1
            shown_tricks = 0
            shown_passes = 0
            if res.misdeal:
                console.print("[bold]Misdeal called: the same dealer deals again.[/]")
                continue
            console.print("[bold]Hand over.[/] " + "; ".join(
                f"{'+'.join(names[s] for s in side)}: {sc.points:+d} (total {tot}, bags {sc.bags_total})"
                for side, sc, tot in zip(rules.layout.sides, res.sides, _running(game, seen_results), strict=True)))
            if clock is not None and rules.time_limit_minutes is not None:
                left = 60 * rules.time_limit_minutes - (clock() - game.started_at)
                console.print(f"Time left: {int(left) // 60}:{int(left) % 60:02d}" if left > 0 else
                              "Time is up: the game ends with this hand unless first place is tied.")
    assert game.winner is not None
    console.print("[bold]Game over.[/] Winner: " + "+".join(names[s] for s in rules.layout.sides[game.winner]))
    return game


def _show_tricks(console: Console, hand: Hand, shown: int, names: list[str]) -> int:
    """Print the hand's tricks from number ``shown`` on; returns how many are shown now."""
    for i, t in enumerate(hand.tricks[shown:], start=shown + 1):
        cards = "  ".join(f"{names[s]}: {pretty(c)}" for s, c in t.cards)
        console.print(f"Trick {i}: {cards}  -> [bold]{names[t.winner]}[/]")
    return max(shown, len(hand.tricks))


def hint_text(game: Game, seat: int) -> str:
    """The computer's suggestion for the human's seat (the ``?`` key), as one line."""
    from spades.ai.suggest import suggest
    from spades.core.view import action_to_dict

    _, d = suggest(game, "expert", seed=len(game.hand.actions), budget=0.25, seat=seat)
    shape = action_to_dict(d.action)
    # As the player would type it: "look", "misdeal", "accept", "bid 3", "pass 2C 7D", "draw keep", "play QS".
    what = "; ".join(k if v is True else f"{k} {' '.join(v) if isinstance(v, list) else v}"
                     for k, v in shape.items() if k != "seat")
    return f"[cyan]Hint:[/] {what} - {d.reason}"


def _running(game: Game, upto: int) -> list[int]:
    tot = [0] * len(game.totals)
    for res in game.results[:upto]:
        for k, s in enumerate(res.sides):
            tot[k] += s.points
    return tot


def show(console: Console, v: HandView, names: list[str]) -> None:
    """Print the position for the human: bids, the trick so far, and the sorted hand."""
    bids = ", ".join(f"{names[s]}: {b.text() if b else '-'}" for s, b in enumerate(v.bids))
    console.print(f"[dim]Bids[/] {bids}   [dim]Tricks[/] {list(v.tricks_taken)}")
    if v.current:
        console.print("Trick: " + "  ".join(f"{names[s]}: {pretty(c)}" for s, c in v.current))
    legal_faces = {a.card for a in v.legal if isinstance(a, Play)}
    if v.hand is not None:
        shown = []
        for c in sort_for_display(v.rules, v.hand):
            mark = pretty(c) if v.phase is not Phase.PLAY or c in legal_faces or c - 54 in legal_faces \
                else f"[dim strike]{card_text(c)}[/]"
            shown.append(mark)
        console.print("Your hand: " + " ".join(shown))
    else:
        console.print("Your cards are face down.")
    if v.phase is Phase.BID:
        options = []
        for a in v.legal:
            if isinstance(a, Bid):
                options.append(a.value.text())
            elif isinstance(a, Look):
                options.append("look")
            elif isinstance(a, Misdeal):
                options.append("misdeal")
            elif isinstance(a, Accept):
                options.append("accept (let partner's total stand)")
        console.print("Bid: " + ", ".join(options))
    elif v.phase is Phase.PLAY:
        console.print("Play a card (e.g. " + card_text(min(legal_faces)) + "); dimmed cards may not be played")
    elif v.phase in (Phase.EXCHANGE, Phase.DISCARD):
        k = len(next(a for a in v.legal if isinstance(a, Pass | Discard)).cards)
        console.print(f"{'Pass' if v.phase is Phase.EXCHANGE else 'Discard'} {k} cards, e.g. "
                      + " ".join(card_text(c) for c in (v.hand or ())[:k]))
    elif v.phase is Phase.DRAW:
        assert v.top_card is not None
        console.print(f"Top card: {pretty(v.top_card)} - keep or discard?")
