#!/usr/bin/env bash
# The page's scripts (static/*.js) and their unit tests (tests/js/): the development tools
# at the versions package-lock.json pins, then ESLint, Prettier's check and node --test.
# Needs node and npm, and the npm registry for `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\n== %s\n' "$*"; }

log "npm ci (node $(node --version), npm $(npm --version))"
npm ci --no-audit --no-fund

log "ESLint"
node_modules/.bin/eslint static tests/js

log "Prettier"
node_modules/.bin/prettier --check static tests/js

log "Unit tests"
# The files by name: Node 20 takes a directory, Node 22 and later take globs instead.
node --test tests/js/*.test.js
