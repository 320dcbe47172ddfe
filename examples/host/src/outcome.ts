import { type CancelCode, InflightError, JsonRpcError } from '@mcp-inflight/core';

/** How a call ended, in words a person reads. */
export type EndKind =
  | 'completed'
  | 'tool-error'
  | 'cancelled'
  | 'idle-timeout'
  | 'ceiling'
  | 'disconnected'
  | 'upstream-closed'
  | 'shutdown'
  | 'session-expired'
  | 'error';

/**
 * Why a call ended, and who ended it: `you` (Ctrl-C or a scripted cancel), `host` (this host's own
 * limits, or its connection dropping), `server` (the server or a proxy in between answered with the
 * cause: its idle limit, its ceiling, its upstream going away).
 */
export interface CallOutcome {
  kind: EndKind;
  by: 'you' | 'host' | 'server';
  /** The cause code, when the call ended early. */
  cause?: CancelCode;
  /** The JSON-RPC error code, when the server answered with an error. */
  code?: number;
  /** One line: the result's text, or the error's message. */
  detail: string;
}

const KIND_BY_CAUSE: Record<CancelCode, EndKind> = {
  CANCELLED: 'cancelled',
  IDLE_TIMEOUT: 'idle-timeout',
  CEILING: 'ceiling',
  DISCONNECTED: 'disconnected',
  UPSTREAM_CLOSED: 'upstream-closed',
  UPSTREAM_UNAVAILABLE: 'upstream-closed',
  SHUTDOWN: 'shutdown',
  SESSION_EXPIRED: 'session-expired',
  UNSERIALIZABLE: 'error', // the call was never sent: an error of ours, not a cancel
};

/**
 * The outcome of a call that returned a result: `completed`, or `tool-error` when the tool said
 * `isError` (the call worked; the tool failed).
 *
 * @example
 * ```ts
 * import { outcomeOfResult } from './outcome.js';
 * outcomeOfResult({ content: [{ type: 'text', text: 'done 8 steps' }] });
 * // { kind: 'completed', by: 'server', detail: 'done 8 steps' }
 * ```
 */
export function outcomeOfResult(result: unknown): CallOutcome {
  const r = (typeof result === 'object' && result !== null ? result : {}) as {
    isError?: unknown;
    content?: unknown;
  };
  const text = Array.isArray(r.content)
    ? r.content
        .map((c) =>
          typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'text'
            ? String((c as { text?: unknown }).text)
            : '',
        )
        .filter((t) => t !== '')
        .join(' ')
    : '';
  const detail = oneLine(text || JSON.stringify(result ?? null));
  return r.isError === true
    ? { kind: 'tool-error', by: 'server', detail }
    : { kind: 'completed', by: 'server', detail };
}

/**
 * The outcome of a call that failed. Every limit is an {@link InflightError}, whichever side enforced it:
 * `origin: 'local'` is this host's own verdict (the user's cancel, its own limits, its connection),
 * `origin: 'remote'` the far side's (a proxy's idle limit reaches us as `idle-timeout` by `server`, never
 * as a generic failure). Any other JSON-RPC error is the server's.
 *
 * @example
 * ```ts
 * import { InflightError } from '@mcp-inflight/core';
 * import { outcomeOfError } from './outcome.js';
 * outcomeOfError(new InflightError('IDLE_TIMEOUT', 'idle limit of 800 ms passed', {}, { origin: 'remote' }));
 * // { kind: 'idle-timeout', by: 'server', cause: 'IDLE_TIMEOUT', code: -32001, detail: 'idle limit of 800 ms passed' }
 * ```
 */
export function outcomeOfError(error: unknown): CallOutcome {
  if (error instanceof InflightError) {
    const kind = KIND_BY_CAUSE[error.code];
    const detail = oneLine(error.message);
    if (error.origin === 'remote') {
      return { kind, by: 'server', cause: error.code, code: error.toJsonRpc().code, detail };
    }
    return { kind, by: error.code === 'CANCELLED' ? 'you' : 'host', cause: error.code, detail };
  }
  if (error instanceof JsonRpcError) {
    return { kind: 'error', by: 'server', code: error.code, detail: oneLine(error.message) };
  }
  return {
    kind: 'error',
    by: 'host',
    detail: oneLine(error instanceof Error ? error.message : String(error)),
  };
}

/**
 * A short sentence for an outcome, as the host prints it when a call ends.
 *
 * @example
 * ```ts
 * import { describeOutcome } from './outcome.js';
 * describeOutcome({ kind: 'cancelled', by: 'you', cause: 'CANCELLED', detail: 'cancelled by the caller' });
 * // 'cancelled by you'
 * ```
 */
export function describeOutcome(outcome: CallOutcome): string {
  const far = 'upstream';
  switch (outcome.kind) {
    case 'completed':
      return `completed: ${outcome.detail}`;
    case 'tool-error':
      return `the tool reported an error: ${outcome.detail}`;
    case 'cancelled':
      return outcome.by === 'you' ? 'cancelled by you' : `cancelled ${far}: ${outcome.detail}`;
    case 'idle-timeout':
      return `${outcome.by === 'server' ? `idle limit (${far})` : 'idle limit (this host)'}: ${outcome.detail}`;
    case 'ceiling':
      return `${outcome.by === 'server' ? `ceiling (${far})` : 'ceiling (this host)'}: ${outcome.detail}`;
    case 'disconnected':
      return `disconnected: ${outcome.detail}`;
    case 'upstream-closed':
      return outcome.by === 'server'
        ? `the server's upstream went away: ${outcome.detail}`
        : `lost the connection to the server: ${outcome.detail}`;
    case 'shutdown':
      return `${outcome.by === 'server' ? 'the server side shut down' : 'shut down'}: ${outcome.detail}`;
    case 'session-expired':
      return `the server expired this session: ${outcome.detail}`;
    case 'error':
      return outcome.code === undefined
        ? `failed: ${outcome.detail}`
        : `server error ${outcome.code}: ${outcome.detail}`;
  }
}

/**
 * A message as one short line for a person. A trailing `({...})` that parses as a JSON object is dropped:
 * the HTTP adapter appends its error data that way (`fetch failed ({"network":true})`), and that is wire
 * detail, not a sentence.
 */
function oneLine(text: string): string {
  const flat = withoutTrailingJson(text.replace(/\s+/g, ' ').trim());
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

function withoutTrailingJson(text: string): string {
  const at = text.lastIndexOf(' ({');
  if (at < 0 || !text.endsWith('})')) return text;
  try {
    JSON.parse(text.slice(at + 2, -1));
  } catch {
    return text; // words in parentheses, not data
  }
  return text.slice(0, at);
}
