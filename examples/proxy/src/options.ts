import { isRevision, type Revision } from '@mcp-inflight/core';

/** Where the proxy's one upstream is. */
export type UpstreamTarget =
  | { kind: 'stdio'; commandLine: string; revision: Revision | 'auto' }
  | { kind: 'http'; url: string; revision: Revision | 'auto' };

/** How hosts reach the proxy. */
export type Listen = { kind: 'stdio' } | { kind: 'http'; port: number };

/** Everything the proxy CLI takes. */
export interface ProxyOptions {
  upstream: UpstreamTarget;
  listen: Listen;
  /** `--idle-timeout MS` @default 60_000 */
  idleMs: number;
  /** `--max-timeout MS` @default 600_000 */
  ceilingMs: number;
  /** `--log text|json|quiet` (stderr) @default 'text' */
  log: 'text' | 'json' | 'quiet';
  /** `--max-sessions N`: legacy HTTP host sessions alive at once; one more gets 503. @default 1_000 */
  maxSessions: number;
  /** `--session-idle MS`: a legacy HTTP host session ends after this long without contact. @default 300_000 */
  sessionIdleMs: number;
  /**
   * `--input-timeout MS`: how long an upstream call waits, parked, for a 2026-07-28 host to answer the
   * upstream's elicitation or sampling request with its retry. @default 300_000
   */
  inputHoldMs: number;
  /**
   * `--progress-interval MS`: at most one progress update per MS per call to a host, the latest kept; `0`
   * passes every accepted value. Absent: the relay's default (`DEFAULT_MIN_INTERVAL_MS`, 50 ms).
   */
  minIntervalMs?: number;
}

/**
 * The usage text printed for `--help` and after a bad argument.
 *
 * @example
 * ```ts
 * import { USAGE } from './options.js';
 * process.stderr.write(USAGE);
 * ```
 */
export const USAGE = `usage: mcp-inflight-example-proxy (--upstream-stdio "<command line>" | --upstream-http URL) [options]

  --upstream-stdio CMD      spawn the upstream server and speak MCP on its stdin/stdout
  --upstream-http URL       reach the upstream over Streamable HTTP
  --upstream-revision REV   revision to speak upstream: auto (default: 2026-07-28 if the upstream
                            offers it, else the newest legacy one) or one of 2024-11-05 .. 2026-07-28
  --http PORT               listen on http://127.0.0.1:PORT/mcp (0 picks a free port); default: stdio
  --idle-timeout MS         end a relayed call after MS with no progress (default 60000)
  --max-timeout MS          end a relayed call after MS whatever progress says (default 600000)
  --log text|json|quiet     what to write to stderr (default text)
  --max-sessions N          HTTP: legacy host sessions alive at once; one more gets 503 (default 1000)
  --session-idle MS         HTTP: end a legacy host session after MS without contact from its host,
                            cancelling its calls with SESSION_EXPIRED (default 300000)
  --input-timeout MS        how long an upstream call waits for a 2026-07-28 host to retry with the
                            input its upstream asked for, then is cancelled (default 300000)
  --progress-interval MS    at most one progress update per MS per call to a host, the latest kept;
                            0 passes every value (default 50)
`;

/**
 * Reads the proxy's command line. Throws an `Error` whose message says what is wrong (the CLI prints it
 * with {@link USAGE} and exits 2).
 *
 * @example
 * ```ts
 * import { parseProxyArgs } from './options.js';
 * parseProxyArgs(['--upstream-stdio', 'node server.js', '--http', '0', '--idle-timeout', '800']);
 * // { upstream: { kind: 'stdio', commandLine: 'node server.js', revision: 'auto' }, listen: { kind: 'http', port: 0 }, idleMs: 800, ceilingMs: 600000, log: 'text', maxSessions: 1000, sessionIdleMs: 300000, inputHoldMs: 300000 }
 * ```
 */
export function parseProxyArgs(argv: readonly string[]): ProxyOptions {
  let upstreamStdio: string | undefined;
  let upstreamHttp: string | undefined;
  let upstreamRevision: Revision | 'auto' = 'auto';
  let listen: Listen = { kind: 'stdio' };
  let idleMs = 60_000;
  let ceilingMs = 600_000;
  let log: ProxyOptions['log'] = 'text';
  let maxSessions = 1_000;
  let sessionIdleMs = 300_000;
  let inputHoldMs = 300_000;
  let minIntervalMs: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--upstream-stdio':
        upstreamStdio = value();
        break;
      case '--upstream-http':
        upstreamHttp = value();
        break;
      case '--upstream-revision': {
        const v = value();
        if (v !== 'auto' && !isRevision(v)) throw new Error(`--upstream-revision: unknown revision ${v}`);
        upstreamRevision = v;
        break;
      }
      case '--http':
        listen = { kind: 'http', port: integer(flag, value(), 0, 65_535) };
        break;
      case '--idle-timeout':
        idleMs = integer(flag, value(), 1, Number.MAX_SAFE_INTEGER);
        break;
      case '--max-timeout':
        ceilingMs = integer(flag, value(), 1, Number.MAX_SAFE_INTEGER);
        break;
      case '--max-sessions':
        maxSessions = integer(flag, value(), 1, Number.MAX_SAFE_INTEGER);
        break;
      case '--session-idle':
        sessionIdleMs = integer(flag, value(), 1, Number.MAX_SAFE_INTEGER);
        break;
      case '--input-timeout':
        inputHoldMs = integer(flag, value(), 1, Number.MAX_SAFE_INTEGER);
        break;
      case '--progress-interval':
        minIntervalMs = integer(flag, value(), 0, Number.MAX_SAFE_INTEGER);
        break;
      case '--log': {
        const v = value();
        if (v !== 'text' && v !== 'json' && v !== 'quiet')
          throw new Error(`--log takes text, json or quiet, not ${v}`);
        log = v;
        break;
      }
      default:
        throw new Error(`unknown argument ${flag}`);
    }
  }
  if ((upstreamStdio === undefined) === (upstreamHttp === undefined)) {
    throw new Error('give exactly one of --upstream-stdio and --upstream-http');
  }
  const upstream: UpstreamTarget =
    upstreamStdio !== undefined
      ? { kind: 'stdio', commandLine: upstreamStdio, revision: upstreamRevision }
      : { kind: 'http', url: validUrl(upstreamHttp as string), revision: upstreamRevision };
  return {
    upstream,
    listen,
    idleMs,
    ceilingMs,
    log,
    maxSessions,
    sessionIdleMs,
    inputHoldMs,
    ...(minIntervalMs === undefined ? {} : { minIntervalMs }),
  };
}

function integer(flag: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new Error(`${flag} takes a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  }
  return n;
}

function validUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // fall through to the error below
  }
  throw new Error(`--upstream-http needs an http(s) URL, not ${JSON.stringify(text)}`);
}
