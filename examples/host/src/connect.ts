import type { McpClient } from '@mcp-inflight/client';
import { HttpClient } from '@mcp-inflight/http';
import { spawnStdio } from '@mcp-inflight/stdio';
import type { HostOptions } from './args.js';

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

/**
 * How the host names what it talks to: `stdio: <command>` or the URL.
 *
 * @example
 * ```ts
 * import { targetLabel } from './connect.js';
 * targetLabel({ kind: 'http', url: 'http://127.0.0.1:3000/mcp' }); // 'http://127.0.0.1:3000/mcp'
 * ```
 */
export function targetLabel(target: HostOptions['target']): string {
  return target.kind === 'stdio' ? `stdio: ${target.commandLine}` : target.url;
}

/**
 * Connects to the server or proxy the options name, through the library's one client shape: spawns it
 * on stdio, or reaches it over HTTP; the code after this is the same for both. With `revision: 'auto'`
 * it speaks 2026-07-28 when the server offers it and the newest legacy revision otherwise; a pinned
 * revision is spoken or the connect fails. `idleMs` and `ceilingMs` become the default limits of every
 * call.
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
): Promise<McpClient> {
  const { target, idleMs, ceilingMs } = options;
  const client: McpClient =
    target.kind === 'stdio'
      ? spawnStdio(target.commandLine, { stderr: 'inherit', clientInfo: HOST_CLIENT_INFO, idleMs, ceilingMs })
      : new HttpClient({ url: target.url, idleMs, ceilingMs, clientInfo: HOST_CLIENT_INFO });
  try {
    await client.connect({ revision: options.revision });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return client;
}
