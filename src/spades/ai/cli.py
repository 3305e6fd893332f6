"""The computer players' commands: ``spades suggest``, ``spades arena`` and ``spades bench bots``.

``register(app, bench_app)`` adds them to the ``spades`` command (``spades.cli``). Their ``--json``
keys are a public interface: ``suggest`` gives ``seat``, ``action`` (the record's action shape),
``reason`` and ``level``; ``arena`` gives ``diff_per_hand`` (A minus B, points per hand), ``ci95``,
``deals``, ``hands_played`` and per-level figures; ``bench bots`` gives decision times per level.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from spades.ai.arena import decision_times, run_arena
from spades.ai.base import LEVELS
from spades.ai.review import Review, review_record, sample_game
from spades.ai.suggest import suggest, suggestion_json
from spades.cliutil import fail, read_json_file, rules_from_cli
from spades.core.errors import RecordError, SpadesError
from spades.core.view import action_to_dict
from spades.variants import read_record

JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]
LevelOpt = Annotated[str, typer.Option("--level", help="random, easy, normal or expert")]
BudgetOpt = Annotated[float | None, typer.Option("--budget", help="seconds a card for the searching levels")]


def _check_level(level: str) -> None:
    if level not in LEVELS:
        fail(f"unknown level {level!r}; the levels are: {', '.join(LEVELS)}")


@contextmanager
def _progress(show: bool, what: str) -> Iterator[Callable[[int, int], None] | None]:
    if not show:
        yield None
        return
    with Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def suggest_cmd(
    file: Path,
    level: LevelOpt = "normal",
    seed: Annotated[int, typer.Option(help="seed for the bot's sampling")] = 0,
    budget: BudgetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The computer's choice for the seat to act at the end of a game record, with a reason."""
    _check_level(level)
    data = read_json_file(file)
    if not isinstance(data, dict):
        fail(f"{file} is not a game record: a record is a JSON object")
    try:
        game = read_record(data)
        seat, decision = suggest(game, level, seed, budget)
    except RecordError as e:
        fail(f"{file}: {e}")
    except SpadesError as e:
        fail(str(e))
    if as_json:
        typer.echo(json.dumps(suggestion_json(seat, decision, level)))
        return
    shape = action_to_dict(decision.action)
    what = ", ".join(f"{k} {v}" for k, v in shape.items() if k != "seat")
    typer.echo(f"seat {seat}: {what} - {decision.reason}")


def arena_cmd(
    a: Annotated[str, typer.Argument(help="level A")],
    b: Annotated[str, typer.Argument(help="level B")],
    deals: Annotated[int, typer.Option(help="deals, each played twice with the seats swapped")] = 100,
    seed: Annotated[int, typer.Option()] = 1,
    rules: Annotated[str | None, typer.Option("--rules", help="a preset name or JSON rules")] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="override an option: name=value")] = None,
    budget: BudgetOpt = None,
    cpu_clock: Annotated[bool, typer.Option(
        "--cpu-clock", help="count the searching levels' budget in CPU time, not wall time (fair on a busy machine)",
    )] = False,
    as_json: JsonOpt = False,
) -> None:
    """Levels A and B play the same deals twice with seats swapped (duplicate): A minus B per hand."""
    _check_level(a)
    _check_level(b)
    if deals < 1:
        fail("--deals must be at least 1")
    r, _ = rules_from_cli(rules, sets)
    show = not as_json or sys.stderr.isatty()
    with _progress(show, f"{a} vs {b}") as update:
        result = run_arena(r, a, b, deals, seed=seed, budget=budget, progress=update, cpu_clock=cpu_clock)
    if as_json:
        typer.echo(json.dumps(result))
        return
    out = Console(highlight=False)
    lo, hi = result["ci95"]
    out.print(f"[bold]{a} vs {b}[/]: {result['diff_per_hand']:+.1f} points per hand for {a} "
              f"(95% interval {lo:+.1f} to {hi:+.1f}) over {result['deals']} duplicate deals")
    t = Table()
    t.add_column("figure")
    t.add_column(a, justify="right")
    t.add_column(b, justify="right")
    for key in result["a_stats"]:
        t.add_row(key, str(result["a_stats"][key]), str(result["b_stats"][key]))
    out.print(t)


def bench_bots_cmd(
    hands: Annotated[int, typer.Option(help="hands to time per level")] = 20,
    levels: Annotated[str, typer.Option(help="comma-separated levels")] = "easy,normal,expert",
    seed: Annotated[int, typer.Option()] = 1,
    rules: Annotated[str | None, typer.Option("--rules", help="a preset name or JSON rules")] = None,
    budget: BudgetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Decision times per level (median, 95th percentile, max; wall clock and the bot's own CPU time) in games
    against normal players."""
    names = [x.strip() for x in levels.split(",") if x.strip()]
    for lv in names:
        _check_level(lv)
    if hands < 1:
        fail("--hands must be at least 1")
    r, _ = rules_from_cli(rules, None)
    figures: list[dict[str, Any]] = []
    show = not as_json or sys.stderr.isatty()
    for lv in names:
        with _progress(show, f"timing {lv}") as update:
            figures.append(decision_times(r, lv, hands, seed=seed, budget=budget, progress=update))
    if as_json:
        typer.echo(json.dumps({"levels": figures}))
        return
    t = Table(title="spades bots: seconds per decision")
    cols = ("level", "decisions", "median_ms", "p95_ms", "max_ms", "mean_ms", "cpu_p95_ms", "cpu_max_ms")
    for col in cols:
        t.add_column(col, justify="right")
    for f in figures:
        t.add_row(*(str(f.get(c, "")) for c in cols))
    Console(highlight=False).print(t)


def _read_record_file(file: Path) -> dict[str, Any]:
    data = read_json_file(file)
    if not isinstance(data, dict):
        fail(f"{file} is not a game record: a record is a JSON object")
    return data


def review_cmd(
    file: Path,
    seat: Annotated[int | None, typer.Option("--seat", help="the seat to review (default: every seat)")] = None,
    level: Annotated[str, typer.Option("--level", help="the reviewer: expert (the only one that measures)")] = "expert",
    budget: Annotated[float | None, typer.Option(
        "--budget", help="at most this many seconds a decision (default: fixed sample sizes, deterministic)")] = None,
    seed: Annotated[int, typer.Option(help="seed for the sampled deals")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """What each decision of a seat cost: the expert's choice, the expected points of both, the loss and a label."""
    if level != "expert":
        fail(f"only the expert reviews games, not {level!r}")
    if budget is not None and not budget > 0:
        fail("--budget must be a positive number of seconds")
    data = _read_record_file(file)
    show = not as_json or sys.stderr.isatty()
    try:
        with _progress(show, "reviewing") as update:
            review = review_record(data, seat, seed=seed, budget=budget, progress=update)
    except RecordError as e:
        fail(f"{file}: {e}")
    except SpadesError as e:
        fail(str(e))
    if as_json:
        typer.echo(json.dumps(review.to_json()))
        return
    _print_review(review)


def _print_review(review: Review) -> None:
    out = Console(highlight=False)
    t = Table(title="review" + ("" if review.seat is None else f" of seat {review.seat}"))
    for col in ("hand", "#", "seat", "played", "expert", "loss", "label", "why"):
        t.add_column(col, justify="right" if col in ("hand", "#", "seat", "loss") else "left")
    colour = {"inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "red"}
    for d in review.decisions:
        if d.label == "fine":
            continue
        js = d.to_json()
        played = ", ".join(str(v) for k, v in js["played"].items() if k != "seat")
        best = ", ".join(str(v) for k, v in js["best"].items() if k != "seat")
        t.add_row(str(d.hand), str(d.action), str(d.seat), played, best, f"{d.loss:.1f} +- {d.stderr:.1f}",
                  f"[{colour[d.label]}]{d.label}[/]", d.reason)
    out.print(t)
    s = review.summary()
    lost = s["points_lost"]
    labels = ", ".join(f"{n} {k}" for k, n in s["by_label"].items())
    out.print(f"{s['decisions']} decisions: {labels}; points lost in bidding {lost['bidding']}, "
              f"in play {lost['play']}")


def bench_review_cmd(
    hands: Annotated[int, typer.Option(help="hands in the reviewed game")] = 10,
    seat: Annotated[int, typer.Option(help="the seat reviewed")] = 0,
    seed: Annotated[int, typer.Option(help="seed of the game and of the review")] = 1,
    budget: BudgetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The time to review one seat of a game of normal players (wall clock, CPU time, load average)."""
    import os
    import time

    if not 1 <= hands <= 50:
        fail("--hands must be from 1 to 50")
    if not 0 <= seat <= 3:
        fail("--seat must be from 0 to 3")
    data = sample_game(hands, seed)
    show = not as_json or sys.stderr.isatty()
    load_before = os.getloadavg()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with _progress(show, "reviewing") as update:
        review = review_record(data, seat, seed=seed, budget=budget, progress=update)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    load_after = os.getloadavg()
    actions = sum(1 for h in data["hands"] for a in h["actions"] if a.get("seat") == seat)
    figures = {"hands": hands, "seat": seat, "seat_actions": actions, "decisions_reviewed": len(review.decisions),
               "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
               "ms_per_decision": round(1000 * wall / max(1, len(review.decisions)), 1),
               "load_average_before": [round(x, 2) for x in load_before],
               "load_average_after": [round(x, 2) for x in load_after], "summary": review.summary()}
    if as_json:
        typer.echo(json.dumps(figures))
        return
    t = Table(title="spades review: one seat of a game")
    t.add_column("figure")
    t.add_column("value", justify="right")
    for k, v in figures.items():
        t.add_row(k, str(v))
    Console(highlight=False).print(t)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add ``suggest``, ``review``, ``arena`` and ``bench bots`` to the ``spades`` command."""
    app.command("suggest")(suggest_cmd)
    app.command("review")(review_cmd)
    app.command("arena")(arena_cmd)
    bench_app.command("bots")(bench_bots_cmd)
    bench_app.command("review")(bench_review_cmd)
