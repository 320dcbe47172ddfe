# workerd config: serves dist/worker.js (pnpm build) at http://127.0.0.1:8787/mcp.
#   workerd serve config.capnp
#   workerd serve config.capnp --socket-addr http=127.0.0.1:9000     # another address
# .ci/runtimes.sh workerd runs it on a free loopback port (.ci/workerd-e2e.mjs).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .mcpWorker) ],
  sockets = [ (name = "http", address = "127.0.0.1:8787", http = (), service = "main") ],
);

const mcpWorker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "dist/worker.js") ],
  compatibilityDate = "2026-11-01",
  bindings = [ (name = "HANDLER_CEILING_MS", text = "2000") ],
);
