"""The storage suite, on SQLite, on the local PostgreSQL (under CI=true it must run there) and in memory
(``MemoryStorage`` keeps the same promises as the SQL storage)."""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from spades.storage import (
    DuplicateError,
    EventRow,
    GameSeat,
    MemoryStorage,
    SqlStorage,
    Storage,
    TableRow,
    open_storage,
)
from spades.storage.schema import metadata
from spades.storage.sql import WAL_CHECKPOINT_PAGES, is_busy

PG_URL = os.environ.get("SPADES_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def pg_schema_url() -> Iterator[str]:
    """A fresh schema on the test PostgreSQL, dropped afterwards; skipped (failed under CI) if unreachable."""
    admin_url = "postgresql+psycopg://" + PG_URL.split("://", 1)[1]
    try:
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text("select 1"))
    except Exception as e:  # pragma: no cover - depends on the machine
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL at {PG_URL} is unreachable under CI: {e}")
        pytest.skip(f"PostgreSQL at {PG_URL} is unreachable")
    schema = "spades_test_" + secrets.token_hex(6)
    with admin.connect() as c:
        c.execute(text(f'create schema "{schema}"'))
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as c:
            c.execute(text(f'drop schema "{schema}" cascade'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    """A fresh storage of each kind: migrated SQLite and PostgreSQL databases, and one in memory."""
    if request.param == "memory":
        yield MemoryStorage()
        return
    if request.param == "sqlite":
        st = open_storage(f"sqlite:///{tmp_path / 'spades.db'}")
        yield st
        st.close()
        return
    yield from pg_storage()


def pg_storage() -> Iterator[SqlStorage]:
    """A migrated storage on a fresh PostgreSQL schema; closed, and the schema dropped, afterwards."""
    gen = pg_schema_url()
    st = open_storage(next(gen))
    try:
        yield st
    finally:
        st.close()
        with pytest.raises(StopIteration):
            next(gen)


def table(tid: str = "t1", public: bool = True) -> TableRow:
    return TableRow(tid, {"preset": "standard", "target": 100}, {"turn_seconds": 30}, public,
                    None if public else "code-" + tid, None, 1.0)


@pytest.fixture(params=["sqlite", "postgresql"])
def sql_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlStorage]:
    """A freshly migrated storage on each database."""
    if request.param == "sqlite":
        st = open_storage(f"sqlite:///{tmp_path / 'spades.db'}")
        yield st
        st.close()
        return
    yield from pg_storage()


def test_migrations_match_the_schema(sql_store: SqlStorage) -> None:
    store = sql_store
    insp = inspect(store.engine)
    for name, t in metadata.tables.items():
        cols = {c["name"] for c in insp.get_columns(name)}
        assert cols == {c.name for c in t.columns}, name
    # Applying again at the next start is a no-op.
    from spades.storage.sql import migrate
    migrate(store.engine)


def test_the_log_has_one_unique_index_the_event_number(sql_store: SqlStorage) -> None:
    """Since migration 0006 the events' only uniqueness is their number per table: the client-id index is
    gone (the table answers a client id seen before, ``ClientIds``), so a person's move writes one b-tree
    leaf fewer at each group commit."""
    with sql_store.engine.connect() as c:
        if sql_store.engine.dialect.name == "sqlite":
            unique = {r[1] for r in c.execute(text("PRAGMA index_list('events')")) if r[2]}
            assert unique == {"sqlite_autoindex_events_1"}
            cols = [r[2] for r in c.execute(text("PRAGMA index_info('sqlite_autoindex_events_1')"))]
            assert cols == ["table_id", "seq"]
        else:
            names = {r[0] for r in c.execute(text("select indexname from pg_indexes where tablename = 'events'"))}
            assert "uq_events_client_id" not in names and "uq_events_table_seq" in names


def test_an_older_database_is_migrated_with_its_events(tmp_path: Path) -> None:
    """A database at migration 0004 (the client-id constraint over every row) keeps every event through
    0005's rebuild of the table and 0006's drop of the client-id index, and still refuses a used number."""
    from alembic import command
    from alembic.config import Config

    from spades.storage.sql import MIGRATIONS, migrate

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0004")
    with engine.begin() as conn:
        conn.execute(text("insert into tables (id, rules, settings, public, invite_code, created_by, created_at, "
                          "status) values ('t1', '{}', '{}', 1, null, null, 1.0, 'playing')"))
        for seq, client in ((1, None), (2, "c1"), (3, None)):
            conn.execute(text("insert into events (table_id, seq, kind, data, player_id, client_id, created_at) "
                              "values ('t1', :seq, 'action', '{}', :p, :c, 1.0)"),
                         {"seq": seq, "p": client and "p1", "c": client})
    migrate(engine)
    engine.dispose()
    st = open_storage(url)
    try:
        assert [(e.seq, e.client_id) for e in st.load_events("t1")] == [(1, None), (2, "c1"), (3, None)]
        with pytest.raises(DuplicateError):
            st.append_events("t1", [EventRow(3, "action", {"a": 4}, "p1", "c2")])
        st.append_events("t1", [EventRow(4, "action", {"a": 4}), EventRow(5, "action", {"a": 5}, "p1", "c2")])
        assert [(e.seq, e.client_id) for e in st.load_events("t1")] == [(1, None), (2, "c1"), (3, None),
                                                                          (4, None), (5, "c2")]
    finally:
        st.close()


def test_sqlite_uses_wal(tmp_path: Path) -> None:
    st = open_storage(f"sqlite:///{tmp_path / 'w.db'}")
    with st.engine.connect() as c:
        assert c.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert c.execute(text("PRAGMA wal_autocheckpoint")).scalar() == WAL_CHECKPOINT_PAGES > 1000
    st.close()


def test_players_sessions_accounts(store: Storage) -> None:
    p = store.create_player("Ann")
    token = store.create_session(p.id)
    assert store.session_player(token) == p
    assert store.session_player("nope") is None
    store.set_account(p.id, "ann", "hash1")
    found = store.account("ann")
    assert found is not None and found[0].id == p.id and found[1] == "hash1"
    q = store.create_player("Bob")
    with pytest.raises(DuplicateError):
        store.set_account(q.id, "ann", "hash2")
    store.rename_player(p.id, "Annie")
    assert store.get_player(p.id) is not None and store.get_player(p.id).name == "Annie"  # type: ignore[union-attr]
    store.delete_session(token)
    assert store.session_player(token) is None


def test_tables_lobby_invites(store: Storage) -> None:
    store.create_table(table("pub"))
    store.create_table(table("priv", public=False))
    assert [t.id for t in store.public_tables()] == ["pub"]
    got = store.table_by_invite("code-priv")
    assert got is not None and got.id == "priv" and got.rules == {"preset": "standard", "target": 100}
    assert {t.id for t in store.open_tables()} == {"pub", "priv"}
    store.set_table_status("pub", "over")
    assert store.public_tables() == []


def test_a_players_open_tables_are_counted_oldest_first(store: Storage) -> None:
    def made(tid: str, by: str | None, at: float) -> TableRow:
        return TableRow(tid, {"preset": "standard"}, {"computer": tid.startswith("c")}, False, None, by, at)

    for row in (made("t2", "ann", 2.0), made("c1", "ann", 1.0), made("t3", "ann", 3.0), made("b1", "bob", 0.5),
                made("x", None, 0.1)):
        store.create_table(row)
    got = store.player_open_tables("ann")
    assert [t.id for t in got] == ["c1", "t2", "t3"] and got[0].settings == {"computer": True}
    store.set_table_status("t2", "over")  # a finished table frees its place
    assert [t.id for t in store.player_open_tables("ann")] == ["c1", "t3"]
    assert [t.id for t in store.player_open_tables("bob")] == ["b1"] and store.player_open_tables("cy") == []


def test_event_log_is_append_only_and_unique(store: Storage) -> None:
    store.create_table(table())
    rows = [EventRow(1, "seat", {"seat": 0}), EventRow(2, "action", {"a": 1}, "p1", "c1")]
    store.append_events("t1", rows)
    with pytest.raises(DuplicateError):
        store.append_events("t1", [EventRow(2, "action", {"a": 2})])
    # A batch with a used number is refused whole: nothing of it is stored, its chat line neither.
    with pytest.raises(DuplicateError):
        store.append_events("t1", [EventRow(3, "chat", {"name": "a", "text": "x", "player": "p1"}),
                                   EventRow(2, "action", {"a": 3}, "p1", "c2")])
    assert [e.seq for e in store.load_events("t1")] == [1, 2]
    assert store.chat_history("t1") == []
    store.append_events("t1", [EventRow(3, "chat", {"name": "Ann", "text": "<b>hi</b>", "player": "p1"}, "p1")])
    assert [e.seq for e in store.load_events("t1", after=1)] == [2, 3]
    assert store.chat_history("t1")[0].text == "<b>hi</b>"
    assert store.load_events("t1")[1].data == {"a": 1}


def test_group_commit_keeps_each_tables_batch_whole(store: Storage) -> None:
    """Several tables' rows in one call: all stored together, or, when one batch breaks a rule, that batch
    alone is refused (its error in its place) and the others are stored."""
    for tid in ("t1", "t2", "t3"):
        store.create_table(table(tid))
    assert store.append_many([("t1", [EventRow(1, "seat", {"seat": 0})]),
                              ("t2", [EventRow(1, "seat", {"seat": 1}), EventRow(2, "action", {"a": 1}, "p", "c")])]) \
        == [None, None]
    errors = store.append_many([("t1", [EventRow(2, "action", {"a": 2})]),
                                ("t2", [EventRow(3, "chat", {"name": "a", "text": "x", "player": "p"}),
                                        EventRow(2, "action", {"a": 3}, "p", "d")]),  # number 2 again
                                ("t3", [EventRow(1, "chat", {"name": "b", "text": "y", "player": "q"})])])
    assert errors[0] is None and isinstance(errors[1], DuplicateError) and errors[2] is None
    assert [e.seq for e in store.load_events("t1")] == [1, 2]
    assert [e.seq for e in store.load_events("t2")] == [1, 2] and store.chat_history("t2") == []
    assert [c.text for c in store.chat_history("t3")] == ["y"]


def test_a_hand_record_is_stored_with_its_deal_or_not_at_all(store: Storage) -> None:
    """The record entry a deal's row carries (``EventRow.hand_record``, of the hand it lets go) is stored
    with the row, by that hand, beside the log and not in it; a batch refused whole keeps its entry out;
    both writing paths (one table, the group commit) store it."""
    for tid in ("t1", "t2"):
        store.create_table(table(tid))
    assert store.hand_records("t1") == []
    deal = EventRow(2, "deal", {"hand": 1, "order": [1, 2]}, None, None, 5.0, b"\x78\x9c hand 0")
    store.append_events("t1", [EventRow(1, "seat", {"seat": 0}), deal])
    assert store.hand_records("t1") == [b"\x78\x9c hand 0"]
    stored = store.load_events("t1")[1]
    assert stored == deal and stored.hand_record is None and stored.data == {"hand": 1, "order": [1, 2]}
    errors = store.append_many([
        ("t1", [EventRow(3, "deal", {"hand": 2}, None, None, 6.0, b"hand 1"),
                EventRow(2, "action", {"a": 1})]),  # number 2 again: the batch and its entry stay out
        ("t2", [EventRow(1, "deal", {"hand": 3}, None, None, 6.0, b"t2 hand 2"),
                EventRow(2, "deal", {"hand": 4}, None, None, 7.0, b"t2 hand 3")])])
    assert isinstance(errors[0], DuplicateError) and errors[1] is None
    assert store.hand_records("t1") == [b"\x78\x9c hand 0"]
    assert store.hand_records("t2") == [b"t2 hand 2", b"t2 hand 3"]
    store.append_many([("t1", [EventRow(3, "deal", {"hand": 2}, None, None, 6.0, b"hand 1")])])
    assert store.hand_records("t1") == [b"\x78\x9c hand 0", b"hand 1"]


def test_a_locked_sqlite_file_is_busy_for_the_group_commit(tmp_path: Path) -> None:
    """The group commit on SQLite (the driver's own connection) says a lock held by another connection is
    a busy database (``is_busy``: the server answers ``storage_busy``), for every table's batch, and stores
    nothing; once the lock is gone the same rows go in."""
    path = tmp_path / "spades.db"
    st = open_storage(f"sqlite:///{path}", 0.2)
    try:
        for tid in ("t1", "t2"):
            st.create_table(table(tid))
        locker = sqlite3.connect(path)
        locker.execute("BEGIN IMMEDIATE")
        batches = [("t1", [EventRow(1, "seat", {"seat": 0})]), ("t2", [EventRow(1, "action", {"a": 1}, "p", "c")])]
        errors = st.append_many(batches)
        assert len(errors) == 2 and all(e is not None and is_busy(e) for e in errors), errors
        locker.rollback()
        locker.close()
        assert st.load_events("t1") == [] and st.load_events("t2") == []
        assert st.append_many(batches) == [None, None]
        assert [e.client_id for e in st.load_events("t2")] == ["c"]
    finally:
        st.close()


def test_finished_games_history_and_leaderboard(store: Storage) -> None:
    store.create_table(table())
    a, b = store.create_player("A"), store.create_player("B")
    record = {"format": "spades-record/1", "rules": "standard", "hands": []}
    store.finish_game("t1", record, True, 0, [GameSeat(0, a.id, 0, True, 120, 0.0, 5.0, 30.0, 7.0),
                                               GameSeat(1, b.id, 1, False, 40, 0.0, -3.0, 20.0, 7.0)])
    assert store.game_record("t1") == record
    assert store.open_tables() == []
    assert [p.id for p in store.leaderboard()] == [a.id, b.id]
    h = store.history(a.id)
    assert h[0]["won"] is True and h[0]["points"] == 120 and h[0]["rated"] is True
    assert sorted(store.game_player_ids("t1")) == sorted([a.id, b.id])


def test_the_server_on_postgresql_resumes_a_table() -> None:
    """The whole server on PostgreSQL: play a few moves, restart, and the table is where it was."""
    from spades.server.config import ServerConfig

    from .harness import LiveServer, Player, seat_four, wait_turn
    from .test_play import choose

    gen = pg_schema_url()
    url = next(gen)
    try:
        cfg = {"database_url": url, "bot_delay": 0.0, "rate_per_second": 500.0, "rate_burst": 1000.0}
        srv = LiveServer(ServerConfig(**cfg)).start()  # type: ignore[arg-type]
        try:
            tid, ps, socks = seat_four(lambda: Player(srv.url, srv.ws_url), {"preset": "standard", "target": 100})
            humans = dict(enumerate(socks))
            for _ in range(10):
                seat = wait_turn(socks, humans)
                assert seat is not None
                assert socks[seat].act(choose(socks[seat].view))["type"] == "ack"  # type: ignore[arg-type]
            wait_turn(socks, humans)
            seq, state = socks[0].seq, dict(socks[0].state or {}, turn=None)
        finally:
            srv.stop()
        srv = LiveServer(ServerConfig(**cfg)).start()  # type: ignore[arg-type]
        try:
            p = Player(srv.url, srv.ws_url)
            p.http.cookies.set("spades_session", ps[0].token)
            p.token = ps[0].token
            s = p.sock(tid, last_seq=seq)
            m = s.recv()
            assert m["type"] == "state" and m["seq"] == seq and dict(m["state"], turn=None) == state
        finally:
            srv.stop()
    finally:
        with pytest.raises(StopIteration):
            next(gen)


def test_score_games_per_player(store: Storage) -> None:
    ann, bob = store.create_player("Ann"), store.create_player("Bob")
    data = {"id": "g1", "hands": [{"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]}]}
    outcome, row = store.save_score_game(ann.id, "g1", "Friday", data, 10.0, limit=2)
    assert outcome == "saved" and row is not None and row.data == data
    assert store.save_score_game(ann.id, "g1", "Older", data, 5.0, limit=2)[0] == "newer"
    assert store.save_score_game(ann.id, "g2", "Saturday", data, 20.0, limit=2)[0] == "saved"
    assert store.save_score_game(ann.id, "g3", "Sunday", data, 30.0, limit=2) == ("full", None)
    assert store.save_score_game(bob.id, "g1", "Bob's", {}, 1.0, limit=2)[0] == "saved"
    assert [(g.game_id, g.name) for g in store.score_games(ann.id)] == [("g2", "Saturday"), ("g1", "Friday")]
    assert [g.name for g in store.score_games(bob.id)] == ["Bob's"]
    assert store.delete_score_game(ann.id, "g1") and not store.delete_score_game(ann.id, "g1")
    assert [g.game_id for g in store.score_games(bob.id)] == ["g1"]


def test_reviews_are_kept_once_and_go_with_their_table(store: SqlStorage) -> None:
    store.create_table(table("rv"))
    p = store.create_player("Ann")
    store.finish_game("rv", {"format": "spades-record/1", "hands": []}, False, 0,
                      [GameSeat(2, p.id, 0, True, 100)])
    assert store.game_seats("rv") == [(2, p.id)]
    assert store.get_review("t-rv-2") is None
    store.save_review("t-rv-2", "rv", 2, {"seat": 2, "decisions": []})
    store.save_review("t-rv-2", "rv", 2, {"seat": 2, "decisions": [1]})  # a second save changes nothing
    assert store.get_review("t-rv-2") == {"seat": 2, "decisions": []}
    store.save_review("u-abc-1", None, 1, {"seat": 1})
    assert store.get_review("u-abc-1") == {"seat": 1}
