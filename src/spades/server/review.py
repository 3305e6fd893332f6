"""Game reviews over HTTP ("Review my game"): a finished online game for the seat the person played, or an
uploaded ``spades-record/1`` for any seat.

A review (``spades.ai.review``) takes seconds of CPU, so it runs in the background: one queue per server
process, one review at a time (in a worker thread, off the event loop), at most ``MAX_WAITING`` waiting
and one waiting or running per player. The page polls the status (its place in the queue, then the
decisions done) until the review is stored; a stored review is answered at once and never computed
again (``reviews`` table; several processes share it).

Routes (errors answer ``{"error": {"code", "reason"}}`` like the rest of the API):

- ``POST /api/tables/{id}/review``, ``GET /api/tables/{id}/review``: start, or read, the review of a
  finished online game for the seat the requesting player played (403 for anyone else);
- ``POST /api/reviews`` with ``{"record": {...}, "seat": s}`` (at most ``MAX_RECORD_BYTES``), and
  ``GET /api/reviews/{id}``: an uploaded record's review.

The status: ``{"id", "seat", "state": "queued" | "running" | "done" | "failed" | "none", "position",
"done", "total", "review", "error"}`` (``position`` 1 is the next to run).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from spades.ai.review import review_record
from spades.core.errors import SpadesError
from spades.variants import read_record
from spades.web.http import ApiError, parse_json, read_body

MAX_RECORD_BYTES = 256 * 1024
"""The largest uploaded record (a game of 40 hands is about 60 KiB)."""
MAX_HANDS = 40
"""The most hands an uploaded record may hold."""
MAX_WAITING = 16
"""Reviews waiting in one process's queue at most (the next is refused with 429)."""
REVIEW_SEED = 0
REVIEW_ID = re.compile(r"u-[0-9a-f]{40}-[0-9]{1,2}")


class UploadBody(BaseModel):
    """``POST /api/reviews``: a record and the seat to review (described for the OpenAPI schema; the
    endpoint reads and checks the body itself)."""

    record: dict[str, Any]
    seat: int = Field(ge=0, le=5)


UPLOAD_SCHEMA = {"requestBody": {"required": True,
                                 "content": {"application/json": {"schema": UploadBody.model_json_schema()}}}}


@dataclass
class Job:
    """One review waiting, running or just finished."""

    review_id: str
    player_id: str
    table_id: str | None
    seat: int
    record: dict[str, Any]
    state: str = "queued"
    done: int = 0
    total: int = 0
    result: dict[str, Any] | None = None
    error: str | None = None


Runner = Callable[[dict[str, Any], int, Callable[[int, int], None]], dict[str, Any]]
Saver = Callable[[Job, dict[str, Any]], Awaitable[None]]


def run_review(record: dict[str, Any], seat: int, progress: Callable[[int, int], None]) -> dict[str, Any]:
    """The review's JSON (``spades review --json``'s shape)."""
    return review_record(record, seat, seed=REVIEW_SEED, progress=progress).to_json()


class ReviewQueue:
    """Reviews one at a time, first come first served; one per player waiting or running."""

    def __init__(self, save: Saver, run: Runner = run_review, max_waiting: int = MAX_WAITING) -> None:
        """``save`` stores a finished review; ``run`` computes one (in a worker thread)."""
        self.save = save
        self.run = run
        self.max_waiting = max_waiting
        self.jobs: dict[str, Job] = {}
        self.waiting: deque[Job] = deque()
        self.running: Job | None = None
        self._task: asyncio.Task[None] | None = None

    def submit(self, job: Job) -> Job:
        """Queue a review (or give the same one already queued); ``ApiError`` when the player already
        has another one queued or running, or when the queue is full."""
        have = self.jobs.get(job.review_id)
        if have is not None and have.state in ("queued", "running"):
            return have
        for other in (*self.waiting, *((self.running,) if self.running else ())):
            if other.player_id == job.player_id:
                raise ApiError(429, "one_at_a_time", "you have a review waiting already: one at a time")
        if len(self.waiting) >= self.max_waiting:
            raise ApiError(429, "queue_full", "too many reviews are waiting: try again in a minute")
        self.jobs[job.review_id] = job
        self.waiting.append(job)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._work())
        return job

    def status(self, review_id: str) -> dict[str, Any] | None:
        """A queued, running or just finished review's status, or ``None``."""
        job = self.jobs.get(review_id)
        if job is None:
            return None
        out: dict[str, Any] = {"id": job.review_id, "seat": job.seat, "state": job.state, "done": job.done,
                               "total": job.total}
        if job.state == "queued":
            out["position"] = list(self.waiting).index(job) + 1 + (1 if self.running else 0)
        if job.result is not None:
            out["review"] = job.result
        if job.error is not None:
            out["error"] = job.error
        return out

    async def _work(self) -> None:
        while self.waiting:
            job = self.waiting.popleft()
            self.running = job
            job.state = "running"

            def progress(done: int, total: int, job: Job = job) -> None:
                job.done, job.total = done, total

            try:
                result = await asyncio.to_thread(self.run, job.record, job.seat, progress)
                await self.save(job, result)
                job.result, job.state = result, "done"
            except Exception as e:  # a review that cannot be made is reported, never kills the queue
                job.error, job.state = f"the review failed: {e}", "failed"
            finally:
                self.running = None
                job.record = {}
            # Finished jobs are kept a while for their last poll; the stored review is the truth.
            finished = [k for k, j in self.jobs.items() if j.state in ("done", "failed")]
            for k in finished[:-64]:
                del self.jobs[k]


def record_digest(record: dict[str, Any]) -> str:
    """A record's identity for a stored review: SHA-256 of its canonical JSON (40 hex digits)."""
    canon = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canon.encode()).hexdigest()[:40]


def check_upload(record: Any, seat: Any) -> int:
    """The seat of a valid upload, or ``ApiError`` (400) naming what is wrong."""
    if not isinstance(record, dict):
        raise ApiError(400, "bad_record", "record must be a spades-record/1 object")
    hands = record.get("hands")
    if isinstance(hands, list) and len(hands) > MAX_HANDS:
        raise ApiError(400, "bad_record", f"a record may hold at most {MAX_HANDS} hands to be reviewed")
    try:
        game = read_record(record)
    except SpadesError as e:
        raise ApiError(400, "bad_record", f"the record does not replay: {e}") from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError) as e:
        raise ApiError(400, "bad_record", f"the record cannot be read: {e}") from None
    n = game.rules.layout.n
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
        raise ApiError(400, "bad_seat", f"seat must be a seat from 0 to {n - 1}")
    if not game.hands:
        raise ApiError(400, "bad_record", "the record holds no hand to review")
    return seat


def review_router(hub: Callable[[], Any], current_player: Callable[..., Awaitable[Any]]) -> APIRouter:
    """The review routes, given the app's hub and its ``current_player(request, response, create=True)``."""
    router = APIRouter()
    state: dict[str, ReviewQueue] = {}

    async def save(job: Job, result: dict[str, Any]) -> None:
        await hub().db(hub().storage.save_review, job.review_id, job.table_id, job.seat, result)

    def queue() -> ReviewQueue:
        if "queue" not in state:
            state["queue"] = ReviewQueue(save)
        return state["queue"]

    async def answer(review_id: str, seat: int) -> dict[str, Any]:
        status = queue().status(review_id)
        if status is not None and status["state"] != "done":
            return status
        stored = await hub().db(hub().storage.get_review, review_id)
        if stored is not None:
            return {"id": review_id, "seat": seat, "state": "done", "review": stored}
        return status or {"id": review_id, "seat": seat, "state": "none"}

    async def table_seat(table_id: str, request: Request, response: Response) -> tuple[str, int]:
        p = await current_player(request, response)
        table_id = table_id[:32]
        seats = [s for s, pid in await hub().db(hub().storage.game_seats, table_id) if pid == p.id]
        if not seats:
            if await hub().game_record(table_id) is None:
                raise ApiError(404, "not_finished", "that game is not finished (or does not exist)")
            raise ApiError(403, "not_your_seat",
                              "only a player of this game can review it, for the seat they played")
        want = request.query_params.get("seat")
        if want is not None:
            if not (want.isascii() and want.isdigit()) or int(want) not in seats:  # isdigit alone takes "²"
                raise ApiError(403, "not_your_seat", "you can review only the seat you played")
            return p.id, int(want)
        return p.id, seats[0]

    @router.post("/api/tables/{table_id}/review", response_model=None)
    async def start_table_review(table_id: str, request: Request, response: Response) -> Any:
        """Start (or read) the review of a finished game for the seat the player played."""
        try:
            player_id, seat = await table_seat(table_id, request, response)
            review_id = f"t-{table_id[:32]}-{seat}"
            have = await answer(review_id, seat)
            if have["state"] in ("done", "queued", "running"):
                return have
            record = await hub().game_record(table_id[:32])
            if record is None:
                raise ApiError(404, "not_finished", "that game is not finished (or does not exist)")
            queue().submit(Job(review_id, player_id, table_id[:32], seat, record))
            return await answer(review_id, seat)
        except ApiError as e:
            return e.response()

    @router.get("/api/tables/{table_id}/review", response_model=None)
    async def table_review(table_id: str, request: Request, response: Response) -> Any:
        """The review of a finished game for the player's seat: its status, or the review once done."""
        try:
            _, seat = await table_seat(table_id, request, response)
            return await answer(f"t-{table_id[:32]}-{seat}", seat)
        except ApiError as e:
            return e.response()

    @router.post("/api/reviews", response_model=None, openapi_extra=UPLOAD_SCHEMA)
    async def start_upload_review(request: Request, response: Response) -> Any:
        """Review an uploaded record for any seat: ``{"record": {...}, "seat": s}``."""
        try:
            p = await current_player(request, response)
            body = parse_json(await read_body(request, MAX_RECORD_BYTES))
            if not isinstance(body, dict):
                raise ApiError(400, "malformed", 'the request body must be {"record": {...}, "seat": s}')
            record = body.get("record")
            seat = await asyncio.to_thread(check_upload, record, body.get("seat"))
            assert isinstance(record, dict)
            review_id = f"u-{record_digest(record)}-{seat}"
            have = await answer(review_id, seat)
            if have["state"] in ("done", "queued", "running"):
                return have
            queue().submit(Job(review_id, p.id, None, seat, record))
            return await answer(review_id, seat)
        except ApiError as e:
            return e.response()

    @router.get("/api/reviews/{review_id}", response_model=None)
    async def upload_review(review_id: str) -> Any:
        """An uploaded record's review: its status, or the review once done."""
        if not REVIEW_ID.fullmatch(review_id):
            return ApiError(404, "no_review", "no such review").response()
        seat = int(review_id.rsplit("-", 1)[1])
        have = await answer(review_id, seat)
        if have["state"] == "none":
            return ApiError(404, "no_review", "no such review").response()
        return have

    return router
