"""Where matches are kept: the database's tables, migrations, transactions and push."""
