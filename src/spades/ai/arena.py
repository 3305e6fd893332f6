"""Bot-versus-bot matches on duplicate deals, and decision-time figures.

Duplicate: each game is played twice from the same shuffler seed, the second time with the levels'
seats swapped, so both levels hold the same cards. The difference per hand (A minus B) is measured on
pairs of hands dealt alike, which cancels most of the luck of the deal; the 95% interval treats
each pair as one observation.

With partners, level A holds the even sides (seats 0 and 2 in a four-player game) and B the odd
ones, then they swap; in solo games A holds the even seats. A side's points per hand are averaged
over the sides a level holds.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from spades.ai.base import Bot, make_bot
from spades.ai.bots import DEFAULT_BUDGET, ExpertBot, IsmctsBot
from spades.core.game import Game, seeded_shuffler
from spades.core.rules import Rules
from spades.core.view import view_hand

MAX_HANDS_PER_GAME = 60
"""A guard against games that never end (bots bidding badly under odd rules)."""


def build_bot(level: str, seed: int, budget: float | None = None, cpu_clock: bool = False) -> Bot:
    """A bot of ``level``; ``budget`` (seconds a card) applies to the searching levels, counted on the
    thread's CPU clock with ``cpu_clock`` (so a busy machine starves neither searcher)."""
    if level in ("expert", "ismcts") and (budget is not None or cpu_clock):
        b = DEFAULT_BUDGET if budget is None else budget
        clock = time.thread_time if cpu_clock else time.monotonic
        if level == "expert":
            return ExpertBot(seed, budget=b, clock=clock)
        return IsmctsBot(seed, budget=b, clock=clock)
    return make_bot(level, seed)


@dataclass
class LevelStats:
    """One level's results over a match."""

    hands: int = 0
    points: int = 0
    contracts: int = 0
    made: int = 0
    bags: int = 0
    side_hands: int = 0
    nils: int = 0
    nils_made: int = 0
    games: int = 0
    wins: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON figures."""
        return {
            "hands": self.hands,
            "points_per_hand": round(self.points / self.side_hands, 2) if self.side_hands else 0.0,
            "games": self.games,
            "game_wins": self.wins,
            "make_rate": round(self.made / self.contracts, 4) if self.contracts else None,
            "bags_per_hand": round(self.bags / self.side_hands, 3) if self.side_hands else 0.0,
            "nil_bids": self.nils,
            "nil_success": round(self.nils_made / self.nils, 4) if self.nils else None,
        }


@dataclass
class GameLog:
    """Per-hand A-minus-B points of one game, and who won it."""

    diffs: list[float] = field(default_factory=list)
    winner_is_a: bool | None = None


def play_game(rules: Rules, a_level: str, b_level: str, a_even: bool, seed: int, stats: dict[str, LevelStats],
              budget: float | None = None, max_hands: int = MAX_HANDS_PER_GAME,
              timer: Callable[[str, float, float], None] | None = None, cpu_clock: bool = False) -> GameLog:
    """One game with A on the even sides (``a_even``) or the odd ones; updates ``stats``."""
    lay = rules.layout
    n = lay.n
    a_sides = {i for i in range(lay.sides_count) if (i % 2 == 0) == a_even}
    level_of_seat = [a_level if lay.side_of[s] in a_sides else b_level for s in range(n)]
    bots = [build_bot(level_of_seat[s], seed * 101 + s, budget, cpu_clock) for s in range(n)]
    clock = (lambda: 0.0) if rules.time_limit_minutes else None
    game = Game(rules, first_dealer=seed % n, shuffler=seeded_shuffler(seed), clock=clock)
    log = GameLog()
    seen = 0
    while not game.over and len(game.results) < max_hands:
        hand = game.hand
        seat = hand.to_act
        v = view_hand(hand, seat)
        c0 = time.thread_time()
        t0 = time.perf_counter()
        d = bots[seat].decide(v, tuple(game.totals), None, tuple(game.bags))
        if timer is not None:
            timer(level_of_seat[seat], time.perf_counter() - t0, time.thread_time() - c0)
        game.apply(d.action)
        while len(game.results) > seen:
            res = game.results[seen]
            seen += 1
            if res.misdeal:
                continue
            a_pts: list[int] = []
            b_pts: list[int] = []
            for i, sc in enumerate(res.sides):
                st = stats["A" if i in a_sides else "B"]
                (a_pts if i in a_sides else b_pts).append(sc.points)
                st.side_hands += 1
                st.points += sc.points
                st.bags += sc.bags
                if sc.made is not None and sc.contract > 0:
                    st.contracts += 1
                    st.made += bool(sc.made)
            for side_stats in stats.values():
                side_stats.hands += 1
            if res.bids is not None:
                for s, b in enumerate(res.bids):
                    if b is not None and b.is_nil:
                        st = stats["A" if lay.side_of[s] in a_sides else "B"]
                        st.nils += 1
                        st.nils_made += res.tricks[s] == 0
            if a_pts and b_pts:
                log.diffs.append(sum(a_pts) / len(a_pts) - sum(b_pts) / len(b_pts))
    for st in stats.values():
        st.games += 1
    if game.winner is not None:
        log.winner_is_a = game.winner in a_sides
        stats["A" if log.winner_is_a else "B"].wins += 1
    return log


def run_arena(rules: Rules, a_level: str, b_level: str, deals: int, seed: int = 1, budget: float | None = None,
              progress: Callable[[int, int], None] | None = None,
              timer: Callable[[str, float, float], None] | None = None, cpu_clock: bool = False) -> dict[str, Any]:
    """Play duplicate games until ``deals`` hands have been played twice; the arena's JSON figures.

    ``cpu_clock``: the searching levels count their budget in CPU time (see ``build_bot``)."""
    stats = {"A": LevelStats(), "B": LevelStats()}
    pairs: list[float] = []
    g = 0
    idle = 0
    while len(pairs) < deals and idle < 5:
        game_seed = seed * 1_000_003 + g
        g += 1
        left = deals - len(pairs)
        first = play_game(rules, a_level, b_level, True, game_seed, stats, budget, min(MAX_HANDS_PER_GAME, left),
                          timer, cpu_clock)
        second = play_game(rules, a_level, b_level, False, game_seed, stats, budget, len(first.diffs) or 1, timer,
                           cpu_clock)
        before = len(pairs)
        for x, y in zip(first.diffs, second.diffs, strict=False):
            pairs.append((x + y) / 2)
        idle = idle + 1 if len(pairs) == before else 0
        if progress is not None:
            progress(min(len(pairs), deals), deals)
    out = _result(a_level, b_level, len(pairs), math.fsum(pairs), math.fsum(x * x for x in pairs), stats)
    out["budget"] = DEFAULT_BUDGET if budget is None else budget  # the searching levels' seconds a card
    out["clock"] = "cpu" if cpu_clock else "wall"
    return out


def _result(a_level: str, b_level: str, n: int, total: float, total_sq: float,
            stats: dict[str, LevelStats]) -> dict[str, Any]:
    """The arena's JSON from the pair sums and the levels' counts (also used to merge runs)."""
    mean = total / n if n else 0.0
    if n > 1:
        var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
        half = 1.96 * math.sqrt(var / n)
    else:
        half = float("inf")
    return {
        "a": a_level,
        "b": b_level,
        "deals": n,
        "hands_played": stats["A"].hands,
        "diff_per_hand": round(mean, 2),
        "ci95": [round(mean - half, 2), round(mean + half, 2)],
        "a_stats": stats["A"].to_dict(),
        "b_stats": stats["B"].to_dict(),
        "games": stats["A"].games,
        "pairs": {"n": n, "sum": total, "sum_sq": total_sq},
        "counts": {"A": asdict(stats["A"]), "B": asdict(stats["B"])},
    }


def merge_arenas(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One arena result from several runs of the same match on disjoint deals (e.g. different seeds run
    in parallel): the pairs and counts are pooled, so the interval is the one a single run would give."""
    if not results:
        raise ValueError("nothing to merge")
    a, b = results[0]["a"], results[0]["b"]
    n = 0
    total = 0.0
    total_sq = 0.0
    stats = {"A": LevelStats(), "B": LevelStats()}
    for r in results:
        if (r.get("a"), r.get("b")) != (a, b):
            raise ValueError(f"cannot merge {r.get('a')} vs {r.get('b')} into {a} vs {b}")
        if "pairs" not in r or "counts" not in r:
            raise ValueError("a result without its pair sums and counts (made before merging was possible)")
        n += int(r["pairs"]["n"])
        total += float(r["pairs"]["sum"])
        total_sq += float(r["pairs"]["sum_sq"])
        for key in ("A", "B"):
            for f, value in r["counts"][key].items():
                setattr(stats[key], f, getattr(stats[key], f) + int(value))
    out = _result(a, b, n, total, total_sq, stats)
    for key in ("budget", "clock"):
        values = {r.get(key) for r in results}
        if len(values) > 1:
            raise ValueError(f"cannot merge runs with different {key}s: {sorted(map(str, values))}")
        out[key] = values.pop()
    return out


def decision_times(rules: Rules, level: str, hands: int, seed: int = 1, budget: float | None = None,
                   progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Seconds per decision of ``level`` in games against ``normal`` partners and opponents."""
    times: list[float] = []
    cpu: list[float] = []
    stats = {"A": LevelStats(), "B": LevelStats()}
    g = 0
    played = 0
    other = "normal" if level != "normal" else "easy"

    def record(lv: str, dt: float, dc: float) -> None:
        if lv == level:
            times.append(dt)
            cpu.append(dc)

    while played < hands:
        log = play_game(rules, level, other, g % 2 == 0, seed * 7919 + g, stats, budget,
                        min(MAX_HANDS_PER_GAME, hands - played), record)
        g += 1
        played += len(log.diffs) or 1
        if progress is not None:
            progress(min(played, hands), hands)
    times.sort()
    cpu.sort()
    if not times:
        return {"level": level, "decisions": 0}

    def at(xs: list[float], q: float) -> float:
        return round(1000 * xs[min(len(xs) - 1, int(q * len(xs)))], 2)

    return {
        "level": level,
        "decisions": len(times),
        "median_ms": at(times, 0.5),
        "p95_ms": at(times, 0.95),
        "max_ms": round(1000 * times[-1], 2),
        "mean_ms": round(1000 * statistics.fmean(times), 2),
        # The bot's own CPU time (this thread): on a loaded machine the wall-clock maximum includes
        # time the process waited for a core, which the CPU figures leave out.
        "cpu_median_ms": at(cpu, 0.5),
        "cpu_p95_ms": at(cpu, 0.95),
        "cpu_max_ms": round(1000 * cpu[-1], 2),
    }
