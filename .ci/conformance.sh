#!/usr/bin/env bash
# Runs the MCP conformance scenarios that apply to a server without the reference test tools against
# `gleaner serve` on loopback, in its explicit keyless mode (the suite sends no x-api-key).
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d)
port=${CONFORMANCE_PORT:-18765}
GLEANER_DATA_DIR="$data" GLEANER_MCP_KEYLESS=true GLEANER_PORT="$port" GLEANER_LOG_LEVEL=warn \
  node dist/cli/main.js serve >/dev/null 2>"$data/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$data"' EXIT
# Wait for the server with node's fetch (a fresh machine may have no curl).
node -e '
  const url = process.argv[1];
  const deadline = Date.now() + 30000;
  (async () => {
    for (;;) {
      try { if ((await fetch(url)).ok) return; } catch {}
      if (Date.now() > deadline) { console.error("gleaner serve did not start"); process.exit(1); }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
' "http://127.0.0.1:$port/v1/openapi.json"
for scenario in server-initialize ping tools-list logging-set-level dns-rebinding-protection; do
  npx conformance server --url "http://localhost:$port/mcp" --scenario "$scenario"
done
