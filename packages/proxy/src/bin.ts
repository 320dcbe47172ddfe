// The `mcp-inflight-proxy` bin: the command line in run-cli.ts (README.md lists every flag).
import { runCli } from './run-cli.js';

await runCli(process.argv.slice(2));
