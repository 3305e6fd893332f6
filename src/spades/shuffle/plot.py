"""Plots of the shuffle lab's figures against the number of passes (matplotlib, Agg backend).

matplotlib is imported inside the functions only, so the rest of the package works without it. The
file format follows the extension: ``.png`` or ``.svg``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spades.shuffle.mixing import MixingFigures
from spades.shuffle.simulate import SimulationResult

PLOT_FORMATS = (".png", ".svg")
"""The file extensions a plot can be written to."""


class PlotError(ValueError):
    """A plot that cannot be written: unknown file extension, or matplotlib is not installed."""


def _pyplot(path: Path) -> Any:
    if path.suffix.lower() not in PLOT_FORMATS:
        raise PlotError(f"cannot plot to {str(path)!r}: the file name must end in .png or .svg")
    try:
        import matplotlib
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise PlotError("plotting needs the lab extra (matplotlib not installed): pip install 'spades[lab]'") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_simulation(result: SimulationResult, path: str | Path) -> Path:
    """Plot a simulation's distances per pass count, with the perfect shuffle's values as the floor."""
    out = Path(path)
    plt = _pyplot(out)
    passes = [f.passes for f in result.figures]
    pair_gap = [abs(f.same_trick_pairs - result.expected_same_trick_pairs) for f in result.figures]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    try:
        series = (
            ("spades per hand (TV)", [f.spades_tv for f in result.figures], result.uniform.spades_tv, "C0"),
            ("hand shapes (TV)", [f.shape_tv for f in result.figures], result.uniform.shape_tv, "C1"),
            ("same-trick pairs (|share - 12/51|)", pair_gap,
             abs(result.uniform.same_trick_pairs - result.expected_same_trick_pairs), "C2"),
        )
        for label, values, floor, color in series:
            ax.plot(passes, [max(v, 1e-5) for v in values], marker="o", color=color, label=label)
            ax.axhline(max(floor, 1e-5), color=color, linestyle=":", linewidth=1)
        if result.passes_needed is not None:
            ax.axvline(result.passes_needed, color="grey", linestyle="--",
                       label=f"needed: {result.passes_needed} passes")
        ax.set_yscale("log")
        ax.set_xlabel("passes")
        ax.set_ylabel("distance from a perfect shuffle")
        ax.set_title(f"{result.model}: {result.trials} deals (dotted: a perfect shuffle)")
        ax.legend(fontsize="small")
        fig.tight_layout()
        fig.savefig(out)
    finally:
        plt.close(fig)
    return out


def plot_mixing(figures: Sequence[MixingFigures], path: str | Path) -> Path:
    """Plot total variation, separation (left axis) and bits left (right axis) per number of riffles."""
    out = Path(path)
    plt = _pyplot(out)
    if not figures:
        raise PlotError("nothing to plot")
    passes = [f.passes for f in figures]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    try:
        ax.plot(passes, [f.tv for f in figures], marker="o", label="total variation")
        ax.plot(passes, [f.separation for f in figures], marker="s", label="separation")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("riffles")
        ax.set_ylabel("distance from uniform")
        right = ax.twinx()
        right.plot(passes, [f.bits_left for f in figures], color="C2", marker="^", label="bits left")
        right.set_ylabel("bits of order left")
        lines = ax.get_legend_handles_labels()
        more = right.get_legend_handles_labels()
        ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize="small")
        ax.set_title(f"{figures[0].cards} cards after k riffles (Bayer and Diaconis 1992)")
        fig.tight_layout()
        fig.savefig(out)
    finally:
        plt.close(fig)
    return out
