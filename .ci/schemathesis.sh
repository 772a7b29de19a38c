#!/usr/bin/env bash
# Schemathesis against the JSON API: counter/web/openapi.yaml must describe exactly what
# the server accepts and answers. Starts the app on a free port with an empty SQLite
# database, makes one browser cookie, runs `st run` with every check and a fixed seed
# (settings in .ci/schemathesis.toml), and stops the server whatever happens.
# Exits non-zero if Schemathesis reports any failure. Arguments go to `st run`
# (e.g. `bash .ci/schemathesis.sh --seed 7` to try other cases).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
python="$root/.venv/bin/python"

work="$(mktemp -d)"
server=""
tester=""
stop() {
  for pid in $tester $server; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap stop EXIT
trap 'exit 143' INT TERM

port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"

# Rate limits off: the generated requests come in a burst that would otherwise meet 429.
SANTASE_DATABASE_URL="sqlite:///$work/st.sqlite" \
  SANTASE_SECRET_KEY="schemathesis-$("$python" -c 'import secrets; print(secrets.token_hex(32))')" \
  SANTASE_RATELIMIT_ENABLED=false SANTASE_LIVE_LIFETIME_S=1 SANTASE_LIVE_HEARTBEAT_S=1 \
  "$root/.venv/bin/flask" --app counter run --host 127.0.0.1 --port "$port" --no-reload \
  >"$work/server.log" 2>&1 &
server=$!

# The server is up once /health answers. Schemathesis forgets cookies between requests,
# so one write makes this run's browser, and every request then sends its cookie.
cookie="$("$python" - "$base" <<'PY'
import sys
import time
import urllib.request

base = sys.argv[1]
for _ in range(150):
    try:
        urllib.request.urlopen(f"{base}/health", timeout=2).read()
        break
    except OSError:
        time.sleep(0.2)
else:
    sys.exit("the server did not answer /health")
request = urllib.request.Request(
    f"{base}/api/matches", data=b"{}", headers={"Content-Type": "application/json"}
)
with urllib.request.urlopen(request, timeout=10) as response:
    print(response.headers["Set-Cookie"].split(";", 1)[0])
PY
)" || { cat "$work/server.log" >&2; exit 1; }

# From the temporary folder: Schemathesis and Hypothesis write their caches where they run.
cd "$work"
status=0
"$root/.venv/bin/st" --config-file "$root/.ci/schemathesis.toml" run "$base/api/openapi.yaml" \
  --checks all --url "$base" -H "Cookie: $cookie" "$@" &
tester=$!
wait "$tester" || status=$?
tester=""
if [ "$status" -ne 0 ]; then
  echo "Schemathesis reported failures (exit $status); the end of the server's log:" >&2
  tail -n 30 "$work/server.log" >&2
fi
exit "$status"
