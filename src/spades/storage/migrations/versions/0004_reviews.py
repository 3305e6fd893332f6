"""Game reviews (``spades.ai.review``) kept so each is computed once: one row per reviewed game and seat,
the review's JSON. An online game's review is keyed by its table and seat (deleted with the table); an
uploaded record's by a digest of the record and the seat.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the reviews table."""
    op.create_table(
        "reviews",
        sa.Column("review_id", sa.String(80), primary_key=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("reviews")
