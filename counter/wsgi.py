"""The production entry point (gunicorn counter.wsgi:app): it invents no secret key."""

from counter import create_app

app = create_app(production=True)
