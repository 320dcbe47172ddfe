import { type CancelCode, JSONRPC_CODE_BY_CAUSE } from './causes.js';

/**
 * Facts that make a cancellation message useful: which limit, how long, what was seen.
 *
 * @example
 * ```ts
 * import { InflightError, type InflightErrorDetails } from '@mcp-inflight/core';
 * const details: InflightErrorDetails = { elapsedMs: 5_012, progressCount: 3, requestId: 42 };
 * const error = InflightError.idle(5_000, details);
 * error.details.limitMs; // 5000: idle() adds the limit
 * error.toJsonRpc().data; // { cause: 'IDLE_TIMEOUT', elapsedMs: 5012, progressCount: 3, requestId: 42, … }
 * ```
 */
export interface InflightErrorDetails {
  /** The limit that fired, for `IDLE_TIMEOUT` and `CEILING`. */
  limitMs?: number;
  /** Milliseconds from the start of the call to the moment it ended. */
  elapsedMs?: number;
  /** Accepted progress updates before the end. */
  progressCount?: number;
  /** The request this is about, when known. */
  requestId?: string | number;
  /** The method of that request, when known. */
  method?: string;
}

/**
 * A JSON-RPC error object as it goes on the wire.
 */
export interface JsonRpcErrorObject {
  /** The JSON-RPC error code. */
  code: number;
  /** A short description of the error. */
  message: string;
  /** Extra information; ours carries `cause` (the `CancelCode`) and the details. */
  data?: unknown;
}

const DEFAULT_MESSAGES: Record<CancelCode, string> = {
  CANCELLED: 'cancelled by the caller',
  IDLE_TIMEOUT: 'idle limit passed with no progress',
  CEILING: 'hard ceiling reached',
  DISCONNECTED: 'the peer disconnected',
  UPSTREAM_CLOSED: 'the upstream connection closed',
  UPSTREAM_UNAVAILABLE: 'the upstream is not ready',
  SHUTDOWN: 'shutting down',
  SESSION_EXPIRED: 'the HTTP session expired with no contact from its client',
  UNSERIALIZABLE: 'the request could not be serialized as JSON',
};

/**
 * The text of an idle or ceiling error, kept for the last (limit, updates) pair it was built for: when
 * thousands of calls with one limit time out together, the text is built once rather than once each.
 */
interface LimitText {
  readonly what: (limitMs: number) => string;
  limitMs: number;
  seen: number;
  text: string;
}
const IDLE_TEXT: LimitText = {
  what: (limitMs) => `idle limit of ${limitMs} ms passed with no progress`,
  limitMs: Number.NaN,
  seen: -1,
  text: '',
};
const CEILING_TEXT: LimitText = {
  what: (limitMs) => `hard ceiling of ${limitMs} ms reached`,
  limitMs: Number.NaN,
  seen: -1,
  text: '',
};

function limitText(cache: LimitText, limitMs: number, seen: number): string {
  if (cache.limitMs !== limitMs || cache.seen !== seen) {
    cache.text = `${cache.what(limitMs)} (${seen} update${seen === 1 ? '' : 's'} before)`;
    cache.limitMs = limitMs;
    cache.seen = seen;
  }
  return cache.text;
}

// A registry symbol, so every copy of this class (the CJS and ESM builds in one app, a vendored copy, a
// second bundle) brands its errors with the same key and recognises the others'.
const BRAND: unique symbol = Symbol.for('@mcp-inflight/core/InflightError');
const plainInstanceOf = Function.prototype[Symbol.hasInstance];

/**
 * The one local error class: why a call ended early, as a literal `code` with typed details. It is the
 * `reason` of every AbortSignal mcp-inflight aborts, and the rejection of every call it ends.
 *
 * @example
 * ```ts
 * import { InflightError } from '@mcp-inflight/core';
 * const error = InflightError.idle(500, { elapsedMs: 12_400, progressCount: 37 });
 * error.code;            // 'IDLE_TIMEOUT'
 * error.wireReason();    // text for notifications/cancelled
 * error.toJsonRpc();     // { code: -32001, message, data: { cause: 'IDLE_TIMEOUT', ... } }
 * ```
 */
export class InflightError extends Error {
  /** Always `'InflightError'`. */
  override readonly name = 'InflightError';
  /** Why the call ended early. */
  readonly code: CancelCode;
  /** What is known about the call and the limit (request id, method, timings). */
  readonly details: InflightErrorDetails;
  /**
   * Where the limit fired: `local` (this process) or `remote` (the peer, or a proxy further on, answered
   * with this cause in `data.cause`). One `catch` reads both the same way (rule 11).
   */
  readonly origin: 'local' | 'remote';

  /** The brand every copy of this class shares; see {@link InflightError.is}. */
  get [BRAND](): true {
    return true;
  }

  /**
   * Whether `value` is an InflightError made by any copy of this package: the CJS build, the ESM build, a
   * vendored copy or a second bundle. `instanceof InflightError` gives the same answer.
   *
   * @example
   * ```ts
   * import { InflightError } from '@mcp-inflight/core';
   * declare const error: unknown; // perhaps thrown by a CJS dependency holding its own copy
   * if (InflightError.is(error)) console.log(error.code, error.wireReason());
   * ```
   */
  static is(value: unknown): value is InflightError {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  /** `instanceof InflightError` is {@link InflightError.is}; a subclass keeps plain prototype checks. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof, maybe a subclass
    return this === InflightError ? InflightError.is(value) : plainInstanceOf.call(this, value);
  }

  constructor(
    code: CancelCode,
    message?: string,
    details: InflightErrorDetails = {},
    options?: { cause?: unknown; origin?: 'local' | 'remote' },
  ) {
    super(
      message ?? DEFAULT_MESSAGES[code],
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.details = details;
    this.origin = options?.origin ?? 'local';
  }

  /** A caller's own cancel, `why` the text they gave: a peer's `CANCELLED: ...` reason is kept, not wrapped. */
  static cancelled(why?: string, details?: InflightErrorDetails, cause?: unknown): InflightError {
    const text = why?.startsWith('CANCELLED: ') ? why.slice(11) : why && `cancelled by the caller: ${why}`;
    return new InflightError('CANCELLED', text || undefined, details, { cause });
  }

  /** The idle window passed with no activity. */
  static idle(limitMs: number, details: InflightErrorDetails = {}): InflightError {
    return limitPassed('IDLE_TIMEOUT', { ...details, limitMs });
  }

  /** The hard ceiling from the start passed, whatever progress said. */
  static ceiling(limitMs: number, details: InflightErrorDetails = {}): InflightError {
    return limitPassed('CEILING', { ...details, limitMs });
  }

  /**
   * Reads any abort reason as an InflightError, keeping a foreign reason as the `cause`. A foreign
   * `TimeoutError` (`AbortSignal.timeout()`, p-timeout) is a fixed time bound, so it reads as CEILING; any
   * other reason is the caller's cancel.
   */
  static from(reason: unknown): InflightError {
    if (InflightError.is(reason)) return reason;
    if (isInflightErrorLike(reason)) {
      return new InflightError(reason.code, reason.message, reason.details ?? {}, { cause: reason });
    }
    if (isTimeoutError(reason))
      return new InflightError('CEILING', reason.message || undefined, {}, { cause: reason });
    const text = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : undefined;
    return InflightError.cancelled(text, {}, reason);
  }

  /** Whether this is one of the two timeouts. */
  get isTimeout(): boolean {
    return this.code === 'IDLE_TIMEOUT' || this.code === 'CEILING';
  }

  /** The honest `reason` for `notifications/cancelled`: the cause, then the message. */
  wireReason(): string {
    return `${this.code}: ${this.message}`;
  }

  /** The JSON-RPC error for a caller waiting on this call. */
  toJsonRpc(): JsonRpcErrorObject {
    return {
      code: JSONRPC_CODE_BY_CAUSE[this.code],
      message: this.message,
      data: { cause: this.code, ...this.details },
    };
  }

  /** A plain object for logs and `JSON.stringify`. */
  toJSON(): {
    /** Always `'InflightError'`. */
    name: string;
    /** Why the call ended early. */
    code: CancelCode;
    /** The error's message. */
    message: string;
    /** What is known about the call and the limit. */
    details: InflightErrorDetails;
  } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

function isInflightErrorLike(
  value: unknown,
): value is { code: CancelCode; message: string; details?: InflightErrorDetails } {
  // Another copy of this class (a second bundle) is still the same error by shape.
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === 'InflightError' &&
    isCancelCode((value as { code?: unknown }).code)
  );
}

function isTimeoutError(value: unknown): value is { name: 'TimeoutError'; message: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === 'TimeoutError' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** Own keys only: `"constructor"` or `"toString"` from a peer's `data.cause` is not a cause. */
function isCancelCode(value: unknown): value is CancelCode {
  return typeof value === 'string' && Object.hasOwn(JSONRPC_CODE_BY_CAUSE, value);
}

/**
 * Reads a JSON-RPC error from a peer back into an InflightError when it carries one of our causes, so a
 * proxy's "idle limit" reaches the host as IDLE_TIMEOUT, not as a generic failure.
 */
export function inflightErrorFromJsonRpc(error: JsonRpcErrorObject): InflightError | undefined {
  const data = error.data as { cause?: unknown } | undefined;
  const cause = data?.cause;
  if (!isCancelCode(cause)) return undefined;
  const { cause: _ignored, ...details } = data as Record<string, unknown>;
  return new InflightError(cause, error.message, details as InflightErrorDetails, { origin: 'remote' });
}

/**
 * The error a limit ends a call with; `details` (its `limitMs` included) is taken as is, not copied.
 * Internal to core: a deadline hands it a literal made for it (a storm of 10,000 firings makes 10,000 of
 * these, and a spread copy per firing was a tenth of its busy time); the public `InflightError.idle` /
 * `.ceiling` copy what a user gives them.
 * @internal
 */
export function limitPassed(
  kind: 'IDLE_TIMEOUT' | 'CEILING',
  details: InflightErrorDetails & { limitMs: number },
): InflightError {
  const text = kind === 'IDLE_TIMEOUT' ? IDLE_TEXT : CEILING_TEXT;
  return new InflightError(kind, limitText(text, details.limitMs, details.progressCount ?? 0), details);
}

/** What a deadline's limit error says of the call: one literal shape for every firing. @internal */
export type LimitFacts = { elapsedMs: number; progressCount: number; limitMs: number };

/**
 * {@link limitPassed} without capturing a stack: a deadline's limit is raised by the shared timer, whose
 * frames say nothing about the call. Bench E (Node 20): 5-10 µs -> about 1.5 µs per firing (10,000
 * deadlines falling due together spent about 5 of every 6 microseconds on the stack). @internal
 */
export function limitWithoutStack(kind: 'IDLE_TIMEOUT' | 'CEILING', details: LimitFacts): InflightError {
  const errorClass = Error as { stackTraceLimit?: number };
  const limit = errorClass.stackTraceLimit;
  // An engine without the knob, or a frozen `Error` (a hardened realm), gets an ordinary error.
  if (typeof limit !== 'number') return limitPassed(kind, details);
  try {
    errorClass.stackTraceLimit = 0;
  } catch {
    return limitPassed(kind, details);
  }
  try {
    return limitPassed(kind, details);
  } finally {
    errorClass.stackTraceLimit = limit;
  }
}
