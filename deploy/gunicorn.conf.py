"""gunicorn for the counter behind Caddy (deploy/Caddyfile) on one small server.

Run as ``gunicorn -c deploy/gunicorn.conf.py counter.wsgi:app``. Caddy hands gunicorn
only whole requests, so a few threads serve many phones; SANTASE_BIND, SANTASE_WORKERS,
SANTASE_THREADS and SANTASE_ACCESS_LOG change what is set here.
"""

import os

# Loopback only: the world reaches the app through Caddy.
bind = os.environ.get("SANTASE_BIND", "127.0.0.1:8000")

# 2 processes x 128 threads, for one or two CPUs and 1 GB of memory. A thread is held
# for the whole of its request, and a phone or share page showing a match live holds
# one for as long as it stays open (counter.web.live), waiting, not working: most threads
# are for those. The app keeps the last 8 threads of each process (half, with fewer
# than 16) for ordinary requests: a tap never waits behind live pages.
worker_class = "gthread"
workers = int(os.environ.get("SANTASE_WORKERS", "2"))
threads = int(os.environ.get("SANTASE_THREADS", "128"))
os.environ.setdefault("FLASK_LIVE_STREAMS_PER_PROCESS", str(threads - min(8, threads // 2)))

# A worker silent for 30 s is restarted; a stopping one has 20 s to finish its
# requests (systemd waits 30 s: deploy/santase.service).
timeout = 30
graceful_timeout = 20
# Longer than Caddy keeps an idle connection to the app (60 s): Caddy closes first.
keepalive = 75

# Believe X-Forwarded-Proto from Caddy on this machine only (the app's ProxyFix,
# FLASK_TRUSTED_PROXIES=1, reads the same headers).
forwarded_allow_ips = "127.0.0.1,::1"

# No access log unless asked ("-" is stdout, the journal under systemd): no list of
# the players' addresses builds up. Errors go to stderr.
accesslog = os.environ.get("SANTASE_ACCESS_LOG") or None
errorlog = "-"
proc_name = "santase"

# gunicorn 25.1 and later would open a control socket under $HOME; nothing uses it.
control_socket_disable = True


def post_worker_init(worker: object) -> None:
    """A stopping worker ends its live streams at once, instead of holding them until
    ``graceful_timeout`` runs out: their pages reconnect to a worker that stays."""
    import signal
    import threading

    app = worker.wsgi  # type: ignore[attr-defined]
    handle_exit = signal.getsignal(signal.SIGTERM)

    def stopping(number: int, frame: object) -> None:
        if callable(handle_exit):
            handle_exit(number, frame)
        threading.Thread(target=app.extensions["push"].close, daemon=True).start()

    signal.signal(signal.SIGTERM, stopping)
