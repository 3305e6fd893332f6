"""The shuffle lab's endpoints for ``lab.html``: the exact mixing table and the simulation with its plot.

Both run the same code as ``spades shuffle distance`` and ``spades shuffle simulate``
(``spades.shuffle.mixing``, ``.simulate``, ``.plot``), within limits so that no request can load the
server: at most ``MAX_CARDS`` cards and ``MAX_DISTANCE_SPAN`` pass counts for the exact table; for a
simulation at most ``MAX_TRIALS`` deals, passes up to ``MAX_SIMULATED_PASSES`` and ``MAX_WORK`` packs
shuffled in all (deals times the largest pass count), one simulation at a time (another request meanwhile
answers 503 ``busy``). Results are cached: the exact figures per (cards, passes), the simulations and their
plots by their parameters (``SIM_CACHE`` of them), so the page's default questions cost nothing after the
first. Bad parameters answer 400 ``{"error": {"code": "bad_request", "reason"}}`` naming the parameter.
"""

from __future__ import annotations

import tempfile
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request, Response

from spades.shuffle.mixing import MixingFigures, mixing_figures, passes_needed
from spades.shuffle.models import MODEL_NAMES
from spades.shuffle.simulate import SimulationResult, simulate
from spades.web.http import ApiError, LimitedRoute

MAX_CARDS = 208
"""The largest pack of the exact table (four decks; the sums grow with the square of the pack)."""
MAX_DISTANCE_PASSES = 40
"""The most riffles the exact table goes to."""
MAX_DISTANCE_SPAN = 30
"""The most rows of one exact table."""
MAX_TRIALS = 4000
"""The most deals of one simulation."""
MAX_SIMULATED_PASSES = 60
"""The most passes a simulation goes to."""
MAX_WORK = 40_000
"""The most packs one simulation shuffles: deals times (largest pass count + 1); a few seconds of work."""
SIM_CACHE = 24
"""Simulations (and plots) kept in memory."""

router = APIRouter(prefix="/api/lab", tags=["lab"], route_class=LimitedRoute)
_sim_lock = threading.Lock()
_plot_lock = threading.Lock()  # pyplot keeps global state: one figure at a time
_cache_lock = threading.Lock()
_results: OrderedDict[tuple[Any, ...], SimulationResult] = OrderedDict()
_plots: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()


class LabInputError(ValueError):
    """A parameter out of its limits; the message names it."""


def _int(request: Request, name: str, default: int, low: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    if not (text.strip().isascii() and text.strip().isdigit()) or len(text) > 9:  # isdigit alone takes "²"
        raise LabInputError(f"{name} must be a whole number from {low} to {high}, not {text[:20]!r}")
    value = int(text)
    if not low <= value <= high:
        raise LabInputError(f"{name} must be from {low} to {high}, not {value}")
    return value


def _flag(request: Request, name: str) -> bool:
    text = request.query_params.get(name, "0").lower()
    if text not in ("0", "1", "true", "false"):
        raise LabInputError(f"{name} must be 1 or 0 (true or false), not {text[:20]!r}")
    return text in ("1", "true")


@lru_cache(maxsize=4096)
def _figures(cards: int, k: int) -> MixingFigures:
    return mixing_figures(cards, k)


@lru_cache(maxsize=256)
def _needed(cards: int) -> int:
    return passes_needed(cards)


def mixing_answer(cards: int, low: int, high: int) -> dict[str, Any]:
    """The exact table for ``cards`` cards and riffles ``low`` to ``high``, and the fewest riffles that
    bring the total variation to 1/2 or less."""
    if not 2 <= cards <= MAX_CARDS:
        raise LabInputError(f"cards must be from 2 to {MAX_CARDS}, not {cards}")
    if low > high:
        raise LabInputError(f"the passes run backwards: from {low} to {high}")
    if high - low + 1 > MAX_DISTANCE_SPAN:
        raise LabInputError(f"at most {MAX_DISTANCE_SPAN} rows at once: from {low} to {high} is {high - low + 1}")
    return {"cards": cards, "figures": [_figures(cards, k).as_json() for k in range(low, high + 1)],
            "passes_for_half": _needed(cards)}


@router.get("/mixing", response_model=None)
def mixing(request: Request) -> dict[str, Any] | Response:
    """``?cards=52&from=1&to=12``: total variation, separation and bits left after each number of GSR
    riffles (exact, ``spades shuffle distance``), and ``passes_for_half``."""
    try:
        cards = _int(request, "cards", 52, 2, MAX_CARDS)
        low = _int(request, "from", 1, 0, MAX_DISTANCE_PASSES)
        high = _int(request, "to", min(low + 11, MAX_DISTANCE_PASSES), 0, MAX_DISTANCE_PASSES)
        return mixing_answer(cards, low, high)
    except LabInputError as e:
        raise ApiError(400, "bad_request", str(e)) from None


def _sim_key(request: Request) -> tuple[Any, ...]:
    model = request.query_params.get("model", "machine")
    if model not in MODEL_NAMES:
        raise LabInputError(f"model must be one of {', '.join(MODEL_NAMES)}, not {model[:20]!r}")
    low = _int(request, "from", 0, 0, MAX_SIMULATED_PASSES)
    high = _int(request, "to", 10, 0, MAX_SIMULATED_PASSES)
    if low > high:
        raise LabInputError(f"the passes run backwards: from {low} to {high}")
    trials = _int(request, "trials", 2000, 100, MAX_TRIALS)
    if trials * (high + 1) > MAX_WORK:
        raise LabInputError(f"too much work for one request: {trials} deals times {high + 1} pass counts is "
                            f"{trials * (high + 1)}; keep it to {MAX_WORK} (fewer deals, or fewer passes)")
    seed = _int(request, "seed", 1, 0, 2**31 - 1)
    bias_pct = _int(request, "bias", 50, 1, 99)
    return (model, low, high, trials, seed, bias_pct, _flag(request, "reverse_piles"), _flag(request, "b_on_top"))


def _cached(store: OrderedDict[tuple[Any, ...], Any], key: tuple[Any, ...]) -> Any:
    with _cache_lock:
        hit = store.get(key)
        if hit is not None:
            store.move_to_end(key)
        return hit


def _keep(store: OrderedDict[tuple[Any, ...], Any], key: tuple[Any, ...], value: Any) -> None:
    with _cache_lock:
        store[key] = value
        while len(store) > SIM_CACHE:
            store.popitem(last=False)


class LabBusy(Exception):
    """Another simulation is running."""


def simulation(key: tuple[Any, ...]) -> SimulationResult:
    """The simulation for a parameter key of ``_sim_key`` (cached; one computes at a time)."""
    hit = _cached(_results, key)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    if not _sim_lock.acquire(blocking=False):
        raise LabBusy
    try:
        hit = _cached(_results, key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        model, low, high, trials, seed, bias_pct, reverse, b_top = key
        result = simulate(model, range(low, high + 1), trials, seed, bias_pct / 100,
                          keep_order=not reverse, a_on_top=not b_top)
        _keep(_results, key, result)
        return result
    finally:
        _sim_lock.release()


BUSY = "the lab is running another simulation; try again in a few seconds"


@router.get("/simulate", response_model=None)
def simulate_endpoint(request: Request) -> dict[str, Any] | Response:
    """``?model=machine&from=0&to=10&trials=2000&seed=1&bias=50&reverse_piles=0&b_on_top=0`` (``bias`` in
    percent): ``spades shuffle simulate --json``'s object, ``passes_needed`` being the answer to "how many
    passes does tonight's deck need"."""
    try:
        key = _sim_key(request)
        return simulation(key).as_json()
    except LabInputError as e:
        raise ApiError(400, "bad_request", str(e)) from None
    except LabBusy:
        raise ApiError(503, "busy", BUSY) from None


@router.get("/simulate.svg", response_model=None)
def simulate_plot(request: Request) -> Response:
    """The simulation's plot (``spades shuffle simulate --plot``) as SVG, for the same parameters."""
    from spades.shuffle.plot import PlotError, plot_simulation

    try:
        key = _sim_key(request)
        svg = _cached(_plots, key)
        if svg is None:
            result = simulation(key)
            with _plot_lock, tempfile.TemporaryDirectory() as tmp:
                path = plot_simulation(result, Path(tmp) / "plot.svg")
                svg = path.read_bytes()
            _keep(_plots, key, svg)
    except LabInputError as e:
        raise ApiError(400, "bad_request", str(e)) from None
    except LabBusy:
        raise ApiError(503, "busy", BUSY) from None
    except PlotError as e:  # pragma: no cover - matplotlib is a pinned dependency
        raise ApiError(503, "no_plot", str(e)) from None
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})


def clear_caches() -> None:
    """Forget every cached result (tests)."""
    with _cache_lock:
        _results.clear()
        _plots.clear()
    _figures.cache_clear()
    _needed.cache_clear()
