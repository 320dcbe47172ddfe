// The Base64 sentinel of 2026-07-28 mirrored headers (`Mcp-Name`, `Mcp-Param-*`). Shared by the client
// (encode) and the server (decode); no node:* imports, so it runs in browsers too.

/**
 * Methods whose `Mcp-Name` header mirrors `params.name` or `params.uri` (2026-07-28) [H45], and the tasks
 * extension's `params.taskId`, so intermediaries can route a task's requests to the instance holding it [T26].
 */
export const NAME_FIELD_BY_METHOD: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'resources/read': 'uri',
  'prompts/get': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

const PREFIX = '=?base64?';
const SUFFIX = '?=';
/** Visible ASCII, space and tab: what a plain header value may hold (RFC 9110). */
const SAFE = /^[\x20-\x7E\t]*$/;
/** Canonical Base64 (RFC 4648 §4): whole quanta, padded; `atob` alone would forgive missing padding. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Encodes a value for a mirrored 2026-07-28 header: as-is when it is plain ASCII (no tab) without edge
 * whitespace, else `=?base64?…?=` of its UTF-8 bytes. A plain value that looks like the sentinel is
 * encoded too, so it cannot be misread.
 *
 * @example
 * ```ts
 * import { encodeHeaderValue } from '@mcp-inflight/http';
 * encodeHeaderValue('get_weather'); // 'get_weather'
 * encodeHeaderValue('Hello, 世界'); // '=?base64?SGVsbG8sIOS4lueVjA==?='
 * ```
 */
export function encodeHeaderValue(value: string): string {
  // A tab is legal in a field value, but intermediaries differ on it: Base64 keeps it intact.
  const plain =
    SAFE.test(value) &&
    !value.includes('\t') &&
    value.trim() === value &&
    !(value.startsWith(PREFIX) && value.endsWith(SUFFIX));
  return plain ? value : `${PREFIX}${utf8ToBase64(value)}${SUFFIX}`;
}

/**
 * Decodes a mirrored header value: the sentinel form to its UTF-8 text, a plain value unchanged. Returns
 * `undefined` for a value that is neither (bad characters, Base64 that is not canonical and padded,
 * invalid UTF-8), which the server answers with `400` and HeaderMismatch `-32020`.
 *
 * @example
 * ```ts
 * import { decodeHeaderValue } from '@mcp-inflight/http';
 * decodeHeaderValue('=?base64?SGVsbG8sIOS4lueVjA==?='); // 'Hello, 世界'
 * decodeHeaderValue('get_weather'); // 'get_weather'
 * ```
 */
export function decodeHeaderValue(header: string): string | undefined {
  if (
    header.length >= PREFIX.length + SUFFIX.length &&
    header.startsWith(PREFIX) &&
    header.endsWith(SUFFIX)
  ) {
    const encoded = header.slice(PREFIX.length, header.length - SUFFIX.length);
    if (!BASE64.test(encoded)) return undefined;
    try {
      return base64ToUtf8(encoded);
    } catch {
      return undefined;
    }
  }
  return SAFE.test(header) ? header : undefined;
}

function utf8ToBase64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function base64ToUtf8(encoded: string): string {
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}
