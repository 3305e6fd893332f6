"""``spades serve`` and ``spades bench server``, registered on the main command by ``register``."""

from __future__ import annotations

import json
import logging
from typing import Annotated

import typer


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add the server's commands to the ``spades`` command and its ``bench`` group."""

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
        uvicorn.run(web, host=host, port=port, ws_max_size=65536, log_level="info", ws_per_message_deflate=False,
                    ws_ping_interval=20, ws_ping_timeout=20)

    @bench_app.command("server")
    def bench_server(
        players: Annotated[str, typer.Option(help="simultaneous players to try, comma separated")] = "100,250,500,1000",
        seconds: Annotated[float, typer.Option(help="seconds of play measured at each step")] = 10.0,
        think: Annotated[float, typer.Option(help="a simulated player's mean think time, seconds")] = 1.0,
        baseline: Annotated[str | None, typer.Option(
            help="the src folder of another checkout: run its server first at each step and report ratios")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Start servers and drive them with simulated players over real WebSockets."""
        from rich.console import Console
        from rich.table import Table

        from spades.server.bench import run_bench

        try:
            steps = [int(x) for x in players.split(",") if x.strip()]
        except ValueError:
            steps = []
        if not steps or min(steps) < 1 or seconds <= 0 or think < 0:
            typer.echo("error: --players takes positive counts like 100,500; --seconds > 0; --think >= 0", err=True)
            raise typer.Exit(2)
        figures = run_bench(steps, seconds, think, baseline)
        if as_json:
            typer.echo(json.dumps(figures))
            return
        t = Table(title=f"spades server (think {think} s, {figures['humans_per_table']} people + bots a table)")
        cols = ["server", "players", "tables", "actions_per_s", "p50_ms", "p95_ms", "p99_ms",
                "server_cpu_ms_per_event", "kib_per_connection", "rss_mb", "errors"]
        for c in cols:
            t.add_column(c, justify="right")
        for row in figures["steps"]:
            t.add_row(*[str(row[c]) for c in cols])
        Console(highlight=False).print(t)
        typer.echo(f"p95 first over 100 ms at: {figures['p95_over_100ms_at'] or 'never in these steps'} players")
        for r in figures.get("ratios", []):
            typer.echo(f"{r['players']} players: baseline / this = {r['p95']} for p95, "
                       f"{r['cpu_ms_per_event']} for server CPU per event")
