import { HttpClient } from '@mcp-inflight/http';
import type { ServerCounts } from './summary.js';

/**
 * Reads the example server's `status` counts through the proxy, waiting (up to `waitMs`) until no `work`
 * call is still running: a cancel reaches the server a moment after the host hears of the early end.
 * Returns `undefined` when the counts cannot be read.
 *
 * @example
 * ```ts
 * import { readServerStatus } from './status.js';
 * const counts = await readServerStatus('http://127.0.0.1:3000/mcp');
 * console.log(counts); // { running: 0, completed: 1, cancelled: 3 }
 * ```
 */
export async function readServerStatus(url: string, waitMs = 3_000): Promise<ServerCounts | undefined> {
  const client = new HttpClient({
    url,
    clientInfo: { name: 'mcp-inflight-demo', version: '0.1.0' },
    idleMs: 5_000,
    ceilingMs: 5_000,
  });
  const until = Date.now() + waitMs;
  try {
    for (;;) {
      const result = (await client.request('tools/call', { name: 'status', arguments: {} }, {})) as {
        content?: Array<{ text?: string }>;
      };
      const counts = JSON.parse(result.content?.[0]?.text ?? 'null') as ServerCounts | null;
      if (!counts || counts.running === 0 || Date.now() >= until) return counts ?? undefined;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch {
    return undefined;
  } finally {
    await client.close();
  }
}
