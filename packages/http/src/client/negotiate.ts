import {
  type Endpoint,
  hasStreamableHttp,
  isLegacy,
  isRevision,
  JsonRpcError,
  JsonRpcErrorCode,
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  type Revision,
} from '@mcp-inflight/core';

/** What the probe found: 2026-07-28 (with the discover result), or the legacy revision to initialize with. */
export interface ProbeVerdict {
  revision: Revision;
  result?: unknown;
}

/**
 * Finds the era the server speaks by sending a 2026-07-28 `server/discover` first [H46 M8]. A result that
 * offers 2026-07-28 is the modern era. A refusal that is a recognized modern error decides by its content:
 * `-32022` lists what the server supports (a legacy one means: initialize with it); a HeaderMismatch or a
 * `400` invalid-params means our request was at fault and is raised. Anything else (an empty or foreign
 * 400, 404, 405, a JSON-RPC error from a legacy server) falls back to `initialize` [H46], never keyed to a
 * single code [M15]. Auth failures (401, 403), server errors (5xx) and network failures are raised.
 * With `pinned`, only 2026-07-28 is acceptable.
 */
export async function probeRevision(
  endpoint: Endpoint,
  params: Record<string, unknown>,
  pinned: boolean,
): Promise<ProbeVerdict> {
  let verdict: ProbeVerdict;
  try {
    const result = await endpoint.request('server/discover', params, { revision: MODERN_REVISION });
    const supported = (result as { supportedVersions?: unknown } | undefined)?.supportedVersions;
    const offered = Array.isArray(supported) ? supported : [];
    verdict = offered.includes(MODERN_REVISION)
      ? { revision: MODERN_REVISION, result }
      : { revision: bestLegacy(offered) };
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error; // a deadline, or the client closed
    verdict = fromRefusal(error);
  }
  if (pinned && verdict.revision !== MODERN_REVISION) {
    throw new Error(`the server does not speak ${MODERN_REVISION} (it pointed to ${verdict.revision})`);
  }
  return verdict;
}

function fromRefusal(error: JsonRpcError): ProbeVerdict {
  const data = (typeof error.data === 'object' && error.data !== null ? error.data : {}) as {
    httpStatus?: unknown;
    supported?: unknown;
    network?: unknown;
  };
  const status = typeof data.httpStatus === 'number' ? data.httpStatus : undefined;
  if (data.network === true || status === 401 || status === 403 || (status !== undefined && status >= 500))
    throw error;
  if (error.code === JsonRpcErrorCode.UnsupportedProtocolVersion && Array.isArray(data.supported)) {
    if (data.supported.includes(MODERN_REVISION)) throw error; // it speaks our revision yet refused it: do not guess
    return { revision: bestLegacy(data.supported) };
  }
  if (error.code === JsonRpcErrorCode.HeaderMismatch) throw error;
  if (error.code === JsonRpcErrorCode.InvalidParams && status === 400) throw error;
  return { revision: LATEST_LEGACY_REVISION };
}

/** The newest legacy revision with Streamable HTTP in `offered`, else the newest we speak. */
function bestLegacy(offered: unknown[]): Revision {
  const usable = offered
    .filter((v): v is Revision => isRevision(v) && isLegacy(v) && hasStreamableHttp(v))
    .sort();
  return usable.at(-1) ?? LATEST_LEGACY_REVISION;
}
