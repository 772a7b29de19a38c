"""Club evenings: an evening of a browser, its players, and its rounds' tables, each linking
to an ordinary match (counter/game/evening.py works out the rest).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

# The house rules each table's match starts with, as the match table keeps them (0005, 0008).
RULES = (
    ("failed_close", "by_tricks"),
    ("wrong_claim", "always_2"),
    ("next_dealer", "winner"),
    ("ties", "not_recorded"),
)


def upgrade() -> None:
    op.create_table(
        "evening",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uid", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("rounds", sa.SmallInteger(), nullable=False),
        sa.Column("target", sa.SmallInteger(), nullable=False),
        *(
            sa.Column(name, sa.String(length=16), server_default=default, nullable=False)
            for name, default in RULES
        ),
        sa.Column("board_token", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("board_token", name="uq_evening_board_token"),
    )
    op.create_index("ix_evening_owner", "evening", ["owner", "id"])
    op.create_table(
        "evening_player",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("evening_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("joined_round", sa.SmallInteger(), nullable=False),
        sa.Column("left_round", sa.SmallInteger(), nullable=True),
        sa.ForeignKeyConstraint(["evening_id"], ["evening.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("evening_id", "name", name="uq_evening_player_name"),
    )
    op.create_table(
        "evening_table",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("evening_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.SmallInteger(), nullable=False),
        sa.Column("number", sa.SmallInteger(), nullable=False),
        sa.Column("player1", sa.Integer(), nullable=False),
        sa.Column("player2", sa.Integer(), nullable=True),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("token", sa.String(length=32), nullable=True),
        sa.Column("awarded_to", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["awarded_to"], ["evening_player.id"]),
        sa.ForeignKeyConstraint(["evening_id"], ["evening.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["player1"], ["evening_player.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["player2"], ["evening_player.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("evening_id", "round", "number", name="uq_evening_table_number"),
        sa.UniqueConstraint("token", name="uq_evening_table_token"),
    )
    op.create_index("ix_evening_table_match_id", "evening_table", ["match_id"])


def downgrade() -> None:
    op.drop_index("ix_evening_table_match_id", table_name="evening_table")
    op.drop_table("evening_table")
    op.drop_table("evening_player")
    op.drop_index("ix_evening_owner", table_name="evening")
    op.drop_table("evening")
