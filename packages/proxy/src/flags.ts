// The proxy's flags: each one's type, default and help, the usage text made from them, and the raw
// parse (`node:util` `parseArgs`). What the values mean is options.ts.
import { type ParseArgsConfig, parseArgs } from 'node:util';

/** One flag: its type, its default as the usage text shows it, and what it does. */
interface Flag {
  type: 'string' | 'boolean';
  multiple?: boolean;
  arg?: string;
  default?: string;
  help: string;
}

const FLAGS: Record<string, Flag> = {
  'upstream-stdio': {
    type: 'string',
    arg: 'CMD',
    help: 'spawn the upstream and speak MCP on its stdin/stdout',
  },
  'upstream-http': { type: 'string', arg: 'URL', help: 'reach the upstream over Streamable HTTP' },
  'upstream-revision': {
    type: 'string',
    arg: 'REV',
    default: 'auto',
    help: 'revision to speak upstream: auto (2026-07-28 if offered, else the newest legacy) or 2024-11-05 .. 2026-07-28',
  },
  http: {
    type: 'string',
    arg: 'PORT',
    default: 'stdio',
    help: 'listen on HTTP at PORT (0 picks a free port)',
  },
  host: {
    type: 'string',
    arg: 'ADDR',
    default: '127.0.0.1',
    help: 'HTTP: the interface to bind; any other than loopback is reachable from other machines',
  },
  path: { type: 'string', arg: 'PATH', default: '/mcp', help: "HTTP: the MCP endpoint's path" },
  'allowed-origins': {
    type: 'string',
    arg: 'LIST',
    default: 'loopback',
    help: 'HTTP: browser origins allowed to call, comma-separated, or * (preflights answered for them)',
  },
  'allowed-hosts': {
    type: 'string',
    arg: 'LIST',
    default: 'loopback',
    help: 'HTTP: names the Host header may carry, comma-separated, or * (off loopback: *)',
  },
  'auth-token-file': {
    type: 'string',
    arg: 'FILE',
    default: 'none',
    help: 'HTTP: hosts must send Authorization: Bearer <one of the tokens in FILE, one per line>',
  },
  header: {
    type: 'string',
    multiple: true,
    arg: '"N: V"',
    default: 'none',
    help: 'a header on every upstream HTTP request (repeatable)',
  },
  'header-from-env': {
    type: 'string',
    multiple: true,
    arg: '"N: VAR"',
    default: 'none',
    help: 'a header on every upstream HTTP request, its value from env VAR (repeatable)',
  },
  'pass-header': {
    type: 'string',
    multiple: true,
    arg: 'NAME',
    default: 'none',
    help: "a host request's header NAME goes with that host's own upstream calls (2026-07-28 HTTP upstream only; repeatable)",
  },
  'connect-timeout': {
    type: 'string',
    arg: 'MS',
    default: '30000',
    help: 'the one bound on the upstream handshake (server/discover probe and initialize together)',
  },
  'idle-timeout': {
    type: 'string',
    arg: 'MS',
    default: '60000',
    help: 'end a relayed call after MS with no progress',
  },
  'max-timeout': {
    type: 'string',
    arg: 'MS',
    default: '600000',
    help: 'end a relayed call after MS whatever progress says',
  },
  'input-timeout': {
    type: 'string',
    arg: 'MS',
    default: '300000',
    help: 'how long an upstream call waits for a 2026-07-28 host to retry with the input asked for',
  },
  'progress-interval': {
    type: 'string',
    arg: 'MS',
    default: '50',
    help: 'at most one progress update per MS per call to a host, the latest kept; 0 passes every value',
  },
  'max-sessions': {
    type: 'string',
    arg: 'N',
    default: '1000',
    help: 'HTTP: legacy host sessions alive at once',
  },
  'session-idle': {
    type: 'string',
    arg: 'MS',
    default: '300000',
    help: 'HTTP: end a legacy host session after MS without contact (its calls: SESSION_EXPIRED)',
  },
  'request-state-secret-file': {
    type: 'string',
    arg: 'FILE',
    default: 'a key per process',
    help: 'sign the requestState handed to hosts with the secret in FILE (32+ bytes), shared by every instance',
  },
  redis: {
    type: 'string',
    arg: 'URL',
    default: 'none',
    help: 'record relayed tasks in Redis (redis://host:port) so any instance behind a balancer answers for them',
  },
  'admin-port': {
    type: 'string',
    arg: 'PORT',
    default: 'none',
    help: 'serve /healthz, /readyz and /metrics on 127.0.0.1:PORT',
  },
  'drain-timeout': {
    type: 'string',
    arg: 'MS',
    default: '10000',
    help: 'on SIGTERM/SIGINT, let calls in flight finish for MS, then cancel them (a second signal: at once)',
  },
  'max-in-flight': {
    type: 'string',
    arg: 'N',
    default: '1000',
    help: "relayed calls running at once over every host, in front of the upstream's gate; more wait, hosts taken in turn",
  },
  'max-host-in-flight': {
    type: 'string',
    arg: 'N',
    default: '100',
    help: 'relayed calls one client (a stdio connection; a token; else an address and clientInfo name) runs at once',
  },
  'max-client-sessions': {
    type: 'string',
    arg: 'N',
    default: '100',
    help: 'HTTP: legacy sessions one client (its bearer token, else its address) keeps alive at once',
  },
  'max-address-clients': {
    type: 'string',
    arg: 'N',
    default: '16',
    help: 'HTTP without auth: clientInfo names one address keeps apart, each its own share; more share one (behind a NAT: raise it, or give each host a token)',
  },
  'max-connections': {
    type: 'string',
    arg: 'N',
    default: '4096',
    help: 'HTTP: connections open at once; one more gets 503',
  },
  'max-idle-connections-per-address': {
    type: 'string',
    arg: 'N',
    default: '256',
    help: 'HTTP: connections from one address serving no request (silent, or kept alive between requests); one more gets 503',
  },
  log: {
    type: 'string',
    arg: 'FORMAT',
    default: 'text',
    help: 'what to write to stderr: text, json or quiet',
  },
  'log-arguments': { type: 'boolean', default: 'off', help: "log tools' arguments (cut at 200 characters)" },
  help: { type: 'boolean', help: 'print this text and exit' },
};

/**
 * The usage text printed for `--help`: every flag with its default.
 *
 * @example
 * ```ts
 * import { USAGE } from '@mcp-inflight/proxy/cli';
 * process.stdout.write(USAGE);
 * ```
 */
export const USAGE = `usage: mcp-inflight-proxy (--upstream-stdio "<command line>" | --upstream-http URL) [options]

${Object.entries(FLAGS)
  .map(([name, flag]) => {
    const left = `  --${name}${flag.arg ? ` ${flag.arg}` : ''}`;
    const help = flag.default === undefined ? flag.help : `${flag.help} (default ${flag.default})`;
    return `${left.padEnd(Math.max(30, left.length + 2))}${help}`;
  })
  .join('\n')}
`;

/** A start-up mistake: the CLI prints its message on one line and exits 2. */
export class UsageError extends Error {
  /** Always `UsageError`. */
  override name = 'UsageError';
}

/** The flags' raw values, as `parseArgs` reads them; a mistake is a {@link UsageError}. */
export type FlagValues = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** Reads `argv` against the flags (strict: an unknown flag or a missing value is a {@link UsageError}). */
export function parseFlags(argv: readonly string[]): FlagValues {
  try {
    const options = Object.fromEntries(
      Object.entries(FLAGS).map(([name, f]) => [
        name,
        { type: f.type, ...(f.multiple ? { multiple: true } : {}) },
      ]),
    ) as NonNullable<ParseArgsConfig['options']>;
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
}
