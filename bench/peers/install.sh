#!/usr/bin/env bash
# Install the peers of the peers bench (issue 35) outside the project, each driver with its
# pinned versions in a folder of its own: DIR/mastra, DIR/langgraph, DIR/dbos, where DIR is
# the first argument, else $KOWALSKI_BENCH_PEERS, else ~/.cache/kowalski-bench-peers.
# Not run by npm ci: kowalski does not depend on them. Needs the npm registry.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:-${KOWALSKI_BENCH_PEERS:-$HOME/.cache/kowalski-bench-peers}}"
for peer in mastra langgraph dbos; do
  mkdir -p "$dir/$peer"
  cp "$here/common.mjs" "$here/$peer/"* "$dir/$peer/"
  echo "installing $peer in $dir/$peer" >&2
  (cd "$dir/$peer" && npm install --no-audit --no-fund --loglevel=error)
done
echo "installed; run: KOWALSKI_BENCH_PEERS=$dir node dist/bench/run.js peers" >&2
