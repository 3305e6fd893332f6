"""``spades shuffle``: the exact mixing figures and the shuffle simulation, as a Typer sub-application.

The main command registers it with ``app.add_typer(shuffle_app, name="shuffle")``. The ``--json``
keys are a public interface: ``distance --json`` prints a list of objects with exactly ``passes``,
``tv``, ``separation``, ``bits_left``; ``simulate --json`` prints ``SimulationResult.as_json()``.
Bad input ends with a one-line ``Error: ...`` on stderr and exit code 2.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from spades.shuffle.mixing import mixing_table
from spades.shuffle.models import MODEL_NAMES
from spades.shuffle.simulate import PassFigures, SimulationResult, simulate

MAX_CARDS = 1000
"""The largest pack ``distance`` accepts (the exact sums grow with the square of the pack)."""
MAX_DISTANCE_PASSES = 200
MAX_SIMULATED_PASSES = 1000

app = typer.Typer(
    help="Shuffle models and the exact mixing figures: how many passes does a deck need?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _fail(message: str) -> NoReturn:
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(2)


_RANGE_RE = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")


def parse_passes(text: str, largest: int) -> range:
    """Parse ``A-B`` (or one count ``K``) into ``range(A, B + 1)``; ``ValueError`` names the problem."""
    m = _RANGE_RE.fullmatch(text)
    if not m:
        raise ValueError(f"--passes {text!r}: write a range of pass counts like 1-10 (or one count like 7)")
    low = int(m.group(1))
    high = int(m.group(2)) if m.group(2) is not None else low
    if low > high:
        raise ValueError(f"--passes {text!r}: the range runs backwards ({low} is more than {high})")
    if high > largest:
        raise ValueError(f"--passes {text!r}: at most {largest} passes")
    return range(low, high + 1)


def _passes(text: str, largest: int) -> range:
    try:
        return parse_passes(text, largest)
    except ValueError as e:
        _fail(str(e))


def _check_plot(plot: Path | None) -> None:
    if plot is not None and plot.suffix.lower() not in (".png", ".svg"):
        _fail(f"--plot {str(plot)!r}: the file name must end in .png or .svg")


def _write_plot(draw: Callable[[], object], plot: Path) -> None:
    from spades.shuffle.plot import PlotError

    try:
        draw()
    except PlotError as e:
        typer.echo(f"Error: {e}", err=True)
        raise typer.Exit(1) from None
    except OSError as e:
        typer.echo(f"Error: cannot write the plot to {str(plot)!r}: {e.strerror}", err=True)
        raise typer.Exit(1) from None


@app.command()
def distance(
    cards: Annotated[int, typer.Option("--cards", help="Cards in the pack.")] = 52,
    passes: Annotated[str, typer.Option("--passes", help="Riffles, as a range A-B.")] = "1-10",
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list instead of a table.")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="Also plot the figures (.png or .svg).")] = None,
) -> None:
    """Exact distance from uniform after each number of GSR riffles (Bayer and Diaconis 1992).

    For each number of passes: total variation, separation, and the bits of order left (relative
    entropy from uniform). The machine pass with an even bias is the inverse riffle: same figures.
    """
    if not 1 <= cards <= MAX_CARDS:
        _fail(f"--cards {cards}: the pack must hold 1 to {MAX_CARDS} cards")
    ks = _passes(passes, MAX_DISTANCE_PASSES)
    _check_plot(plot)
    figures = mixing_table(cards, ks)
    if as_json:
        typer.echo(json.dumps([f.as_json() for f in figures]))
    else:
        table = Table(title=f"{cards} cards after k riffles: distance from uniform")
        table.add_column("passes", justify="right")
        table.add_column("total variation", justify="right")
        table.add_column("separation", justify="right")
        table.add_column("bits left", justify="right")
        for f in figures:
            table.add_row(str(f.passes), f"{f.tv:.4f}", f"{f.separation:.4f}", _bits(f.bits_left))
        Console().print(table)
    if plot is not None:
        from spades.shuffle.plot import plot_mixing

        _write_plot(lambda: plot_mixing(figures, plot), plot)


def _bits(x: float) -> str:
    return f"{x:.4f}" if x >= 1e-3 else f"{x:.3g}"


@app.command(name="simulate")
def simulate_command(
    model: Annotated[str, typer.Option("--model", help="riffle, machine or overhand.")] = "machine",
    passes: Annotated[str, typer.Option("--passes", help="Pass counts, as a range A-B.")] = "0-10",
    trials: Annotated[int, typer.Option("--trials", help="Deals simulated per pass count.")] = 2000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the simulation's random numbers.")] = 0,
    bias: Annotated[float, typer.Option("--bias", help="machine: chance a card goes to pile A.")] = 0.5,
    reverse_piles: Annotated[bool, typer.Option(
        "--reverse-piles", help="machine: cards taken from the top, so each pile is reversed.")] = False,
    b_on_top: Annotated[bool, typer.Option("--b-on-top", help="machine: stack pile B on pile A.")] = False,
    alpha: Annotated[float, typer.Option("--alpha", help="Significance level of the tests.")] = 1e-3,
    plot: Annotated[Path | None, typer.Option("--plot", help="Plot the figures (.png or .svg).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object instead of a table.")] = False,
) -> None:
    """Shuffle freshly gathered tricks k times, deal, and compare what players see with a perfect shuffle.

    Reports, per number of passes, the distance of the spades-per-hand and hand-shape frequencies
    from their exact values, the share of last hand's trick-mates dealt together again, and whether a
    table watching that many deals could tell the deck from a perfect shuffle.
    """
    if model not in MODEL_NAMES:
        _fail(f"--model {model!r}: choose one of {', '.join(MODEL_NAMES)}")
    ks = _passes(passes, MAX_SIMULATED_PASSES)
    if trials < 1:
        _fail(f"--trials {trials}: simulate at least 1 deal")
    if not 0 < bias < 1:
        _fail(f"--bias {bias}: the chance of pile A must lie strictly between 0 and 1")
    if not 0 < alpha < 1:
        _fail(f"--alpha {alpha}: the significance level must lie strictly between 0 and 1")
    _check_plot(plot)
    err = Console(stderr=True)
    with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"{model}, {len(ks)} pass counts", total=trials)
        result = simulate(model, ks, trials, seed, bias, alpha=alpha, keep_order=not reverse_piles,
                          a_on_top=not b_on_top, progress=lambda done: bar.advance(task, done))
    if as_json:
        typer.echo(json.dumps(result.as_json()))
    else:
        _print_simulation(result)
    if plot is not None:
        from spades.shuffle.plot import plot_simulation

        _write_plot(lambda: plot_simulation(result, plot), plot)


def answer_line(result: SimulationResult) -> str:
    """The one-sentence answer: how many passes tonight's deck needs."""
    last = result.figures[-1].passes
    if result.passes_needed is None:
        return f"Tonight's deck needs more than {last} passes of {result.model}"
    return f"Tonight's deck needs about {result.passes_needed} passes of {result.model}"


def _print_simulation(result: SimulationResult) -> None:
    table = Table(title=f"{result.model}: {result.trials} deals per pass count, seed {result.seed}")
    for name in ("passes", "spades TV", "shape TV", "same-trick pairs", "min p", "looks uniform"):
        table.add_column(name, justify="right")

    def row(label: str, f: PassFigures) -> None:
        p = min(f.spades_p, f.shape_p, f.pairs_p)
        table.add_row(label, f"{f.spades_tv:.4f}", f"{f.shape_tv:.4f}", f"{f.same_trick_pairs:.4f}",
                      f"{p:.2g}", "yes" if f.uniform_like else "no")

    for f in result.figures:
        row(str(f.passes), f)
    table.add_section()
    row("perfect", result.uniform)
    console = Console()
    console.print(table)
    console.print(f"same-trick pairs under a perfect shuffle: {result.expected_same_trick_pairs:.4f} "
                  f"(12/51); looks uniform: every p-value >= {result.alpha:g}")
    console.print(answer_line(result))
