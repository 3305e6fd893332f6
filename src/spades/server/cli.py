"""``spades serve`` and ``spades bench server``, registered on the main command by ``register``."""

from __future__ import annotations

import gc
import json
import logging
import os
from typing import Annotated, Any

import typer

from spades.server.config import COMMIT_GATHER

CONFIG_ENV = "SPADES_SERVE_CONFIG"
"""How ``spades serve --workers N`` hands its settings to each worker process."""


def cluster_problem(database: str | None, redis: str | None, workers: int, lease_seconds: float) -> str | None:
    """What is wrong with the options for several processes, if anything (SQLite alone needs none)."""
    from spades.storage.sql import default_database_url, normalize_url

    if workers < 1:
        return "--workers must be at least 1"
    if workers > 1 and not redis:
        return "--workers above 1 needs --redis redis://... (and a PostgreSQL --database): the processes share tables"
    if not redis:
        return None
    if not redis.startswith(("redis://", "rediss://", "unix://")):
        return f"--redis must be a redis://host:port/db URL, not {redis[:60]!r}"
    if not normalize_url(database or default_database_url()).startswith("postgresql"):
        return "--redis needs a PostgreSQL --database (postgresql://...): SQLite serves one process only"
    if not 0.5 <= lease_seconds <= 300:
        return "--lease-seconds must be 0.5 to 300"
    try:
        import redis as redis_sync

        client = redis_sync.Redis.from_url(redis, socket_connect_timeout=3, socket_timeout=3)
        client.ping()
        client.close()
    except Exception as e:
        return f"cannot reach Redis at {redis}: {e}"
    return None


def parse_quota_options(items: list[str]) -> tuple[dict[str, str], str | None]:
    """``--quota NAME=RATE`` options as ``ServerConfig.quotas``, or what is wrong with them."""
    from spades.server.quotas import parse_quotas

    out: dict[str, str] = {}
    for item in items:
        for part in item.split():  # SPADES_QUOTAS holds several, separated by spaces
            name, sep, rate = part.partition("=")
            if not sep:
                return {}, f"--quota takes NAME=RATE (e.g. guests=10/minute), not {part[:60]!r}"
            out[name.strip()] = rate.strip()
    try:
        parse_quotas(out)
    except ValueError as e:
        return {}, str(e)
    return out, None


def uvicorn_options(host: str, port: int) -> dict[str, Any]:
    """How ``spades serve`` runs uvicorn. Proxy headers are never read by uvicorn itself (it would believe
    them from 127.0.0.1): the application reads them from ``ServerConfig.trusted_proxies`` only. Sockets
    are served by ``LeanWebSocketProtocol`` (uvicorn's own, holding less per open socket)."""
    from spades.server.socket_protocol import LeanWebSocketProtocol

    return {"host": host, "port": port, "ws_max_size": 65536, "log_level": "info", "proxy_headers": False,
            "ws": LeanWebSocketProtocol, "ws_per_message_deflate": False, "ws_ping_interval": 20,
            "ws_ping_timeout": 20}


GC_THRESHOLD = (20_000, 20, 10)
"""The collector's thresholds in a server process (Python's default is (700, 10, 10))."""


def build_app(cfg: Any) -> Any:
    """The server application with the browser pages (when the web package is installed), the process's
    garbage collector set for a server (``tune_gc``)."""
    from spades.server.app import create_app

    web = create_app(cfg)
    try:  # the browser pages, when the web package is installed: mounted last, at "/"
        from spades.web.api import mount
    except ImportError:
        pass
    else:
        mount(web)
    tune_gc()
    return web


def tune_gc() -> None:
    """Set the garbage collector for a long-running server: what exists once the application is built
    (modules, classes, the framework's routes: about 100,000 objects) moves to the permanent generation
    (``gc.freeze``), which collections no longer scan, and a young generation of ``GC_THRESHOLD[0]``
    objects instead of 700 makes collections far rarer. Objects are still freed when their count of
    references falls to zero; only cyclic garbage waits for a collection. At 1,000 players the default
    spent a large part of the event loop in collections (a full collection of some 350,000 objects took
    hundreds of milliseconds), and the server handled about 280 moves a second instead of 400
    (``benchmarks/README.md``, issue 19)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def worker_app() -> Any:
    """The application of one ``spades serve --workers N`` process (settings from ``CONFIG_ENV``)."""
    from spades.server.config import ServerConfig

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = json.loads(os.environ[CONFIG_ENV])
    settings["allowed_origins"] = tuple(settings["allowed_origins"])
    settings["trusted_proxies"] = tuple(settings["trusted_proxies"])
    return build_app(ServerConfig(**settings))


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
        redis: Annotated[str | None, typer.Option(
            help="redis://host:port/db: run as one of several processes sharing a PostgreSQL database "
                 "(docs/cluster.md)")] = None,
        workers: Annotated[int, typer.Option(help="server processes on this machine (more than 1 needs --redis)")] = 1,
        redis_prefix: Annotated[str, typer.Option(help="prefix of every Redis key and channel")] = "spades:",
        lease_seconds: Annotated[float, typer.Option(
            help="how long a process owns a table without renewing (a dead one's tables move after this)",
            hidden=True)] = 5.0,
        seed_seconds: Annotated[float, typer.Option(
            help="how long a deal waits for the players' client seeds (0 to 60 seconds)")] = 4.0,
        trusted_proxy: Annotated[list[str] | None, typer.Option(
            envvar="SPADES_TRUSTED_PROXIES",
            help="the address of a reverse proxy whose X-Forwarded-For is believed (repeatable); from any other "
                 "peer the header is ignored")] = None,
        hsts_seconds: Annotated[int, typer.Option(
            envvar="SPADES_HSTS_SECONDS",
            help="send Strict-Transport-Security for this many seconds (only for a site served over HTTPS)")] = 0,
        quota: Annotated[list[str] | None, typer.Option(
            envvar="SPADES_QUOTAS",
            help="NAME=RATE to change a quota, e.g. guests=10/minute;100/hour or chat=none (repeatable; "
                 "docs/security.md lists them)")] = None,
        storage_wait: Annotated[float, typer.Option(
            help="seconds a move or request waits for a locked or stalled database before it is answered "
                 "'busy, try again' (0.5 to 60)")] = 5.0,
        commit_gather_ms: Annotated[float, typer.Option(
            help="milliseconds the group commit waits for more moves while they keep coming (0 to 50; 0: "
                 "never)")] = COMMIT_GATHER * 1000,
        sockets_per_player: Annotated[int, typer.Option(
            help="table sockets one player may hold open at once in this process")] = 20,
        idle_table_seconds: Annotated[float, typer.Option(
            help="a table nobody uses for this long leaves memory (it is loaded again from its log on use)")] = 1800.0,
        open_tables_per_player: Annotated[int, typer.Option(
            help="tables one player may hold open (not finished) at once; the next is refused")] = 10,
        computer_games_per_player: Annotated[int, typer.Option(
            help="games against the computer one player may hold open at once; over it their oldest game "
                 "with nobody connected is ended to make room")] = 5,
    ) -> None:
        """Run the web server: HTTP + WebSocket play, lobby, accounts (Ctrl-C stops it)."""
        from spades.cliutil import SERVER_MODULES, need_extra

        need_extra("server", "spades serve", SERVER_MODULES)
        import uvicorn

        from spades.server.config import ServerConfig

        if not 0 < port < 65536:
            typer.echo("error: --port must be 1 to 65535", err=True)
            raise typer.Exit(2)
        if not 0 <= seed_seconds <= 60:
            typer.echo("error: --seed-seconds must be 0 to 60", err=True)
            raise typer.Exit(2)
        if not 0.5 <= storage_wait <= 60 or sockets_per_player < 1 or idle_table_seconds < 1:
            typer.echo("error: --storage-wait is 0.5 to 60, --sockets-per-player at least 1, "
                       "--idle-table-seconds at least 1", err=True)
            raise typer.Exit(2)
        if not 0 <= commit_gather_ms <= 50:
            typer.echo("error: --commit-gather-ms must be 0 to 50", err=True)
            raise typer.Exit(2)
        if open_tables_per_player < 1 or computer_games_per_player < 1:
            typer.echo("error: --open-tables-per-player and --computer-games-per-player are at least 1", err=True)
            raise typer.Exit(2)
        problem = cluster_problem(database, redis, workers, lease_seconds)
        quotas, quota_problem = parse_quota_options(quota or [])
        problem = problem or quota_problem
        if problem:
            typer.echo(f"error: {problem}", err=True)
            raise typer.Exit(2)
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
        cfg = ServerConfig(database_url=database, bot_delay=max(0.0, bot_delay), time_scale=time_scale,
                           allowed_origins=tuple(origin or ()), redis_url=redis, redis_prefix=redis_prefix,
                           lease_seconds=lease_seconds, seed_seconds=seed_seconds,
                           trusted_proxies=tuple(trusted_proxy or ()), hsts_seconds=max(0, hsts_seconds),
                           quotas=quotas, storage_wait=storage_wait, sockets_per_player=sockets_per_player,
                           idle_table_seconds=idle_table_seconds, open_tables_per_player=open_tables_per_player,
                           computer_games_per_player=computer_games_per_player,
                           commit_gather=commit_gather_ms / 1000)
        options = uvicorn_options(host, port)
        if workers > 1:  # uvicorn's supervisor: N processes accepting on one socket, each a cluster node
            os.environ[CONFIG_ENV] = json.dumps({
                "database_url": database, "bot_delay": cfg.bot_delay, "time_scale": time_scale,
                "allowed_origins": list(cfg.allowed_origins), "redis_url": redis, "redis_prefix": redis_prefix,
                "lease_seconds": lease_seconds, "seed_seconds": seed_seconds,
                "trusted_proxies": list(cfg.trusted_proxies), "hsts_seconds": cfg.hsts_seconds, "quotas": quotas,
                "storage_wait": storage_wait, "sockets_per_player": sockets_per_player,
                "idle_table_seconds": idle_table_seconds, "open_tables_per_player": open_tables_per_player,
                "computer_games_per_player": computer_games_per_player, "commit_gather": cfg.commit_gather})
            uvicorn.run("spades.server.cli:worker_app", factory=True, workers=workers, timeout_graceful_shutdown=10,
                        timeout_worker_healthcheck=60, **options)  # a loaded machine starts workers slowly
            return
        uvicorn.run(build_app(cfg), timeout_graceful_shutdown=10, **options)

    @bench_app.command("server")
    def bench_server(
        players: Annotated[str, typer.Option(help="simultaneous players to try, comma separated")] = "100,250,500,1000",
        seconds: Annotated[float, typer.Option(help="seconds of play measured at each step")] = 10.0,
        think: Annotated[float, typer.Option(help="a simulated player's mean think time, seconds")] = 1.0,
        baseline: Annotated[str | None, typer.Option(
            help="the src folder of another checkout: run its server first at each step and report ratios")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
        processes: Annotated[str, typer.Option(
            help="server processes to try, comma separated (above 1 needs --redis and a PostgreSQL --database)")] = "1",
        database: Annotated[str | None, typer.Option(
            help="with --redis: the PostgreSQL server to use (a fresh schema per step)")] = None,
        redis: Annotated[str | None, typer.Option(
            help="redis://...: run the steps as a site of several processes (a fresh key prefix per step)")] = None,
        routed: Annotated[bool, typer.Option(
            help="with several processes: every person of a table on the process that owns it (as a balancer "
                 "hashing the table id would), not spread over two")] = False,
    ) -> None:
        """Start servers and drive them with simulated players over real WebSockets."""
        from spades.cliutil import SERVER_MODULES, need_extra

        need_extra("server", "spades bench server", SERVER_MODULES)
        from rich.console import Console
        from rich.table import Table

        from spades.server.bench import run_bench

        try:
            steps = [int(x) for x in players.split(",") if x.strip()]
            ks = [int(x) for x in processes.split(",") if x.strip()]
        except ValueError:
            steps, ks = [], []
        if not steps or min(steps) < 1 or seconds <= 0 or think < 0 or not ks or min(ks) < 1:
            typer.echo("error: --players and --processes take positive counts like 100,500; --seconds > 0; "
                       "--think >= 0", err=True)
            raise typer.Exit(2)
        problem = cluster_problem(database, redis, max(ks), 5.0)
        if problem:
            typer.echo(f"error: {problem}", err=True)
            raise typer.Exit(2)
        figures = run_bench(steps, seconds, think, baseline, ks, database, redis, routed)
        if as_json:
            typer.echo(json.dumps(figures))
            return
        t = Table(title=f"spades server (think {think} s, {figures['humans_per_table']} people + bots a table)")
        cols = ["server", "processes", "players", "tables", "actions_per_s", "p50_ms", "p95_ms", "p99_ms",
                "server_cpu_ms_per_event", "server_loop_cpu_ms_per_event", "client_cpu_s", "bytes_per_event_per_viewer",
                "kib_per_connection", "kib_per_connection_end", "rss_mb", "errors"]
        if max(ks) > 1:
            cols[-4:-1] = ["ack_p50_local_ms", "ack_p50_forwarded_ms"]
        for c in cols:
            t.add_column(c, justify="right")
        for row in figures["steps"]:
            t.add_row(*[str(row[c]) for c in cols])
        Console(highlight=False).print(t)
        typer.echo(f"p95 first over 100 ms at: {figures['p95_over_100ms_at'] or 'never in these steps'} players")
        for r in figures.get("ratios", []):
            typer.echo(f"{r['players']} players: baseline / this = {r['p95']} for p95, "
                       f"{r['cpu_ms_per_event']} for server CPU per event, {r['bytes_per_event']} for bytes per "
                       "event per viewer")
