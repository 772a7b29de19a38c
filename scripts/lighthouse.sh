#!/usr/bin/env bash
# Lighthouse 12 (mobile defaults) on /, /matches and /rules of a local server.
#   bash scripts/lighthouse.sh            # prints performance, accessibility, best practices
# Needs Node.js with npm (fetches lighthouse@12 with npx) and Chromium at /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

folder="$(mktemp -d)"
port=8766
cleanup() { [ -n "${server:-}" ] && kill "$server" 2>/dev/null; rm -rf "$folder"; }
trap cleanup EXIT

SANTASE_SECRET_KEY="$(python3 -c 'import secrets; print(secrets.token_hex(32))')" \
  SANTASE_TRUSTED_HOSTS=127.0.0.1 SANTASE_DATABASE_URL="sqlite:///$folder/lh.sqlite" \
  .venv/bin/gunicorn --workers 2 --bind "127.0.0.1:$port" 'counter.wsgi:app' \
  >"$folder/gunicorn.log" 2>&1 &
server=$!
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done

export CHROME_PATH=/usr/bin/chromium
for path in / /matches /rules; do
  npx --yes lighthouse@12 "http://127.0.0.1:$port$path" --quiet --output=json \
    --output-path="$folder/report.json" \
    --only-categories=performance,accessibility,best-practices \
    --chrome-flags="--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update"
  python3 - "$path" "$folder/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[2]))
scores = {name: round(category["score"] * 100) for name, category in report["categories"].items()}
failing = [audit["id"] for audit in report["audits"].values()
           if audit.get("score") is not None and audit["score"] < 1
           and audit.get("scoreDisplayMode") in ("binary", "numeric")][:8]
print(f"{sys.argv[1]:10} {scores}  below 1: {failing}")
PY
done
