import type { CancelCode, RequestId, Revision } from '@mcp-inflight/core';
import type { EndpointLogEvent } from './endpoint-log.js';
import type { UpstreamEvent } from './upstream-link.js';

/**
 * The longest `arguments` a call event carries, in characters of JSON. A host may send a tool megabytes of
 * arguments; the log line stays short: longer arguments become their first 200 characters of JSON and a
 * marker saying how long they were.
 */
export const LOG_ARGUMENTS_MAX_CHARS = 200;

/**
 * A tool's arguments as a log event carries them: unchanged when their JSON fits in
 * {@link LOG_ARGUMENTS_MAX_CHARS}, otherwise that much of their JSON followed by `…[cut: N chars]`.
 *
 * @example
 * ```ts
 * import { argumentsForLog } from './events.js';
 * argumentsForLog({ steps: 2 }); // { steps: 2 }
 * argumentsForLog({ blob: 'x'.repeat(1_000_000) }); // '{"blob":"xxx…' (200 chars) + '…[cut: 1000011 chars]'
 * ```
 */
export function argumentsForLog(value: unknown): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return '[arguments that are not JSON]';
  }
  if (json === undefined || json.length <= LOG_ARGUMENTS_MAX_CHARS) return value;
  return `${json.slice(0, LOG_ARGUMENTS_MAX_CHARS)}…[cut: ${json.length} chars]`;
}

/** How one relayed call ended, as the proxy saw it. */
export type CallOutcome =
  /** the upstream answered with a result (a tool's own `isError` result counts: it is an answer) */
  | 'completed'
  /**
   * the host was answered `input_required` (2026-07-28): its upstream call waits for the host's retry, which
   * is reported as a call of its own
   */
  | 'input-required'
  /** the upstream answered with a JSON-RPC error, passed on unchanged */
  | 'error'
  /** the proxy cancelled the upstream call: the host cancelled or left, a limit fired, or shutdown */
  | 'cancelled'
  /** the upstream went away under the call; there was nothing left to cancel */
  | 'upstream-closed';

/**
 * One relayed call, reported when it ends: which host and request it was, how it ended and why (the
 * cause the host was told, and the `reason` the upstream was sent), and how much progress passed.
 */
export interface CallEvent {
  /** Always `call`. */
  type: 'call';
  /** Which host connection: `stdio`, `http session <id>`, `http request` (2026-07-28 stateless). */
  host: string;
  /** The revision the host's request was served under. */
  hostRevision: Revision;
  /** The host's own request id (the upstream saw an id the proxy minted). */
  id: RequestId;
  /** The JSON-RPC method (`tools/call`, `resources/read`, ...). */
  method: string;
  /** `params.name` for `tools/call`, `prompts/get`; `params.uri` for `resources/read`. */
  name?: string;
  /**
   * The tool's `arguments` for `tools/call`, so a log can tell calls apart; cut to
   * {@link LOG_ARGUMENTS_MAX_CHARS} characters of JSON by {@link argumentsForLog}.
   */
  arguments?: unknown;
  /** How it ended. */
  outcome: CallOutcome;
  /** Why it ended early (`cancelled`, `upstream-closed`). */
  cause?: CancelCode;
  /** The error message the host was given, or the `reason` the upstream cancel carried. */
  message?: string;
  /** Progress updates the upstream sent that were accepted (strictly increasing). */
  progressIn: number;
  /** Of those, how many were passed to the host (zero when the host asked for none). */
  progressOut: number;
  /** Milliseconds from the host's request to its end. */
  ms: number;
}

/** Everything the proxy reports: calls, the upstream's life, and its own shutdown. */
export type ProxyEvent =
  | CallEvent
  | EndpointLogEvent
  | UpstreamEvent
  | {
      /** The upstream listed a tool the proxy left out (its `x-mcp-header` annotations are invalid). */
      type: 'upstream-warning';
      /** The tool's name, as the upstream gave it. */
      tool: string;
      /** What was wrong, in one line. */
      message: string;
    }
  | {
      /** The hosts' HTTP listener is up. */
      type: 'listening';
      /** Its MCP endpoint URL. */
      url: string;
    }
  | {
      /** The admin listener is up. */
      type: 'admin-listening';
      /** Its base URL. */
      url: string;
    }
  | {
      /** The calls left are being cancelled with `SHUTDOWN`. */
      type: 'shutdown';
      /** Why (the signal). */
      why: string;
      /** Calls in flight. */
      inFlight: number;
    }
  | {
      /** New calls are refused; the calls in flight may finish. */
      type: 'draining';
      /** Why (the signal). */
      why: string;
      /** Calls in flight. */
      inFlight: number;
      /** How long they may take. */
      drainMs: number;
    }
  | {
      /** The totals, at exit. */
      type: 'stats';
      /** The relay's totals. */
      stats: ProxyStats;
    };

/** Running totals over every relayed call. */
export interface ProxyStats {
  /** Calls relayed so far. */
  calls: number;
  /** Calls relayed and not yet ended. */
  inFlight: number;
  /** Calls the upstream answered with a result. */
  completed: number;
  /** Calls the upstream answered with a JSON-RPC error. */
  errors: number;
  /** Calls that failed because the upstream went away or could not be reached. */
  upstreamClosed: number;
  /** Host requests answered `input_required` (their upstream call waited for the host's retry). */
  inputRequired: number;
  /** Calls the proxy cancelled upstream, by the cause named to both sides. */
  cancelled: Partial<Record<CancelCode, number>>;
  /** Upstream progress updates accepted. */
  progressIn: number;
  /** Of those, updates passed to hosts. */
  progressOut: number;
}

/**
 * A fresh set of zeroed totals.
 *
 * @example
 * ```ts
 * import { emptyStats } from './events.js';
 * emptyStats().calls; // 0
 * ```
 */
export function emptyStats(): ProxyStats {
  return {
    calls: 0,
    inFlight: 0,
    completed: 0,
    errors: 0,
    upstreamClosed: 0,
    inputRequired: 0,
    cancelled: {},
    progressIn: 0,
    progressOut: 0,
  };
}

/**
 * Adds one ended call to the totals.
 *
 * @example
 * ```ts
 * import { countCall, emptyStats } from './events.js';
 * const stats = emptyStats();
 * countCall(stats, { type: 'call', host: 'stdio', hostRevision: '2025-06-18', id: 1, method: 'tools/call',
 *   outcome: 'cancelled', cause: 'IDLE_TIMEOUT', progressIn: 0, progressOut: 0, ms: 800 });
 * stats.cancelled.IDLE_TIMEOUT; // 1
 * ```
 */
export function countCall(stats: ProxyStats, event: CallEvent): void {
  stats.progressIn += event.progressIn;
  stats.progressOut += event.progressOut;
  if (event.outcome === 'completed') stats.completed++;
  else if (event.outcome === 'input-required') stats.inputRequired++;
  else if (event.outcome === 'error') stats.errors++;
  else if (event.outcome === 'upstream-closed') stats.upstreamClosed++;
  else if (event.cause) stats.cancelled[event.cause] = (stats.cancelled[event.cause] ?? 0) + 1;
}

/**
 * One human-readable log line for an event (the proxy writes these to stderr; `--log json` writes the
 * event itself instead). Always one line: what a host or an upstream chose (a tool name, a cancel reason,
 * an error message, a server's name) has its line breaks, terminal escapes and other controls written as
 * `\n`, `\u001b` and so on, so it can neither start a line of its own nor repaint one.
 *
 * @example
 * ```ts
 * import { formatEvent } from './events.js';
 * formatEvent({ type: 'listening', url: 'http://127.0.0.1:3000/mcp' }); // 'proxy: listening on http://127.0.0.1:3000/mcp'
 * ```
 */
export function formatEvent(event: ProxyEvent): string {
  // The line's own text has no controls: escaping the whole line escapes exactly what others chose.
  return escapeForLog(lineOf(event));
}

/**
 * What could end a log line or rewrite a terminal: C0 and C1 controls (CR, LF, ESC, NEL...), DEL, the
 * Unicode line and paragraph separators, and the bidirectional marks and overrides that reorder text.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it matches
const UNSAFE_IN_LOG = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every character that could end a line or drive a terminal written as an escape (`\n`,
 * `\u001b`, `\u2028`): a text log line stays one line whatever a host or an upstream put in it.
 */
export function escapeForLog(text: string): string {
  return text.replace(
    UNSAFE_IN_LOG,
    (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function lineOf(event: ProxyEvent): string {
  switch (event.type) {
    case 'call': {
      const args = event.arguments === undefined ? '' : ` ${clip(JSON.stringify(event.arguments), 60)}`;
      const what = `${event.method}${event.name === undefined ? '' : ` ${event.name}`}${args}`;
      const who = `${event.host}, ${event.hostRevision}, id ${JSON.stringify(event.id)}`;
      const progress = `${event.progressIn} progress in, ${event.progressOut} out`;
      const why = event.message === undefined ? '' : `: ${event.message}`;
      const how =
        event.outcome === 'cancelled'
          ? `cancelled upstream (${event.cause})${why}`
          : event.outcome === 'upstream-closed'
            ? `failed, upstream closed${why}`
            : event.outcome === 'error'
              ? `upstream error${why}`
              : event.outcome === 'input-required'
                ? 'input required (the upstream call waits for the retry)'
                : 'completed';
      return `proxy: ${what} [${who}] ${how}; ${progress}; ${Math.round(event.ms)} ms`;
    }
    case 'endpoint':
      return formatEndpointEvent(event);
    case 'upstream-started':
      return `proxy: upstream #${event.start} ready: ${event.serverInfo.name} ${event.serverInfo.version} (${event.revision ?? 'unknown revision'})${event.fallback === undefined ? '' : `; fell back: ${event.fallback}`}`;
    case 'upstream-closed':
      return `proxy: upstream #${event.start} closed; the next call starts a fresh one`;
    case 'upstream-failed':
      return `proxy: upstream #${event.start} failed to start: ${event.message}${event.retryInMs === undefined ? '' : `; next start in ${event.retryInMs} ms at the earliest`}`;
    case 'upstream-warning':
      return `proxy: upstream: ${event.message}`;
    case 'listening':
      return `proxy: listening on ${event.url}`;
    case 'admin-listening':
      return `proxy: health, readiness and metrics on ${event.url}`;
    case 'draining':
      return `proxy: ${event.why}; draining: no new calls, ${count(event.inFlight, 'call')} in flight may finish within ${event.drainMs} ms`;
    case 'shutdown':
      return `proxy: ${event.why}; cancelling ${count(event.inFlight, 'call')} in flight`;
    case 'stats': {
      const s = event.stats;
      const cancelled = Object.entries(s.cancelled).map(([cause, n]) => `${cause} ${n}`);
      const asked = s.inputRequired > 0 ? `, ${s.inputRequired} answered input_required` : '';
      return `proxy: ${count(s.calls, 'call')} relayed: ${s.completed} completed${asked}, ${count(s.errors, 'upstream error')}, ${s.upstreamClosed} upstream closed, cancelled upstream: ${cancelled.length ? cancelled.join(', ') : 'none'}; ${s.progressIn} progress in, ${s.progressOut} out`;
    }
  }
}

/** How much an event matters, for `--log json`'s `level`. */
export function levelOf(event: ProxyEvent): 'info' | 'warn' | 'error' {
  switch (event.type) {
    case 'call':
      return event.outcome === 'completed' || event.outcome === 'input-required' ? 'info' : 'warn';
    case 'endpoint':
      return event.event === 'error' ? 'error' : 'info';
    case 'upstream-failed':
      return 'error';
    case 'upstream-closed':
    case 'upstream-warning':
      return 'warn';
    default:
      return 'info';
  }
}

/**
 * One `--log json` line: `time` (ISO 8601), `level`, `msg` (the text line), then the event's own fields.
 *
 * @example
 * ```ts
 * import { jsonLine } from './events.js';
 * jsonLine({ type: 'listening', url: 'http://127.0.0.1:3000/mcp' }, new Date(0));
 * // '{"time":"1970-01-01T00:00:00.000Z","level":"info","msg":"listening on http://127.0.0.1:3000/mcp","type":"listening",...}'
 * ```
 */
export function jsonLine(event: ProxyEvent, at: Date = new Date()): string {
  const msg = formatEvent(event).replace(/^proxy: /, '');
  return JSON.stringify({ time: at.toISOString(), level: levelOf(event), msg, ...event });
}

/** One line for what an endpoint of the proxy reported (a cancel, a deadline, a late message, an error). */
function formatEndpointEvent(event: EndpointLogEvent): string {
  const on = `proxy: ${event.leg}:`;
  const req = (method: string, id: RequestId) => `${method} id ${JSON.stringify(id)}`;
  switch (event.event) {
    case 'cancel-sent':
      return `${on} cancelled ${req(event.method, event.id)} (${event.how}): ${event.reason}`;
    case 'cancel-received':
      return `${on} the peer cancelled ${req(event.method, event.id)}${event.reason === undefined ? '' : `: ${event.reason}`}`;
    case 'deadline-fired':
      return `${on} ${event.cause} ended ${event.direction} ${req(event.method, event.id)}: ${event.message}`;
    case 'late':
      return `${on} late ${event.kind} for ${JSON.stringify(event.key)} absorbed`;
    case 'error':
      return `${on} error (${event.context}): ${event.message}`;
  }
}

/** `1 call`, `2 calls`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
