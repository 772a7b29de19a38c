"""gunicorn for the counter behind Caddy (deploy/Caddyfile) on one small server.

Run twice, as two services (deploy/santase.service, deploy/santase-streams.service):
``gunicorn -c deploy/gunicorn.conf.py counter.wsgi:app`` serves the taps and the pages
with threads; with SANTASE_ROLE=streams the same app serves only the live pages' event
streams, which Caddy sends there, from gevent's event loop: a waiting phone costs a few
kilobytes, not a thread, and a tap never waits behind one. SANTASE_BIND,
SANTASE_WORKERS, SANTASE_THREADS, SANTASE_CONNECTIONS and SANTASE_ACCESS_LOG change what
is set here.
"""

import os

streams = os.environ.get("SANTASE_ROLE", "app") == "streams"

# Loopback only: the world reaches the app through Caddy.
bind = os.environ.get("SANTASE_BIND", "127.0.0.1:8001" if streams else "127.0.0.1:8000")
workers = int(os.environ.get("SANTASE_WORKERS", "1" if streams else "2"))
if streams:
    # Greenlets: each open stream waits on the push hub, not in a thread of its own.
    worker_class = "gevent"
    worker_connections = int(os.environ.get("SANTASE_CONNECTIONS", "20000"))
    os.environ.setdefault("SANTASE_LIVE_STREAMS_PER_PROCESS", str(worker_connections - 100))
else:
    # 2 processes x 128 threads, for one or two CPUs and 1 GB of memory. A thread is held
    # for the whole of its request; a live page that reaches this process (no streams
    # service) holds one while it waits, so the last 8 threads are kept for requests.
    worker_class = "gthread"
    threads = int(os.environ.get("SANTASE_THREADS", "128"))
    os.environ.setdefault("SANTASE_LIVE_STREAMS_PER_PROCESS", str(threads - min(8, threads // 2)))

# A master killed outright (kill -9) is started again by systemd (deploy/santase.service:
# RestartSec=1), and its old workers leave at once (post_fork below), the port with them:
# the site answers again within seconds. Not reuse_port: gunicorn then gives each worker
# a socket of its own, and the kernel hands connections to a busy worker while another
# waits idle.

# A worker silent for 30 s is restarted; a stopping one has 20 s to finish its
# requests (systemd waits 30 s: deploy/santase.service).
timeout = 30
graceful_timeout = 20
# Longer than Caddy keeps an idle connection to the app (60 s): Caddy closes first.
keepalive = 75

# Believe X-Forwarded-Proto from Caddy on this machine only (the app's ProxyFix,
# SANTASE_TRUSTED_PROXIES=1, reads the same headers).
forwarded_allow_ips = "127.0.0.1,::1"

# No access log unless asked ("-" is stdout, the journal under systemd): no list of
# the players' addresses builds up. Errors go to stderr.
accesslog = os.environ.get("SANTASE_ACCESS_LOG") or None
errorlog = "-"
proc_name = "santase-streams" if streams else "santase"

# gunicorn 25.1 and later would open a control socket under $HOME; nothing uses it.
control_socket_disable = True


def post_fork(_server: object, worker: object) -> None:
    """A worker whose master is gone (killed: kill -9, the out-of-memory killer) is killed
    with it, by the kernel (Linux), at once: it no longer holds the port, nor answers
    requests on it, while its master's successor starts. gunicorn's own look at its
    parent comes a second or more later, and then waits for its requests to end."""
    import ctypes
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != worker.ppid:  # type: ignore[attr-defined]
        os._exit(1)  # the master died before this was asked for


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
        close = app.extensions["push"].close
        if streams:
            # Under gevent a signal may be handled in its hub, where nothing may wait (a
            # thread's start does): the streams end in a greenlet of their own.
            import gevent

            gevent.spawn(close)
        else:
            threading.Thread(target=close, daemon=True).start()

    signal.signal(signal.SIGTERM, stopping)
