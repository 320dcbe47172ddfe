import { JsonRpcErrorCode, type RequestId } from '@mcp-inflight/core';
import {
  CLIENT_CAPABILITIES_META_KEY,
  MODERN_REVISION,
  metaVersionOf,
  type ParamHeader,
  paramHeaderMismatch,
} from '@mcp-inflight/core/adapter';
import { decodeHeaderValue, NAME_FIELD_BY_METHOD } from '../shared/header-value.js';
import type { InboundRequest, Reply } from './exchange.js';
import { errorReply } from './replies.js';

/**
 * Checks a 2026-07-28 request against its headers before anything runs: the envelope names a revision we
 * serve (else `-32022` with the supported list [H41 M19]), `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` are present and equal the body (else `-32020` HeaderMismatch [H40 H44 H45]), and the required
 * client capabilities are there (else `-32602` [M3]). Every refusal is `400`. Returns the refusal, or
 * `undefined` when the request may be served.
 */
export function checkModernRequest(
  request: InboundRequest,
  message: { id: RequestId; method: string; params: Record<string, unknown> | undefined },
  headers: Record<string, string>,
): Reply | undefined {
  const { id, method, params } = message;
  const refuse = (code: number, text: string, data?: unknown) =>
    errorReply(400, code, text, { id, data, headers });
  const claimed = metaVersionOf(message);
  if (claimed === undefined) {
    return refuse(
      JsonRpcErrorCode.InvalidParams,
      `Invalid params: _meta["io.modelcontextprotocol/protocolVersion"] is required`,
    );
  }
  // A header that disagrees with the body is a malformed request before it is a version question [H40].
  const header = request.headers.get('mcp-protocol-version');
  if (header !== claimed) {
    return refuse(
      JsonRpcErrorCode.HeaderMismatch,
      `Header mismatch: MCP-Protocol-Version ${show(header)} does not match _meta ${show(claimed)}`,
    );
  }
  if (claimed !== MODERN_REVISION) {
    return refuse(JsonRpcErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
      supported: [MODERN_REVISION],
      requested: claimed,
    });
  }
  const methodHeader = request.headers.get('mcp-method');
  if (methodHeader !== method) {
    return refuse(
      JsonRpcErrorCode.HeaderMismatch,
      `Header mismatch: Mcp-Method ${show(methodHeader)} does not match body ${show(method)}`,
    );
  }
  const field = NAME_FIELD_BY_METHOD[method];
  if (field) {
    const body = params?.[field];
    const raw = request.headers.get('mcp-name');
    const decoded = raw === null ? undefined : decodeHeaderValue(raw);
    if (decoded === undefined || typeof body !== 'string' || decoded !== body) {
      return refuse(
        JsonRpcErrorCode.HeaderMismatch,
        `Header mismatch: Mcp-Name ${show(raw)} does not match params.${field} ${show(body)}`,
      );
    }
  }
  const meta = params?.['_meta'] as Record<string, unknown> | undefined;
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY];
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
    return refuse(
      JsonRpcErrorCode.InvalidParams,
      `Invalid params: _meta["${CLIENT_CAPABILITIES_META_KEY}"] is required`,
    );
  }
  return undefined;
}

/**
 * Checks a 2026-07-28 `tools/call` against the `Mcp-Param-{Name}` headers its tool declares (`declared`,
 * from the tool layer): each header, Base64 decoded, must agree with the value at its property path in
 * `arguments`; a value in the body needs its header, a malformed header is refused. Any disagreement is
 * `400` with HeaderMismatch `-32020`, before the handler runs. An undeclared `Mcp-Param-*` header is
 * ignored, as any unrecognized header is.
 */
export function checkParamHeaders(
  request: InboundRequest,
  message: { id: RequestId; params: Record<string, unknown> | undefined },
  headers: Record<string, string>,
  declared: readonly ParamHeader[],
): Reply | undefined {
  const args = (message.params as { arguments?: unknown } | undefined)?.arguments;
  for (const header of declared) {
    const raw = request.headers.get(`mcp-param-${header.name.toLowerCase()}`); // the lookup takes lower case
    const received = raw === null ? undefined : (decodeHeaderValue(raw) ?? null);
    const mismatch = paramHeaderMismatch(header, args, received);
    if (mismatch !== undefined) {
      return errorReply(400, JsonRpcErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`, {
        id: message.id,
        headers,
      });
    }
  }
  return undefined;
}

function show(value: unknown): string {
  return value === null || value === undefined ? '(missing)' : JSON.stringify(value);
}
