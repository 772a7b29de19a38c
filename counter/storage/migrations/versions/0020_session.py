"""Matches, deals and evenings get the house rule of a session: one match, or (Schnapsen)
best of three. Every match from before was played as one.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

TABLES = ("match", "deal", "evening")


def _table(name: str) -> object:
    # A match table rebuilt by SQLite keeps never reusing ids (models.Match).
    kwargs = {"sqlite_autoincrement": True} if name == "match" else {}
    return op.batch_alter_table(name, table_kwargs=kwargs)


def upgrade() -> None:
    for table in TABLES:
        with _table(table) as batch:  # type: ignore[attr-defined]
            batch.add_column(
                sa.Column("session", sa.String(16), nullable=False, server_default="one")
            )


def downgrade() -> None:
    for table in TABLES:
        with _table(table) as batch:  # type: ignore[attr-defined]
            batch.drop_column("session")
