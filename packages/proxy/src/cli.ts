/**
 * `@mcp-inflight/proxy/cli`: the proxy's command line, as the `mcp-inflight-proxy` bin runs it
 * ({@link runCli}), and its parts: the flags' parser and usage text. It loads prom-client (the admin
 * listener's `/metrics`); `@mcp-inflight/proxy` does not.
 *
 * @module @mcp-inflight/proxy/cli
 */

export { USAGE, UsageError } from './flags.js';
export { type CliUpstream, type Listen, type ProxyOptions, parseProxyArgs } from './options.js';
export { runCli } from './run-cli.js';
