// A request that cannot be serialized fails its caller at once with its own cause (UNSERIALIZABLE, -32019),
// not as UPSTREAM_CLOSED {"network":true}; nothing is POSTed and no entry stays (issue 21, item 3). Real
// loopback sockets.
import { JSONRPC_CODE_BY_CAUSE } from '@mcp-inflight/core/adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type RunningHttpServer, serveHttp } from '../src/index.js';
import { recordingFetch } from './fixtures/recording-fetch.js';
import { observe, workServer } from './fixtures/work-server.js';

let server: RunningHttpServer;
beforeAll(async () => {
  server = await serveHttp(workServer(observe()), { port: 0 });
});
afterAll(() => server.close());

describe('a request that cannot be serialized, over HTTP', () => {
  it.each(['2026-07-28', '2025-06-18'] as const)(
    '%s: rejects with UNSERIALIZABLE, POSTs nothing, keeps no entry; the client keeps working',
    async (revision) => {
      const { fetch, wire } = recordingFetch();
      const client = new HttpClient({ url: server.url, revision, fetch });
      await client.connect();
      const posted = wire.length;
      const cycle: Record<string, unknown> = {};
      cycle.self = cycle;
      // Fails on every runtime; nesting 100,000 deep used to stand here, but Node 26 and Deno stringify any depth.
      const throwing = {
        v: {
          toJSON: () => {
            throw new RangeError('not serializable');
          },
        },
      };
      for (const args of [{ n: 1n }, cycle, throwing]) {
        const error = await client
          .request('tools/call', { name: 'work', arguments: args as Record<string, unknown> })
          .catch((e: unknown) => e);
        expect(error).toMatchObject({ name: 'InflightError', code: 'UNSERIALIZABLE', origin: 'local' });
        expect((error as { toJsonRpc(): { code: number } }).toJsonRpc().code).toBe(
          JSONRPC_CODE_BY_CAUSE.UNSERIALIZABLE,
        );
      }
      expect(wire.length).toBe(posted);
      expect(client.endpoint.stats).toMatchObject({ outboundInFlight: 0, outboundTokens: 0 });
      const result = await client.request('tools/call', {
        name: 'work',
        arguments: { steps: 1, intervalMs: 1 },
      });
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'done 1' }] });
      await client.close();
    },
  );
});
