/** What the example server's command line asks for. */
export interface ServerOptions {
  /** `--http PORT`: serve Streamable HTTP on 127.0.0.1:PORT; without it, stdio. */
  httpPort?: number;
  /** `--conformance`: also serve the tools the conformance suite calls by name. */
  conformance: boolean;
  /** `--help` */
  help: boolean;
}

/**
 * The usage text for `--help` and after a bad argument.
 *
 * @example
 * ```ts
 * import { USAGE } from './args.js';
 * process.stdout.write(USAGE);
 * ```
 */
export const USAGE = `usage: mcp-inflight-example-server [--http PORT] [--conformance]

  (no flags)      serve MCP on stdin/stdout, every revision 2024-11-05 .. 2026-07-28
  --http PORT     serve Streamable HTTP on http://127.0.0.1:PORT/mcp (0 picks a free port)
  --conformance   also serve the tools @modelcontextprotocol/conformance calls by name
  --help          print this and exit

Tools: work {steps, intervalMs, tag?} sleeps intervalMs per step and reports progress after each,
honouring cancellation; status returns {running, completed, cancelled} counts of work calls.
`;

/**
 * Reads the server's command line; throws an `Error` saying what is wrong.
 *
 * @example
 * ```ts
 * import { parseServerArgs } from './args.js';
 * parseServerArgs(['--http', '0']); // { httpPort: 0, conformance: false, help: false }
 * ```
 */
export function parseServerArgs(argv: readonly string[]): ServerOptions {
  const options: ServerOptions = { conformance: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--help') options.help = true;
    else if (flag === '--conformance') options.conformance = true;
    else if (flag === '--http') {
      const text = argv[++i] ?? '';
      const port = Number(text);
      if (!/^\d+$/.test(text) || port > 65_535)
        throw new Error(`--http takes a port from 0 to 65535, not ${JSON.stringify(text)}`);
      options.httpPort = port;
    } else throw new Error(`unknown argument ${flag}`);
  }
  return options;
}
