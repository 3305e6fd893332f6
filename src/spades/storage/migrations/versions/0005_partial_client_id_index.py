"""The events' client-id uniqueness as a partial index, over the rows that have a client id.

A computer's moves, the deals and the other rows the server makes itself have no client id (half the rows
of a table of two people and two computers), and NULLs never conflicted under the unique constraint, but
every row still went into its index: one more b-tree leaf written per row at every group commit. The
partial unique index refuses exactly what the constraint refused and holds only the people's actions; on
SQLite the insert costs about a quarter less of the database thread's CPU (``benchmarks/README.md``,
issue 19). On SQLite dropping a constraint rebuilds the table (Alembic's batch mode copies its rows).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

COLUMNS = ["table_id", "player_id", "client_id"]
HAS_ID = sa.text("client_id IS NOT NULL")


def upgrade() -> None:
    """Replace the constraint by the partial index (same name, same refusals)."""
    with op.batch_alter_table("events") as batch:
        batch.drop_constraint("uq_events_client_id", type_="unique")
    op.create_index("uq_events_client_id", "events", COLUMNS, unique=True, sqlite_where=HAS_ID,
                    postgresql_where=HAS_ID)


def downgrade() -> None:
    """The unique constraint over every row again."""
    op.drop_index("uq_events_client_id", table_name="events")
    with op.batch_alter_table("events") as batch:
        batch.create_unique_constraint("uq_events_client_id", COLUMNS)
