// The `mcp-inflight-proxy` bin: the command line in cli.ts (README.md lists every flag).
import { runCli } from './cli.js';

await runCli(process.argv.slice(2));
