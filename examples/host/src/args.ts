import { parseArgs } from 'node:util';
import { isRevision, type Revision } from '@mcp-inflight/core';
import type { CallSpec } from './runner.js';

/** Everything the host CLI takes. */
export interface HostOptions {
  target: { kind: 'stdio'; commandLine: string } | { kind: 'http'; url: string };
  /** The calls to make, all at once. Empty with `list`. */
  calls: CallSpec[];
  /** `--list`: print the server's tools instead of calling one. */
  list: boolean;
  /** `--idle-timeout MS` @default 60_000 */
  idleMs: number;
  /** `--max-timeout MS` @default 600_000 */
  ceilingMs: number;
  /** `--revision REV|auto` @default 'auto' */
  revision: Revision | 'auto';
  /** `--report FILE`: write a JSON report of every call there. */
  reportPath?: string;
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
export const USAGE = `usage: mcp-inflight-example-host (--stdio "<command line>" | --http URL) --tool NAME [--args JSON] [options]

  --stdio CMD             spawn an MCP server (or proxy) and talk to it on stdin/stdout
  --http URL              talk to an MCP server (or proxy) over Streamable HTTP
  --tool NAME             call this tool; repeat --tool to make several calls at once
  --args JSON             arguments for the --tool before it (default {})
  --label TEXT            name shown for the --tool before it (default NAME#n)
  --cancel-after MS       cancel the --tool before it after MS, as if you pressed stop
  --list                  list the server's tools and exit
  --idle-timeout MS       give up on a call after MS with no progress (default 60000)
  --max-timeout MS        give up on a call after MS whatever progress says (default 600000)
  --revision REV|auto     protocol revision to speak: auto (default), 2024-11-05 .. 2026-07-28
  --report FILE           also write a JSON report of every call to FILE

Ctrl-C cancels every call in flight (the server is told); a second Ctrl-C quits at once.
`;

/**
 * Reads the host's command line. Each `--tool` starts a call; `--args`, `--label` and `--cancel-after`
 * apply to the call before them. Throws an `Error` saying what is wrong.
 *
 * @example
 * ```ts
 * import { parseHostArgs } from './args.js';
 * parseHostArgs(['--http', 'http://127.0.0.1:3000/mcp', '--tool', 'work', '--args', '{"steps":5,"intervalMs":200}']).calls;
 * // [{ tool: 'work', args: { steps: 5, intervalMs: 200 } }]
 * ```
 */
export function parseHostArgs(argv: readonly string[]): HostOptions {
  let target: HostOptions['target'] | undefined;
  const calls: CallSpec[] = [];
  const options: Omit<HostOptions, 'target' | 'calls'> = {
    list: false,
    idleMs: 60_000,
    ceilingMs: 600_000,
    revision: 'auto',
  };
  // parseArgs with tokens: the flags in order, since --args, --label and --cancel-after belong to the
  // --tool before them.
  let tokens: ReturnType<typeof parseArgs>['tokens'];
  try {
    tokens = parseArgs({
      args: [...argv],
      options: FLAGS,
      strict: true,
      allowPositionals: false,
      tokens: true,
    }).tokens;
  } catch (error) {
    throw new Error((error as Error).message.split('\n')[0]);
  }
  for (const token of tokens ?? []) {
    if (token.kind !== 'option') continue;
    const flag = token.rawName;
    const value = (): string => token.value ?? '';
    const current = (): CallSpec => {
      const call = calls.at(-1);
      if (!call) throw new Error(`${flag} belongs after a --tool`);
      return call;
    };
    switch (token.name) {
      case 'stdio':
      case 'http': {
        if (target) throw new Error('give one of --stdio and --http, once');
        const v = value();
        target =
          token.name === 'stdio' ? { kind: 'stdio', commandLine: v } : { kind: 'http', url: httpUrl(v) };
        break;
      }
      case 'tool':
        calls.push({ tool: value(), args: {} });
        break;
      case 'args':
        current().args = jsonObject(value());
        break;
      case 'label':
        current().label = value();
        break;
      case 'cancel-after':
        current().cancelAfterMs = whole(flag, value(), 0);
        break;
      case 'list':
        options.list = true;
        break;
      case 'idle-timeout':
        options.idleMs = whole(flag, value(), 1);
        break;
      case 'max-timeout':
        options.ceilingMs = whole(flag, value(), 1);
        break;
      case 'revision': {
        const v = value();
        if (v !== 'auto' && !isRevision(v)) throw new Error(`--revision: unknown revision ${v}`);
        options.revision = v;
        break;
      }
      case 'report':
        options.reportPath = value();
        break;
    }
  }
  if (!target) throw new Error('give --stdio "<command line>" or --http URL');
  if (!options.list && calls.length === 0) throw new Error('give --tool NAME (or --list)');
  return { target, calls, ...options };
}

const FLAGS = {
  stdio: { type: 'string' },
  http: { type: 'string' },
  tool: { type: 'string', multiple: true },
  args: { type: 'string', multiple: true },
  label: { type: 'string', multiple: true },
  'cancel-after': { type: 'string', multiple: true },
  list: { type: 'boolean' },
  'idle-timeout': { type: 'string' },
  'max-timeout': { type: 'string' },
  revision: { type: 'string' },
  report: { type: 'string' },
  help: { type: 'boolean' },
} as const;

function whole(flag: string, text: string, min: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min)
    throw new Error(`${flag} takes a whole number >= ${min}, not ${JSON.stringify(text)}`);
  return n;
}

function jsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`--args is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('--args must be a JSON object');
  return value as Record<string, unknown>;
}

function httpUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // fall through
  }
  throw new Error(`--http needs an http(s) URL, not ${JSON.stringify(text)}`);
}
