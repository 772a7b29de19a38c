"""The game of Santase and its rules: pure Python, no Flask, no database."""
