"""Score-keeper games kept on the server for players with an account (the page keeps them in the
browser too): one row per player and game, the game as the page writes it (JSON).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the score_games table."""
    op.create_table(
        "score_games",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game_id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
        sa.Column("stored_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("score_games")
