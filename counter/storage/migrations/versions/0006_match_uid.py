"""Give every match a uid that export and import keep, so importing twice adds nothing.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-29
"""

import uuid

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.add_column(sa.Column("uid", sa.String(32), nullable=True))
    connection = op.get_bind()
    ids = connection.execute(sa.text("SELECT id FROM match")).scalars().all()
    for match_id in ids:
        connection.execute(
            sa.text("UPDATE match SET uid = :uid WHERE id = :id"),
            {"uid": uuid.uuid4().hex, "id": match_id},
        )
    with op.batch_alter_table("match") as batch:
        batch.alter_column("uid", existing_type=sa.String(32), nullable=False)
        batch.create_unique_constraint("uq_match_owner_uid", ["owner", "uid"])


def downgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.drop_constraint("uq_match_owner_uid", type_="unique")
        batch.drop_column("uid")
