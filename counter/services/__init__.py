"""The use cases: every way in (HTML forms, JSON API) reads and changes matches here."""
