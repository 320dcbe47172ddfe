// Custom headers from tool parameters (2026-07-28 Streamable HTTP, SEP-2243): the constraints on an
// `x-mcp-header` annotation, and the value a mirrored `Mcp-Param-{Name}` header carries. One module for
// every side: the tool layer refuses a bad annotation at definition, an HTTP client excludes a tool that
// has one, an HTTP server and the proxy validate the headers of a call. No zod, no node:*: it reads JSON
// Schema as plain data, so it sits on the /adapter entry.
import type { Endpoint } from '../endpoint/endpoint.js';
import { featureSlot, setFeatureSlot } from '../endpoint/feature-slots.js';

/**
 * The JSON Schema keyword that designates a mirrored parameter.
 */
export const X_MCP_HEADER = 'x-mcp-header';

/**
 * One mirrored parameter of a tool: the `{Name}` of its `Mcp-Param-{Name}` header, the chain of
 * `properties` keys from the input schema's root to it, and its JSON type.
 */
export interface ParamHeader {
  /** The header name's suffix, as the tool declared it (`Region` for `Mcp-Param-Region`). */
  readonly name: string;
  /** The property path in the call's `arguments`. */
  readonly path: readonly string[];
  /** The parameter's type: the only three a header may mirror. */
  readonly type: 'string' | 'integer' | 'boolean';
}

/**
 * What {@link paramHeadersOf} found in a tool's input schema: the mirrored parameters, and every broken
 * constraint (each a sentence naming the property). A tool with any problem is invalid as a whole.
 */
export interface ParamHeaders {
  /** The mirrored parameters, in schema order. */
  readonly headers: readonly ParamHeader[];
  /** Why the annotations are invalid; empty when they are valid. */
  readonly problems: readonly string[];
}

/** RFC 9110 field-name token: `1*tchar` (visible ASCII, no separators, no spaces or controls). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const MIRRORABLE = /* @__PURE__ */ new Set(['string', 'integer', 'boolean']);
/** Keywords whose values are data, not subschemas: an `x-mcp-header` key inside one is not an annotation. */
const DATA = /* @__PURE__ */ new Set(['const', 'enum', 'default']);

const NONE: ParamHeaders = { headers: [], problems: [] };

/**
 * Reads the `x-mcp-header` annotations of a tool's `inputSchema` and checks each constraint: not empty, an
 * HTTP token, unique case-insensitively, on a `string`, `integer` or `boolean` property (`number` is not
 * allowed; `null` may join the type), reached from the root through `properties` keys only (an annotation
 * under `items`, a composition, a conditional or a `$ref` target makes the tool invalid).
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeaders {
  if (!isObject(inputSchema)) return NONE;
  const headers: ParamHeader[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  // `path`: the properties chain to a reachable schema; `undefined` once anything else was crossed.
  const walk = (value: unknown, path: string[] | undefined, at: string): void => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, undefined, `${at}/${i}`);
      return;
    }
    if (!isObject(value)) return;
    if (X_MCP_HEADER in value) {
      if (path?.length) annotated(value, path, at);
      else problems.push(`${at}: ${X_MCP_HEADER} is not reachable through properties alone`);
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === 'properties' && path && isObject(child)) {
        for (const [name, sub] of Object.entries(child))
          walk(sub, [...path, name], `${at}/properties/${name}`);
      } else if (!DATA.has(key)) walk(child, undefined, `${at}/${key}`);
    }
  };
  const annotated = (schema: Record<string, unknown>, path: string[], at: string): void => {
    const name = schema[X_MCP_HEADER];
    const declared = (schema as { type?: unknown }).type;
    const type = primitiveTypeOf(declared);
    const other = typeof name === 'string' ? seen.get(name.toLowerCase()) : undefined;
    const problem =
      typeof name !== 'string' || name === ''
        ? 'is empty or not a string'
        : !TOKEN.test(name)
          ? 'is not an HTTP token'
          : other !== undefined
            ? `repeats the one at ${other}`
            : type === undefined
              ? `is on type ${JSON.stringify(declared ?? null)}, not string, integer or boolean`
              : undefined;
    if (problem !== undefined)
      return void problems.push(`${at}: ${X_MCP_HEADER} ${JSON.stringify(name)} ${problem}`);
    seen.set((name as string).toLowerCase(), at);
    headers.push({ name: name as string, path, type: type as ParamHeader['type'] });
  };
  walk(inputSchema, [], '#');
  return problems.length > 0 ? { headers: [], problems } : headers.length > 0 ? { headers, problems } : NONE;
}

/**
 * The value a mirrored header carries for `args`, before the Base64 sentinel is applied: a string as it
 * is, an integer in decimal, a boolean as `true` or `false`; `undefined` when the path holds nothing,
 * `null`, or a value that is not one of those (then the header is omitted).
 */
export function paramHeaderValue(args: unknown, header: ParamHeader): string | undefined {
  const value = valueAt(args, header.path);
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Compares one mirrored header with the call's `args`: `header` is the value after Base64 decoding,
 * `undefined` when the header is absent, `null` when it is malformed. Returns why they disagree (for the
 * HeaderMismatch `-32020` message), or `undefined` when they agree. A value in the body needs its header; a
 * header needs its value; an integer compares numerically (`42.0` equals `42`).
 */
export function paramHeaderMismatch(
  header: ParamHeader,
  args: unknown,
  received: string | null | undefined,
): string | undefined {
  const label = `Mcp-Param-${header.name}`;
  const field = `arguments.${header.path.join('.')}`;
  if (received === null) return `${label} is malformed (invalid characters or Base64)`;
  const body = valueAt(args, header.path);
  const expected = paramHeaderValue(args, header);
  if (expected === undefined) {
    return received === undefined ? undefined : `${label} is present but ${field} has no value to mirror`;
  }
  if (received === undefined) return `${label} is missing but ${field} is ${JSON.stringify(body)}`;
  const agree =
    header.type === 'integer' && typeof body === 'number'
      ? received.trim() !== '' && Number(received) === body
      : received === expected;
  return agree
    ? undefined
    : `${label} ${JSON.stringify(received)} does not match ${field} ${JSON.stringify(body)}`;
}

/** What each served endpoint mirrors, by tool name: told by the tool layer, read by the transport. */
// Kept on the endpoint, not in a WeakMap keyed by it (one per 2026-07-28 request kept each alive through GC).
const SERVED = /* @__PURE__ */ Symbol('served param headers');
type Lookup = (tool: string) => readonly ParamHeader[] | undefined;

/**
 * Tells the transport which parameters the tools served on `endpoint` mirror: `lookup` answers for a tool
 * name (`undefined` or `[]`: none). `serveTools` calls it; a layer that serves tools of its own (the proxy,
 * for its upstream's) calls it too. The HTTP server reads it through {@link servedParamHeaders} to refuse a
 * 2026-07-28 `tools/call` whose `Mcp-Param-*` headers disagree with its body before the handler runs.
 */
export function declareParamHeaders(
  endpoint: Endpoint,
  lookup: (tool: string) => readonly ParamHeader[] | undefined,
): void {
  setFeatureSlot(endpoint, SERVED, lookup);
}

/**
 * The parameters tool `tool` mirrors on `endpoint`, as declared with {@link declareParamHeaders}; empty
 * when nothing was declared.
 */
export function servedParamHeaders(endpoint: Endpoint, tool: string): readonly ParamHeader[] {
  return featureSlot<Lookup>(endpoint, SERVED)?.(tool) ?? [];
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** `string`, `integer` or `boolean`, alone or with `null`; anything else is not mirrorable. */
function primitiveTypeOf(type: unknown): ParamHeader['type'] | undefined {
  const types: unknown[] = Array.isArray(type) ? type : [type];
  const [only, ...more] = types.filter((t) => t !== 'null');
  return more.length === 0 && types.length <= 2 && MIRRORABLE.has(only as string)
    ? (only as ParamHeader['type'])
    : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
