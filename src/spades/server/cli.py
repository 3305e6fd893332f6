"""``spades serve`` and ``spades bench server``, registered on the main command by ``register``."""

from __future__ import annotations

import logging
from typing import Annotated

import typer


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add the server's commands to the ``spades`` command and its ``bench`` group."""
    del bench_app  # ``spades bench server`` comes with the load benchmark

    @app.command()
    def serve(
        host: Annotated[str, typer.Option(help="the address to listen on")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="the port to listen on")] = 8000,
        database: Annotated[str | None, typer.Option(
            help="a database URL: sqlite:///path or postgresql://...; default SPADES_DATABASE_URL or "
                 "SQLite in the user's data folder")] = None,
        bot_delay: Annotated[float, typer.Option(help="seconds a bot waits before it acts")] = 0.6,
        time_scale: Annotated[float, typer.Option(help="multiplies every turn timer (for tests)",
                                                  hidden=True)] = 1.0,
        origin: Annotated[list[str] | None, typer.Option(
            help="another accepted WebSocket Origin, e.g. https://spades.example (repeatable)")] = None,
    ) -> None:
        """Run the web server: HTTP + WebSocket play, lobby, accounts (Ctrl-C stops it)."""
        import uvicorn

        from spades.server.app import create_app
        from spades.server.config import ServerConfig

        if not 0 < port < 65536:
            typer.echo("error: --port must be 1 to 65535", err=True)
            raise typer.Exit(2)
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
        cfg = ServerConfig(database_url=database, bot_delay=max(0.0, bot_delay), time_scale=time_scale,
                           allowed_origins=tuple(origin or ()))
        web = create_app(cfg)
        try:  # the browser pages, when the web package is installed: mounted last, at "/"
            from spades.web.api import mount
        except ImportError:
            pass
        else:
            mount(web)
        uvicorn.run(web, host=host, port=port, ws_max_size=65536, log_level="info",
                    ws_ping_interval=20, ws_ping_timeout=20)
