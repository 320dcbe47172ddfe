import { parseArgs } from 'node:util';

/** What the example server's command line asks for. */
export interface ServerOptions {
  /** `--http PORT`: serve Streamable HTTP on 127.0.0.1:PORT; without it, stdio. */
  httpPort?: number;
  /** `--conformance`: also serve the tools the conformance suite calls by name. */
  conformance: boolean;
  /** `--max-sessions N`: legacy HTTP sessions alive at once; one more gets 503. */
  maxSessions: number;
  /** `--session-idle MS`: a legacy HTTP session ends after this long without contact from its client. */
  sessionIdleMs: number;
  /** `--handler-idle MS`: a handler with no progress for this long is cancelled (IDLE_TIMEOUT). */
  handlerIdleMs: number;
  /** `--handler-ceiling MS`: no handler runs longer than this (CEILING). */
  handlerCeilingMs: number;
  /**
   * `--allowed-origins LIST`: HTTP: browser origins allowed to call (comma-separated, or `*`); others get
   * `403`. Unset: every loopback origin (the adapter's default).
   */
  allowedOrigins?: string[] | '*';
  /** `--tasks`: `work` may run as a task (2025-11-25 `params.task`, the 2026-07-28 tasks extension). */
  tasks: boolean;
  /** `--redis URL`: with `--tasks`, keep tasks in Redis, shared by every instance that names it. */
  redisUrl?: string;
  /** `--request-state-secret-file PATH`: the file holding the requestState secret every instance shares. */
  requestStateSecretFile?: string;
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
export const USAGE = `usage: mcp-inflight-example-server [--http PORT] [--conformance] [limits]

  (no flags)             serve MCP on stdin/stdout, every revision 2024-11-05 .. 2026-07-28
  --http PORT            serve Streamable HTTP on http://127.0.0.1:PORT/mcp (0 picks a free port)
  --allowed-origins LIST HTTP: browser origins allowed to call, comma-separated (http://127.0.0.1:8080),
                         or * for any; others get 403 (default: every loopback origin, any port)
  --conformance          also serve the tools @modelcontextprotocol/conformance calls by name
  --tasks                work may run as a task: 2025-11-25 task-augmented calls, the 2026-07-28
                         tasks extension (tasks/get, tasks/result, tasks/cancel; tasks live 60 s)
  --redis URL            with --tasks: keep tasks in Redis (redis://host:port), so any instance behind
                         a load balancer answers for any task; unreachable at start: exit 2
  --request-state-secret-file PATH
                         seal multi round-trip requestState with the secret in PATH (at least 32
                         bytes; a trailing newline is dropped), shared by every instance
  --help                 print this and exit

Limits (milliseconds; the defaults keep a forgotten call or client from holding the server):
  --handler-idle MS      cancel a handler that reports no progress for this long (default 60000)
  --handler-ceiling MS   cancel a handler that runs longer than this (default 600000)
  --max-sessions N       HTTP: legacy sessions alive at once; one more gets 503 (default 1000)
  --session-idle MS      HTTP: end a legacy session after this long without contact from its client,
                         cancelling its calls with SESSION_EXPIRED (default 300000)

Tools: work {steps, intervalMs, tag?} sleeps intervalMs per step and reports progress after each,
honouring cancellation; status returns {running, completed, cancelled} counts of work calls.
`;

/**
 * Reads the server's command line with `node:util` `parseArgs`; throws an `Error` saying what is wrong.
 *
 * @example
 * ```ts
 * import { parseServerArgs } from './args.js';
 * parseServerArgs(['--http', '0', '--max-sessions', '50']).maxSessions; // 50
 * ```
 */
export function parseServerArgs(argv: readonly string[]): ServerOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        http: { type: 'string' },
        'allowed-origins': { type: 'string' },
        conformance: { type: 'boolean' },
        tasks: { type: 'boolean' },
        redis: { type: 'string' },
        'request-state-secret-file': { type: 'string' },
        help: { type: 'boolean' },
        ...Object.fromEntries(
          Object.keys(LIMIT_FLAGS).map((flag) => [flag.slice(2), { type: 'string' as const }]),
        ),
      },
    }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new Error((error as Error).message.split('\n')[0]);
  }
  const options: ServerOptions = {
    conformance: values.conformance === true,
    tasks: values.tasks === true,
    help: values.help === true,
    ...DEFAULT_LIMITS,
  };
  for (const [flag, limit] of Object.entries(LIMIT_FLAGS)) {
    const text = values[flag.slice(2)];
    if (typeof text === 'string') options[limit] = positiveInteger(flag, text);
  }
  if (typeof values.http === 'string') {
    const text = values.http;
    const port = Number(text);
    if (!/^\d+$/.test(text) || port > 65_535)
      throw new Error(`--http takes a port from 0 to 65535, not ${JSON.stringify(text)}`);
    options.httpPort = port;
  }
  if (typeof values.redis === 'string') {
    if (!options.tasks) throw new Error('--redis keeps tasks: it needs --tasks');
    if (!/^rediss?:\/\/./.test(values.redis))
      throw new Error(`--redis takes a redis:// or rediss:// URL, not ${JSON.stringify(values.redis)}`);
    options.redisUrl = values.redis;
  }
  const secretFile = values['request-state-secret-file'];
  if (typeof secretFile === 'string') {
    if (secretFile === '') throw new Error('--request-state-secret-file takes a path');
    options.requestStateSecretFile = secretFile;
  }
  const origins = values['allowed-origins'];
  if (typeof origins === 'string') options.allowedOrigins = parseOrigins(origins);
  return options;
}

/** Limits the example applies unless told otherwise: a forgotten call or client must not hold it forever. */
const DEFAULT_LIMITS = {
  maxSessions: 1_000,
  sessionIdleMs: 300_000,
  handlerIdleMs: 60_000,
  handlerCeilingMs: 600_000,
} as const;

type LimitName = keyof typeof DEFAULT_LIMITS;

const LIMIT_FLAGS: Readonly<Record<string, LimitName>> = {
  '--max-sessions': 'maxSessions',
  '--session-idle': 'sessionIdleMs',
  '--handler-idle': 'handlerIdleMs',
  '--handler-ceiling': 'handlerCeilingMs',
};

/** `*`, or a comma-separated list of origins (`scheme://host[:port]`, nothing after it). */
function parseOrigins(text: string): string[] | '*' {
  if (text.trim() === '*') return '*';
  const origins = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (origins.length === 0)
    throw new Error('--allowed-origins takes a comma-separated list of origins, or *');
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {}
    if (parsed?.origin !== origin.toLowerCase())
      throw new Error(
        `--allowed-origins: ${JSON.stringify(origin)} is not an origin (scheme://host[:port], no path)`,
      );
  }
  return origins;
}

function positiveInteger(flag: string, text = ''): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || !Number.isSafeInteger(value))
    throw new Error(`${flag} takes a whole number of at least 1, not ${JSON.stringify(text)}`);
  return value;
}
