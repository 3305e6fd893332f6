"""The events lose their client-id index: the log's unique event number is its guard, and a table's
client ids are answered from the table itself.

An action is applied at most once because the table that applies it remembers every client id of its game
(``spades.server.table.ClientIds``, filled again from the log whenever the table is rebuilt: after a
restart, an eviction or a takeover), and a second owner cannot store it again because the next event
number is already taken (``uq_events_table_seq``) and, in a cluster, the lease's fence refuses a stale
owner first. The unique index over (table, player, client id) refused nothing those did not refuse
already, and it cost every person's move one more b-tree leaf written at each group commit: on SQLite
about a third of the database thread's CPU a stored row (``benchmarks/README.md``, issue 19, ninth
session). Dropping an index does not rebuild the table.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

COLUMNS = ["table_id", "player_id", "client_id"]
HAS_ID = sa.text("client_id IS NOT NULL")


def upgrade() -> None:
    """Drop the client-id index."""
    op.drop_index("uq_events_client_id", table_name="events")


def downgrade() -> None:
    """The partial unique index of migration 0005 again."""
    op.create_index("uq_events_client_id", "events", COLUMNS, unique=True, sqlite_where=HAS_ID,
                    postgresql_where=HAS_ID)
