import { Reply } from './exchange.js';

/** The methods an MCP endpoint serves: a preflight's allow list, and a 405's `Allow`. */
export const ALLOWED_METHODS = 'GET, POST, DELETE';
/** What a browser client of MCP sends: the body's type, auth, the session and the mirrored headers. */
const MCP_REQUEST_HEADERS = [
  'content-type',
  'accept',
  'authorization',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
];
/** SEP-2243's `Mcp-Param-{Name}`: one per `x-mcp-header` parameter, so no fixed list can hold them. */
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** The CORS headers of an answer to a browser request (an allowed origin's), else none. */
export function corsHeaders(origin: string | null): Record<string, string> {
  if (origin === null) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version',
    vary: 'origin',
  };
}

/**
 * The answer to a preflight: MCP's own request headers, the server's `corsAllowHeaders` (a proxy's
 * passed headers), and the `Mcp-Param-*` headers the browser asks for (`requested`, the
 * `Access-Control-Request-Headers` list), which depend on the tool so are echoed rather than listed.
 */
export function preflight(
  headers: Record<string, string>,
  requested: string | null,
  options: { corsAllowHeaders: readonly string[] },
): Reply {
  const allowed = new Set([...MCP_REQUEST_HEADERS, ...options.corsAllowHeaders]);
  for (const name of (requested ?? '').split(',')) {
    const header = name.trim().toLowerCase();
    if (PARAM_HEADER.test(header)) allowed.add(header);
  }
  return new Reply(204, {
    ...headers,
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-allow-headers': [...allowed].join(', '),
    'access-control-max-age': '600',
    vary: headers['vary']
      ? `${headers['vary']}, access-control-request-headers`
      : 'access-control-request-headers',
  });
}
