"""Schemathesis over every HTTP endpoint of the whole application (``create_app`` with the pages mounted),
from its own OpenAPI schema: generated requests, valid and not, never get a server error.

The application runs in this process (uvicorn in a thread) on a fresh SQLite database, with the quotas off
so the generated requests reach the endpoints; each operation gets a bounded number of examples."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings

from spades.server.app import create_app
from spades.server.config import ServerConfig
from spades.server.quotas import DEFAULT_QUOTAS
from spades.web.api import mount

from .conftest import LiveServer

NO_QUOTAS = dict.fromkeys(DEFAULT_QUOTAS, "none")


def whole_app(db: Path | None = None) -> FastAPI:
    url = f"sqlite:///{db}" if db else "sqlite://"
    app = create_app(ServerConfig(database_url=url, bot_delay=0.0, bot_think=0.2, quotas=NO_QUOTAS))
    mount(app)
    return app


schema = schemathesis.openapi.from_dict(whole_app().openapi())
schema.config.generation.update(modes=list(schemathesis.GenerationMode))  # valid requests and invalid ones


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("fuzz-db") / "spades.db"
    server = LiveServer(lambda: whole_app(db), lifespan="on")
    server.start()
    yield server
    server.stop()


def test_the_schema_describes_the_bodies() -> None:
    paths = whole_app().openapi()["paths"]
    for path, method in [("/api/register", "post"), ("/api/tables", "post"), ("/api/play", "post"),
                         ("/api/me/name", "post"), ("/api/scoregames/{game_id}", "put"), ("/api/score", "post")]:
        assert "requestBody" in paths[path][method], path


@pytest.mark.slow  # every operation of the schema, valid and invalid requests: a fuzzer run by ./test
@schema.parametrize()
@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_endpoint_answers_a_server_error(case: Any, fuzz_server: LiveServer) -> None:
    response = case.call(base_url=fuzz_server.url, timeout=30)
    assert response.status_code < 500, (case.method, case.formatted_path, case.body, response.text[:300])
