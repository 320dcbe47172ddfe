// A host on the official SDK (v1 here; a v2 `Client` works the same) calling a tool under a real deadline.

import { callWithDeadline, InflightError } from '@mcp-inflight/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export async function main(serverScript: string, stop: AbortSignal): Promise<string> {
  const client = new Client({ name: 'host', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverScript] }));
  try {
    const result = await callWithDeadline(
      client,
      { method: 'tools/call', params: { name: 'work', arguments: { steps: 10, intervalMs: 100 } } },
      {
        idleMs: 2_000, // no progress for 2 s: cancelled upstream as IDLE_TIMEOUT
        ceilingMs: 30_000, // 30 s in all, however much progress: cancelled upstream as CEILING
        signal: stop, // the user's stop: cancelled upstream as CANCELLED, never as a timeout
        onprogress: ({ progress, total }) => console.log(`${progress}/${total}`),
      },
    );
    return JSON.stringify(result.content);
  } catch (error) {
    if (error instanceof InflightError) return error.code; // CANCELLED | IDLE_TIMEOUT | CEILING | DISCONNECTED | …
    throw error;
  } finally {
    await client.close();
  }
}
