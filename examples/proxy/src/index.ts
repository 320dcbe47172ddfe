// The example proxy is the package's CLI: the same flags as `mcp-inflight-proxy` (README.md). Tools outside
// this repository run `node examples/proxy/dist/index.js`; the proxy itself lives in @mcp-inflight/proxy.
import { runCli } from '@mcp-inflight/proxy/cli';

await runCli(process.argv.slice(2));
