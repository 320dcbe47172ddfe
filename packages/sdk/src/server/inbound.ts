import { isRevision, type ProgressToken, type Revision } from '@mcp-inflight/core';
import { isTokenOrId, LATEST_LEGACY_REVISION, PROTOCOL_VERSION_META_KEY } from '@mcp-inflight/core/adapter';
import type { HandlerContext, ProgressNotificationLike, RequestMetaLike } from '../shapes.js';

/** One inbound request, read the same way from a v1 `extra` and a v2 `ctx`. */
export interface Inbound {
  /** The host's progress token, or undefined when it asked for none (then nothing is sent [PS3]). */
  token: ProgressToken | undefined;
  /** Aborts when the host cancels (or disconnects). */
  signal: AbortSignal;
  /** The downstream revision, for `message` [PS6]. */
  revision: Revision;
  /** The inbound request's `_meta`, as the handler sees it. */
  meta: RequestMetaLike | undefined;
  /** Sends a notification related to this request (on HTTP: on its own response stream [PT2 PT6]). */
  notify(notification: ProgressNotificationLike): Promise<void>;
}

/**
 * Reads a handler's last argument. v2 (`ctx.mcpReq`) carries the 2026-07-28 envelope; v1 (`extra`) carries
 * the `MCP-Protocol-Version` header on HTTP. Without either the revision is the newest legacy one, which has
 * `message`; pass `revision` for a 2024-11-05 peer.
 */
export function readInbound(context: HandlerContext, revision?: Revision): Inbound {
  if ('mcpReq' in context) {
    const req = context.mcpReq;
    const claimed = req.envelope?.[PROTOCOL_VERSION_META_KEY];
    return {
      token: tokenOf(req._meta),
      signal: req.signal,
      revision: revision ?? (isRevision(claimed) ? claimed : LATEST_LEGACY_REVISION),
      meta: req._meta,
      notify: (notification) => req.notify(notification),
    };
  }
  const header = context.requestInfo?.headers?.['mcp-protocol-version'];
  return {
    token: tokenOf(context._meta),
    signal: context.signal,
    revision: revision ?? (isRevision(header) ? header : LATEST_LEGACY_REVISION),
    meta: context._meta,
    notify: (notification) => context.sendNotification(notification),
  };
}

// A token is a string or an integer [PG3]; anything else (null, a float) means "no progress asked for".
function tokenOf(meta: RequestMetaLike | undefined): ProgressToken | undefined {
  const token = meta?.progressToken;
  return isTokenOrId(token) ? token : undefined;
}
