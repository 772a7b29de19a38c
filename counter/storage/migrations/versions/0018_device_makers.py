"""Which device brought which: a device that came by a link remembers the device that made
it (``device.brought_by``, from ``device_link.device_id``), so that it can never remove
that device nor take its matches away; and a device's old cookie token, once "Forget other
devices" gave it a new one, is a row of its own that holds nothing (``replaced_at``).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("device") as batch:
        batch.add_column(sa.Column("brought_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("replaced_at", sa.DateTime(), nullable=True))
        batch.create_foreign_key(
            "fk_device_brought_by", "device", ["brought_by"], ["id"], ondelete="SET NULL"
        )
    with op.batch_alter_table("device_link") as batch:
        batch.add_column(sa.Column("device_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_device_link_device", "device", ["device_id"], ["id"], ondelete="CASCADE"
        )


def downgrade() -> None:
    with op.batch_alter_table("device_link") as batch:
        batch.drop_constraint("fk_device_link_device", type_="foreignkey")
        batch.drop_column("device_id")
    with op.batch_alter_table("device") as batch:
        batch.drop_constraint("fk_device_brought_by", type_="foreignkey")
        batch.drop_column("replaced_at")
        batch.drop_column("brought_by")
