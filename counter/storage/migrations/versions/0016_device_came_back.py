"""A device made by a write without a cookie is new until its cookie comes back; one that
never comes back is forgotten after a while (counter/services/devices.py). Devices there
before count as come back.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("device") as batch:
        batch.add_column(
            sa.Column("came_back", sa.Boolean(), nullable=False, server_default=sa.true())
        )
    never_back = sa.text("NOT came_back")
    op.create_index(
        "ix_device_never_back",
        "device",
        ["created_at"],
        sqlite_where=never_back,
        postgresql_where=never_back,
    )


def downgrade() -> None:
    op.drop_index("ix_device_never_back", table_name="device")
    with op.batch_alter_table("device") as batch:
        batch.drop_column("came_back")
