"""Each deal keeps the house rules it was recorded under; each match when it was last played.

Deals recorded before this revision take their match's rules of today, the best
that is known of them. Matches can now be deleted, so on SQLite their ids become
AUTOINCREMENT: an id is never used twice (PostgreSQL's sequences never do).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

RULES = {
    "failed_close": "by_tricks",
    "wrong_claim": "always_2",
    "next_dealer": "winner",
    "ties": "not_recorded",
}


def upgrade() -> None:
    with op.batch_alter_table("deal") as batch:
        for name, default in RULES.items():
            batch.add_column(sa.Column(name, sa.String(16), nullable=False, server_default=default))
    for name in RULES:
        op.execute(
            f"UPDATE deal SET {name} = "
            f"(SELECT match.{name} FROM match WHERE match.id = deal.match_id)"
        )
    with op.batch_alter_table("match") as batch:
        batch.add_column(sa.Column("played_at", sa.DateTime(), nullable=True))
    op.execute(
        "UPDATE match SET played_at = COALESCE("
        "(SELECT MAX(COALESCE(deal.corrected_at, deal.created_at)) FROM deal "
        "WHERE deal.match_id = match.id), match.created_at)"
    )
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "match",
        recreate="always" if sqlite else "auto",  # a new table is how SQLite takes AUTOINCREMENT
        table_kwargs={"sqlite_autoincrement": True},
    ) as batch:
        batch.alter_column("played_at", existing_type=sa.DateTime(), nullable=False)
        batch.create_index("ix_match_owner_played", ["owner", "played_at"])


def downgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.drop_index("ix_match_owner_played")
        batch.drop_column("played_at")
    with op.batch_alter_table("deal") as batch:
        for name in RULES:
            batch.drop_column(name)
