"""Each match keeps its game (Santase, Sixty-six or Schnapsen), and what it counts in its
series once won (a Bummerl lost to nil counts 2); deals and matches get the house rule of
a match won to nil. Matches from before are Santase, or Sixty-six where their house rules
were the Sixty-six preset's (counter.game.games.game_of says the same for old exports).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

WON = sa.text("won_by IS NOT NULL")
OLD_SIXTY_SIX = (
    "failed_close = 'by_tricks' AND wrong_claim = 'by_tricks' "
    "AND next_dealer = 'winner' AND ties = 'no_points'"
)


def _match_table() -> object:
    sqlite = op.get_bind().dialect.name == "sqlite"
    return op.batch_alter_table(
        "match",
        recreate="always" if sqlite else "auto",  # how SQLite adds a check constraint
        table_kwargs={"sqlite_autoincrement": True},  # which a new table would lose
    )


def upgrade() -> None:
    for table in ("deal", "evening"):  # an evening keeps the house rules its tables start with
        with op.batch_alter_table(table) as batch:
            batch.add_column(
                sa.Column("shutout", sa.String(16), nullable=False, server_default="once")
            )
    with op.batch_alter_table("evening") as batch:  # and the game they are started with
        batch.add_column(sa.Column("game", sa.String(16), nullable=False, server_default="santase"))
    with _match_table() as batch:  # type: ignore[attr-defined]
        batch.add_column(sa.Column("shutout", sa.String(16), nullable=False, server_default="once"))
        batch.add_column(sa.Column("game", sa.String(16), nullable=False, server_default="santase"))
        batch.add_column(sa.Column("marks", sa.SmallInteger()))
        batch.create_check_constraint("ck_match_marks", "marks IN (1, 2)")
        batch.create_check_constraint(
            "ck_match_game", "game IN ('santase', 'sixty_six', 'schnapsen')"
        )
    op.execute(f"UPDATE match SET game = 'sixty_six' WHERE {OLD_SIXTY_SIX}")
    op.execute("UPDATE match SET marks = 1 WHERE won_by IS NOT NULL")
    op.drop_index("ix_match_series", table_name="match")
    op.create_index(
        "ix_match_series",
        "match",
        ["owner", "game", "player1", "player2", "id", "won_by", "marks"],
        sqlite_where=WON,
        postgresql_where=WON,
    )


def downgrade() -> None:
    op.drop_index("ix_match_series", table_name="match")
    op.create_index(
        "ix_match_series",
        "match",
        ["owner", "player1", "player2", "id", "won_by"],
        sqlite_where=WON,
        postgresql_where=WON,
    )
    with _match_table() as batch:  # type: ignore[attr-defined]
        batch.drop_constraint("ck_match_game", type_="check")
        batch.drop_constraint("ck_match_marks", type_="check")
        batch.drop_column("marks")
        batch.drop_column("game")
        batch.drop_column("shutout")
    with op.batch_alter_table("evening") as batch:
        batch.drop_column("game")
    for table in ("deal", "evening"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("shutout")
