import { JSONRPC_CODE_BY_CAUSE } from '@mcp-inflight/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import type { StdioClient } from '../src/index.js';
import { fixturePath, RawPeer, spawnFixture, textOf } from './helpers.js';

// A request that cannot be serialized (too deep, a cycle, a BigInt) fails its caller at once with its own
// cause, UNSERIALIZABLE (-32019), writes nothing and leaves no entry; through a proxy, the host gets that
// error instead of waiting out the proxy's idle limit (issue 21, item 3). Real child processes.

const open: StdioClient[] = [];
const peers: RawPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) peer.kill();
  await Promise.all(open.splice(0).map((client) => client.close()));
});

/** A tools/call line whose arguments nest `depth` objects: written by hand, as JSON.stringify cannot. */
function deepCallLine(id: number, depth: number): string {
  const args = `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`;
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":${args}}}\n`;
}

/** Whether this runtime's JSON.stringify throws on objects nested `depth` deep. */
function stringifyThrows(depth: number): boolean {
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) deep = { a: deep };
  try {
    JSON.stringify(deep);
    return false;
  } catch {
    return true;
  }
}

describe('a request that cannot be serialized, over stdio', () => {
  it('rejects the caller with UNSERIALIZABLE, writes nothing, keeps no entry; the connection keeps serving', async () => {
    const client = spawnFixture('inflight-server.mjs');
    open.push(client);
    await client.connect({ revision: '2025-06-18' });
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
    const written = client.connection.stats.messages;
    for (const args of [{ n: 1n }, cycle, throwing]) {
      const error = await client
        .request('tools/call', { name: 'echo', arguments: args as Record<string, unknown> })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'InflightError', code: 'UNSERIALIZABLE', origin: 'local' });
      expect((error as { toJsonRpc(): { code: number } }).toJsonRpc().code).toBe(
        JSONRPC_CODE_BY_CAUSE.UNSERIALIZABLE,
      );
    }
    expect(client.connection.stats.messages).toBe(written); // no line, not even an error response
    expect(client.endpoint.stats).toMatchObject({ outboundInFlight: 0, outboundTokens: 0 });
    const echoed = await client.request('tools/call', { name: 'echo', arguments: { b: 2 } });
    expect(JSON.parse(textOf(echoed))).toEqual({ b: 2 });
  });

  // JSON from a host can only fail to re-serialize by its depth, and only where the runtime's JSON.stringify
  // has a depth limit (V8 before Node 26; Node 26 and Deno stringify any depth): the proxy child runs on this
  // same node, so the test asks this process which answer is right.
  it("through a proxy, the host's request nested 100,000 deep is answered with -32019 at once where the runtime cannot stringify it (else relayed), and the upstream keeps serving", async () => {
    const host = new RawPeer(process.execPath, [fixturePath('proxy.mjs')]);
    peers.push(host);
    host.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await host.response(1, 10_000);
    host.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    host.write(deepCallLine(2, 100_000));
    // Far below the proxy's idle limit (60 s), where the answer used to come.
    const answer = await host.response(2, 10_000);
    if (stringifyThrows(100_000)) {
      expect(answer.error).toMatchObject({
        code: JSONRPC_CODE_BY_CAUSE.UNSERIALIZABLE,
        data: { cause: 'UNSERIALIZABLE', method: 'tools/call' },
      });
    } else {
      expect(answer.error).toBeUndefined();
      expect(textOf(answer.result).startsWith('{"a":{"a":')).toBe(true);
    }
    host.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'echo', arguments: { c: 3 } },
    });
    const echoed = await host.response(3, 10_000);
    expect(JSON.parse(textOf(echoed.result))).toEqual({ c: 3 });
    // The upstream was never sent an error response in the proxy's name (its bogus -32601 would show here).
    expect(host.messages.filter((m) => m.id === 2)).toHaveLength(1);
  });
});
