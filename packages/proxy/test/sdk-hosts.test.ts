// The official SDK as hosts of the built proxy (v1 over stdio, v1 over HTTP, v2 pinned to 2026-07-28 over
// HTTP), in front of an upstream built on the SDK v1 McpServer (spawned by the proxy on stdio, legacy):
// progress relayed, cancellation reaching the upstream tool's signal, and the idle and ceiling limits
// ending the call, cancelling the upstream with a reason, and telling the caller which limit fired.
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2HttpTransport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commandLine,
  eventually,
  PROXY,
  type RunningProxy,
  type SeenRecord,
  startProxy,
  textOf,
  V1_FIXTURE,
} from './procs.js';

const IDLE_MS = 600;
const CEILING_MS = 2_000;
const LIMITS = ['--idle-timeout', String(IDLE_MS), '--max-timeout', String(CEILING_MS)];
const UPSTREAM = ['--upstream-stdio', commandLine(process.execPath, V1_FIXTURE)];

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}
interface CallOptions {
  onprogress?: (p: Progress) => void;
  signal?: AbortSignal;
}
interface Host {
  call(args: Record<string, unknown>, options?: CallOptions): Promise<unknown>;
  seen(): Promise<SeenRecord[]>;
  close(): Promise<void>;
}
interface HostKind {
  name: string;
  /** How a cancel reaches the proxy, and so the cause the upstream's reason names. */
  cancelCause: 'CANCELLED' | 'DISCONNECTED';
  connect(proxy: RunningProxy | undefined): Promise<Host>;
  /** Whether this host needs a proxy listening on HTTP (else it spawns the proxy on stdio). */
  http: boolean;
}

function v1Host(client: V1Client): Host {
  return {
    call: (args, options = {}) =>
      client.callTool({ name: 'work', arguments: args }, undefined, { ...options, timeout: 30_000 }),
    seen: async () =>
      JSON.parse(textOf(await client.callTool({ name: 'seen', arguments: {} }))) as SeenRecord[],
    close: () => client.close(),
  };
}

const HOSTS: HostKind[] = [
  {
    name: 'SDK v1 client over stdio',
    cancelCause: 'CANCELLED',
    http: false,
    async connect() {
      const client = new V1Client({ name: 'v1-stdio-host', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [PROXY, ...UPSTREAM, ...LIMITS, '--log', 'quiet'],
          stderr: 'pipe',
        }),
      );
      return v1Host(client);
    },
  },
  {
    name: 'SDK v1 client over HTTP',
    cancelCause: 'CANCELLED',
    http: true,
    async connect(proxy) {
      const client = new V1Client({ name: 'v1-http-host', version: '1.0.0' });
      await client.connect(new V1HttpTransport(new URL(String(proxy?.url))));
      return v1Host(client);
    },
  },
  {
    name: 'SDK v2 client pinned to 2026-07-28 over HTTP',
    // 2026-07-28 HTTP: the client cancels by closing the request's stream [CN24]; the proxy sees it leave.
    cancelCause: 'DISCONNECTED',
    http: true,
    async connect(proxy) {
      const client = new V2Client(
        { name: 'v2-modern-host', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new V2HttpTransport(new URL(String(proxy?.url))));
      return {
        call: (args, options = {}) =>
          client.callTool({ name: 'work', arguments: args }, { ...options, timeout: 30_000 }),
        seen: async () =>
          JSON.parse(textOf(await client.callTool({ name: 'seen', arguments: {} }))) as SeenRecord[],
        close: () => client.close(),
      };
    },
  },
];

describe.each(HOSTS)('$name as a host of the proxy, SDK v1 McpServer upstream', (kind) => {
  let proxy: RunningProxy | undefined;
  let host: Host;
  const record = async (tag: string, end: SeenRecord['end']) =>
    eventually(async () => {
      const found = (await host.seen()).find((r) => r.tag === tag);
      expect(found?.end).toBe(end);
      return found as SeenRecord;
    });

  beforeAll(async () => {
    if (kind.http) proxy = await startProxy([...UPSTREAM, ...LIMITS]);
    host = await kind.connect(proxy);
  });
  afterAll(async () => {
    await host?.close();
    await proxy?.kill();
  });

  it('relays progress in order with total and message, then the result', async () => {
    const seen: Progress[] = [];
    const result = await host.call(
      { steps: 5, intervalMs: 80, tag: 'progress' },
      { onprogress: (p) => seen.push(p) },
    );
    expect(textOf(result)).toBe('progress: done 5 steps');
    expect(seen.length).toBeGreaterThanOrEqual(3); // 80 ms apart: coalescing (50 ms) keeps nearly all
    // The SDK v1 client drops a progress that reaches it in the same read as the result (it retires the
    // token before running notification handlers), so the last one may be 4 or 5 here; the
    // wire order itself (5 before the result) is checked below with a client that reads in order.
    expect(seen.at(-1)).toMatchObject({ total: 5, message: `progress step ${seen.at(-1)?.progress} of 5` });
    expect(seen.at(-1)!.progress).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    // The upstream saw the proxy's own token, and ran to the end.
    expect((await record('progress', 'done')).token).not.toBeNull();
  });

  it('cancellation reaches the upstream tool’s signal, with a reason naming who cancelled', async () => {
    const stop = new AbortController();
    let progressed = 0;
    const call = host.call(
      { steps: 50, intervalMs: 50, tag: 'cancel' },
      {
        signal: stop.signal,
        onprogress: () => {
          if (++progressed === 3) stop.abort('user stop');
        },
      },
    );
    await expect(call).rejects.toBeDefined();
    const seen = await record('cancel', 'aborted');
    expect(seen.reason).toMatch(new RegExp(`^${kind.cancelCause}: `));
    expect(seen.steps).toBeLessThan(10);
  });

  it('the idle limit ends a silent call, cancels the upstream, and tells the caller it was the idle limit', async () => {
    const started = Date.now();
    const error = (await host
      .call({ steps: 2, intervalMs: 3_000, tag: 'idle' })
      .catch((e: unknown) => e)) as {
      code: number;
      data: Record<string, unknown>;
    };
    // The cause says which limit ended it (the 6 s of work would be a result); never before the idle limit.
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_MS - 10);
    expect(error.code).toBe(-32001);
    expect(error.data).toMatchObject({ cause: 'IDLE_TIMEOUT', limitMs: IDLE_MS });
    const seen = await record('idle', 'aborted');
    expect(seen.reason).toMatch(
      new RegExp(`^IDLE_TIMEOUT: idle limit of ${IDLE_MS} ms passed with no progress`),
    );
  });

  it('the ceiling ends a call that keeps talking, cancels the upstream, and says it was the ceiling', async () => {
    let progress = 0;
    const started = Date.now();
    const error = (await host
      .call({ steps: 100, intervalMs: 100, tag: 'ceiling' }, { onprogress: () => void progress++ })
      .catch((e: unknown) => e)) as { code: number; data: Record<string, unknown> };
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(CEILING_MS - 100);
    expect(progress).toBeGreaterThanOrEqual(10); // progress flowed the whole time, yet the ceiling held
    expect(error.code).toBe(-32001);
    expect(error.data).toMatchObject({ cause: 'CEILING', limitMs: CEILING_MS });
    const seen = await record('ceiling', 'aborted');
    expect(seen.reason).toMatch(new RegExp(`^CEILING: hard ceiling of ${CEILING_MS} ms reached`));
  });
});
