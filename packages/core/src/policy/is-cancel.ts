import { InflightError } from '../errors/inflight-error.js';
import type { Revision } from '../revisions/revisions.js';
import { eraCancelPolicy, type TransportKind } from './era-cancel-policy.js';

/**
 * Whether a request ended because its caller asked it to stop: the one way to ask "was this a cancel?".
 * `CANCELLED` is (a `notifications/cancelled`, a `tasks/cancel`, a user's abort). A `DISCONNECTED` is a
 * cancel only where the revision makes a dropped stream the cancel, 2026-07-28 over HTTP
 * (`EraCancelPolicy.disconnectIsCancel`) [CN24: closing the stream is the cancel]; on stdio or legacy
 * HTTP it is a dropped peer [H13]. Limits (`IDLE_TIMEOUT`, `CEILING`), `SHUTDOWN` and the rest are not,
 * and a value that is not an `InflightError` is not (pass `InflightError.from(signal.reason)` for an
 * aborted signal).
 *
 * @example
 * ```ts
 * import { InflightError, isCancel } from '@mcp-inflight/core';
 * isCancel(InflightError.cancelled('user pressed stop'), '2025-11-25', 'stdio'); // true
 * isCancel(new InflightError('DISCONNECTED'), '2026-07-28', 'http'); // true: the caller closed the stream
 * isCancel(new InflightError('DISCONNECTED'), '2025-11-25', 'stdio'); // false: the peer went away
 * isCancel(InflightError.ceiling(1_000), '2025-11-25', 'stdio'); // false: a limit
 * ```
 */
export function isCancel(error: unknown, revision: Revision, transport: TransportKind): boolean {
  if (!InflightError.is(error)) return false;
  if (error.code === 'CANCELLED') return true;
  if (error.code !== 'DISCONNECTED' || transport !== 'http') return false;
  return eraCancelPolicy(revision, transport).disconnectIsCancel().value;
}
