import { type Endpoint, MODERN_REVISION, type RequestOptions, type Revision } from '@mcp-inflight/core';
import { HttpClient } from '@mcp-inflight/http';
import { spawnStdio } from '@mcp-inflight/stdio';
import type { HostOptions } from './args.js';
import type { RequestSender } from './runner.js';

/**
 * Who the host says it is (`clientInfo`).
 *
 * @example
 * ```ts
 * import { HOST_CLIENT_INFO } from './connect.js';
 * HOST_CLIENT_INFO.name; // 'mcp-inflight-example-host'
 * ```
 */
export const HOST_CLIENT_INFO = { name: 'mcp-inflight-example-host', version: '0.1.0' };

/** A connected client of a server or proxy, over either transport. */
export interface HostClient extends RequestSender {
  /** The revision the connection settled on. */
  readonly revision: Revision | undefined;
  /** `stdio: <command>` or the URL. */
  readonly target: string;
  /** The client endpoint under the transport: its event stream feeds the report. */
  readonly endpoint: Endpoint;
  close(): Promise<void>;
}

/**
 * Connects to the server or proxy the options name: spawns it on stdio, or reaches it over HTTP. With
 * `revision: 'auto'` it speaks 2026-07-28 when the server offers it and the newest legacy revision
 * otherwise; a pinned revision is spoken or the connect fails. `idleMs` and `ceilingMs` become the
 * default limits of every call.
 *
 * @example
 * ```ts
 * import { connectHost } from './connect.js';
 * const client = await connectHost({ target: { kind: 'http', url: 'http://127.0.0.1:3000/mcp' }, revision: 'auto', idleMs: 60_000, ceilingMs: 600_000 });
 * console.log(client.revision);
 * await client.close();
 * ```
 */
export async function connectHost(
  options: Pick<HostOptions, 'target' | 'revision' | 'idleMs' | 'ceilingMs'>,
): Promise<HostClient> {
  const { target, idleMs, ceilingMs } = options;
  if (target.kind === 'stdio') {
    const client = spawnStdio(target.commandLine, {
      stderr: 'inherit',
      clientInfo: HOST_CLIENT_INFO,
      idleMs,
      ceilingMs,
    });
    try {
      // Only `auto` may fall back to a legacy revision; a pinned 2026-07-28 fails on a legacy server.
      const settled = await client.connect({
        revision: options.revision === 'auto' ? MODERN_REVISION : options.revision,
        fallback: options.revision === 'auto',
      });
      return {
        revision: settled.revision,
        target: `stdio: ${target.commandLine}`,
        endpoint: client.endpoint,
        request: (method: string, params: Record<string, unknown> | undefined, request: RequestOptions) =>
          client.request(method, params, request),
        close: async () => {
          await client.close();
        },
      };
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  }
  const client = new HttpClient({
    url: target.url,
    revision: options.revision,
    idleMs,
    ceilingMs,
    clientInfo: HOST_CLIENT_INFO,
  });
  await client.connect();
  return {
    get revision() {
      return client.revision;
    },
    target: target.url,
    endpoint: client.endpoint,
    request: (method: string, params: Record<string, unknown> | undefined, request: RequestOptions) =>
      client.request(method, params, request),
    close: () => client.close(),
  };
}
