"""Each finished hand's record entry beside the log: a table no longer holds its finished hands.

A server's table kept the record's entry of every hand its game let go (compressed JSON, about 0.55 KiB a
hand) until the game ended and its record was written: a long game's table grew by that much a hand,
a few KiB of every connection (``benchmarks/README.md``, issue 19, thirteenth session). The entry is now
stored with the deal that lets its hand go, in the same transaction, and read back once, when the game
ends. Games begun before this migration have no entries for their earlier hands; the server makes their
record from the log instead (``Hub._record``), so nothing needs filling in here.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """The hand records' table."""
    op.create_table(
        "hand_records",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("hand", sa.Integer, primary_key=True),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("hand_records")
