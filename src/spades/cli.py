"""The ``spades`` command. Its command names and ``--json`` keys are a public interface.

Every bad input ends with one line on stderr naming the problem and exit status 2 (``replay``
exits 1 at the first illegal deal or action of a readable record, as documented).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from spades.cliutil import fail, read_json_file, rules_from_cli
from spades.core.errors import RecordError, SpadesError
from spades.core.game import Game
from spades.core.record import game_from_record
from spades.core.rules import OPTIONS, Rules
from spades.scorekeeper import ScoreSheet
from spades.variants import PRESETS

app = typer.Typer(help="Spades: every house rule, computer players, fair dealing.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
bench_app = typer.Typer(help="Performance figures as a table or --json.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")

out = Console(highlight=False)


RulesOpt = Annotated[
    str | None, typer.Option("--rules", help="a preset name, or JSON {\"preset\": ..., option: value}")
]
SetOpt = Annotated[list[str] | None, typer.Option("--set", help="override an option: name=value (repeatable)")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]


@app.command()
def replay(file: Path, rules: RulesOpt = None, sets: SetOpt = None, as_json: JsonOpt = False) -> None:
    """Check a spades-record/1 game record and score it (exit 1 at the first illegal thing). --rules and
    --set replay it under other rules (--set alone changes the record's own), e.g. to score it another way."""
    data = read_json_file(file)
    if not isinstance(data, dict):
        fail(f"{file} is not a game record: a record is a JSON object")
    if rules is not None or sets:
        _, spec = rules_from_cli(rules, sets, base=data.get("rules"))
        data = {**data, "rules": spec}
    try:
        game = game_from_record(data)
    except RecordError as e:
        if e.hand is None:
            fail(e.reason)
        if as_json:
            typer.echo(json.dumps({"ok": False, "error": {"hand": e.hand, "action": e.action, "reason": e.reason}}))
        else:
            where = f"hand {e.hand}" + (f", action {e.action}" if e.action is not None else "")
            typer.echo(f"illegal record at {where}: {e.reason}", err=True)
        raise typer.Exit(1) from None
    report = game_report(game)
    if as_json:
        typer.echo(json.dumps({"ok": True, **report}))
        return
    print_report(game.rules, report, title=f"{file.name}: every deal and action is legal")


def game_report(game: Game) -> dict[str, Any]:
    """The JSON shape shared by ``replay`` and ``score``, with tricks per seat."""
    hands = []
    running = [0] * len(game.totals)
    for res in game.results:
        if res.misdeal:
            hands.append({"misdeal": True, "sides": [], "tricks": list(res.tricks)})
            continue
        sides = []
        for k, s in enumerate(res.sides):
            running[k] += s.points
            sides.append({"points": s.points, "total": running[k], "bags": s.bags_total,
                          "lines": [[ln.text, ln.points] for ln in s.lines]})
        hands.append({"sides": sides, "tricks": list(res.tricks)})
    return {"hands": hands, "totals": list(game.totals), "winner": game.winner}


def side_names(rules: Rules) -> list[str]:
    """Readable side names: seats joined by '+' ("0+2")."""
    return ["+".join(str(s) for s in side) for side in rules.layout.sides]


def print_report(rules: Rules, report: dict[str, Any], title: str) -> None:
    """A readable score table."""
    names = side_names(rules)
    table = Table(title=title)
    table.add_column("hand", justify="right")
    for nm in names:
        table.add_column(f"side {nm}", justify="right")
    for i, h in enumerate(report["hands"]):
        if h.get("misdeal"):
            table.add_row(str(i), *["misdeal"] * len(names))
            continue
        table.add_row(str(i), *[f"{s['points']:+d} = {s['total']} ({s['bags']} bags)" for s in h["sides"]])
    out.print(table)
    w = report["winner"]
    out.print(f"Totals: {', '.join(f'side {n}: {t}' for n, t in zip(names, report['totals'], strict=True))}")
    out.print("Winner: " + (f"side {names[w]}" if w is not None else "none yet"))


@app.command()
def score(file: Path, rules: RulesOpt = None, sets: SetOpt = None, as_json: JsonOpt = False) -> None:
    """A score sheet from typed-in hands: {"rules": ..., "hands": [{"bids": [...], "tricks": [...]}]}, or per
    side: {"sides": [{"bid": 7, "tricks": 8, "nil": [{"seat": 1, "bid": "nil", "tricks": 0}]}, ...]}; a timed
    game's hand in which the time ran out adds "time_up": true."""
    data = read_json_file(file)
    if not isinstance(data, dict) or not isinstance(data.get("hands"), list):
        fail(f"{file} must be an object with a list of hands: {{\"rules\": ..., \"hands\": [...]}}")
    r, _ = rules_from_cli(rules, sets, base=data.get("rules"))
    sheet = ScoreSheet(r)
    for h in data["hands"]:
        try:
            sheet.add_entry(h)
        except SpadesError as e:
            fail(str(e))
    report = sheet.to_dict()
    if as_json:
        typer.echo(json.dumps(report))
        return
    print_report(r, report, title=f"{file.name}: score sheet")


@app.command("rules")
def rules_cmd(as_json: JsonOpt = False) -> None:
    """List the presets and every house rule with its values and meaning."""
    defaults = Rules()
    if as_json:
        typer.echo(json.dumps({
            "presets": {p.name: {"options": dict(p.options), "description": p.description} for p in PRESETS.values()},
            "options": {o.name: {"values": o.values, "default": _jsonable(getattr(defaults, o.name)),
                                 "meaning": o.meaning} for o in OPTIONS.values()},
        }))
        return
    t = Table(title="Presets (use --rules NAME, then --set option=value)")
    t.add_column("preset")
    t.add_column("options over standard")
    t.add_column("what it is")
    for p in PRESETS.values():
        t.add_row(p.name, ", ".join(f"{k}={json.dumps(v)}" for k, v in p.options.items()) or "-", p.description)
    out.print(t)
    t = Table(title="House rules (the first value is the default)")
    t.add_column("option")
    t.add_column("values")
    t.add_column("meaning")
    for o in OPTIONS.values():
        t.add_row(o.name, o.values, o.meaning)
    out.print(t)


def _jsonable(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


@app.command()
def play(
    rules: RulesOpt = None,
    sets: SetOpt = None,
    seed: Annotated[int | None, typer.Option(help="seed the deals (and the computer players)")] = None,
    seat: Annotated[int, typer.Option(help="your seat")] = 0,
    level: Annotated[str, typer.Option(help="the computer players' level")] = "normal",
) -> None:
    """A game against the computer in the terminal."""
    from spades.terminal import play_terminal

    r, _ = rules_from_cli(rules, sets)
    if not 0 <= seat < r.layout.n:
        fail(f"--seat must be a seat from 0 to {r.layout.n - 1}")
    try:
        play_terminal(r, seat=seat, seed=seed, level=level, console=out)
    except SpadesError as e:
        fail(str(e))
    except (KeyboardInterrupt, EOFError):
        out.print("\nGame abandoned.")
        raise typer.Exit(0) from None


@bench_app.command("engine")
def bench_engine(
    hands: Annotated[int, typer.Option(help="hands to play")] = 20000,
    seed: Annotated[int, typer.Option()] = 1,
    as_json: JsonOpt = False,
) -> None:
    """Random full hands in process: deal, bids, every play and scoring."""
    from spades.bench import engine_figures

    if hands < 1:
        fail("--hands must be at least 1")
    figures = engine_figures(hands, seed)
    if as_json:
        typer.echo(json.dumps(figures))
        return
    t = Table(title="spades engine")
    t.add_column("figure")
    t.add_column("value", justify="right")
    for k, v in figures.items():
        t.add_row(k, f"{v:,.1f}" if isinstance(v, float) else str(v))
    out.print(t)


from spades.server.cli import register as _register_server  # noqa: E402

_register_server(app, bench_app)


@app.command()
def verify(file: Path, as_json: JsonOpt = False) -> None:
    """Re-derive each hand's deal from its revealed seed and commitment (exit 1 if any fails)."""
    from spades.shuffle.verify import verify_record

    data = read_json_file(file)
    if not isinstance(data, dict):
        fail(f"{file} is not a game record: a record is a JSON object")
    try:
        checks = verify_record(data)
    except RecordError as e:
        fail(str(e))
    ok = bool(checks) and all(c.ok for c in checks)
    if as_json:
        typer.echo(json.dumps({"ok": ok, "hands": [{"hand": c.hand, "ok": c.ok, "reason": c.reason,
                                                     "commitment": c.commitment, "client_seeds": c.client_seeds}
                                                    for c in checks]}))
    else:
        for c in checks:
            out.print(f"hand {c.hand}: {'[green]verified[/]' if c.ok else '[red]NOT verified[/]'} - {c.reason}")
            if c.client_seeds:
                seeds = ", ".join(f"{i + 1} {s}" for i, s in enumerate(c.client_seeds))
                out.print(f"  client seeds by seat: {seeds}", markup=False, soft_wrap=True)
        if not checks:
            out.print("the record has no hands")
    if not ok:
        raise typer.Exit(1)


def _register_shuffle() -> None:
    from spades.shuffle.cli import app as shuffle_app

    app.add_typer(shuffle_app, name="shuffle")


_register_shuffle()


from spades.ai.cli import register as _register_ai  # noqa: E402

_register_ai(app, bench_app)


def main() -> None:
    """Entry point of the ``spades`` command."""
    try:
        app()
    except SpadesError as e:  # a last guard: never a traceback for bad input
        typer.echo(f"error: {e}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
