import { type ParamHeader, paramHeadersOf, paramHeaderValue, X_MCP_HEADER } from '@mcp-inflight/core/adapter';
import { encodeHeaderValue } from '../shared/header-value.js';

/**
 * What `HttpClientOptions.onWarning` is told.
 *
 * @example
 * ```ts
 * import { HttpClient, type HttpClientWarning } from '@mcp-inflight/http';
 * const excluded: HttpClientWarning[] = [];
 * const client = new HttpClient({ url: 'http://127.0.0.1:3000/mcp', onWarning: (w) => excluded.push(w) });
 * ```
 */
export interface HttpClientWarning {
  /** `tool-excluded`: a tool left out of `tools/list` for invalid `x-mcp-header` annotations. */
  kind: 'tool-excluded';
  /** The tool's name. */
  tool: string;
  /** Each broken constraint, naming the property. */
  reason: string;
  /** One line for a log. */
  message: string;
}

/**
 * One HTTP client's view of the server's mirrored tool parameters (2026-07-28, SEP-2243), learnt from the
 * `tools/list` results it receives: which `Mcp-Param-*` headers each listed tool's call carries. A tool
 * whose annotations break a constraint is taken out of the result (clients MUST exclude it) and reported;
 * a tool never listed has no entry, so its calls carry no parameter headers.
 */
export class ParamHeaderTable {
  readonly #byTool = new Map<string, readonly ParamHeader[]>();
  readonly #warn: (warning: HttpClientWarning) => void;

  constructor(warn: (warning: HttpClientWarning) => void) {
    this.#warn = warn;
  }

  /**
   * A message received for the `tools/list` request `request` (id `id`): when it is that request's result,
   * each tool's parameters are recorded (a first page starts the table afresh) and invalid tools are taken
   * out. Returns the message to hand to the endpoint.
   */
  listed(request: JsonRpcLike, value: unknown, id: unknown): unknown {
    const response = value as { id?: unknown; result?: { tools?: unknown } } | null;
    const tools = response?.result?.tools;
    if (typeof response !== 'object' || response === null || response.id !== id || !Array.isArray(tools))
      return value;
    if ((request.params as { cursor?: unknown } | undefined)?.cursor === undefined) this.#byTool.clear();
    const kept = tools.filter((tool: { name?: unknown; inputSchema?: unknown } | null) => {
      const name = typeof tool?.name === 'string' ? tool.name : String(tool?.name);
      const { headers, problems } = paramHeadersOf(tool?.inputSchema);
      if (problems.length === 0) {
        if (headers.length > 0) this.#byTool.set(name, headers);
        else this.#byTool.delete(name);
        return true;
      }
      this.#byTool.delete(name);
      const reason = problems.join('; ');
      this.#warn({
        kind: 'tool-excluded',
        tool: name,
        reason,
        message: `tool ${JSON.stringify(name)} left out of tools/list: its ${X_MCP_HEADER} annotations are invalid (${reason})`,
      });
      return false;
    });
    if (kept.length === tools.length) return value;
    return { ...response, result: { ...response.result, tools: kept } };
  }

  /** Adds the `Mcp-Param-*` headers of a call to `tool` with `params.arguments`, when it was listed. */
  mirror(headers: Record<string, string>, tool: string, params: unknown): void {
    const declared = this.#byTool.get(tool);
    if (!declared) return;
    const args = (params as { arguments?: unknown } | undefined)?.arguments;
    for (const header of declared) {
      const value = paramHeaderValue(args, header);
      if (value !== undefined) headers[`mcp-param-${header.name.toLowerCase()}`] = encodeHeaderValue(value);
    }
  }
}

interface JsonRpcLike {
  params?: unknown;
}
