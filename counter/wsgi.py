"""The production entry point: ``gunicorn 'counter.wsgi:app'``.

Unlike ``create_app()`` for local use, it refuses to start without a SECRET_KEY
from the environment, so that no server invents a key of its own.
"""

from counter import create_app

app = create_app(production=True)
