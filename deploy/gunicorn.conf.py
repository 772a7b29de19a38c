"""gunicorn for the counter behind Caddy (deploy/Caddyfile) on one small server.

Run as ``gunicorn -c deploy/gunicorn.conf.py counter.wsgi:app``. Caddy hands gunicorn
only whole requests, so a few threads serve many phones; SANTASE_BIND, SANTASE_WORKERS,
SANTASE_THREADS and SANTASE_ACCESS_LOG change what is set here.
"""

import os

# Loopback only: the world reaches the app through Caddy.
bind = os.environ.get("SANTASE_BIND", "127.0.0.1:8000")

# 2 processes x 4 threads answer 8 requests at once, enough for one or two CPUs and
# 1 GB of memory: a request mostly waits on the database. A thread is held for the
# whole of its request, so long-lived connections need more threads.
worker_class = "gthread"
workers = int(os.environ.get("SANTASE_WORKERS", "2"))
threads = int(os.environ.get("SANTASE_THREADS", "4"))

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
