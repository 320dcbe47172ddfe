// The proxy relays list changes: it keeps its own listen stream to a 2026-07-28 upstream (examples/server
// with --conformance, whose test_trigger_tool_change changes its tool list) and publishes what arrives
// to every host: a 2026-07-28 host on its listen stream (tagged with the host stream's own subscription
// id), a legacy host on its GET stream.
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient } from '@mcp-inflight/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandLine, type RunningProxy, SERVER, startProxy } from './procs.js';

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !check(); i++) await sleep(5);
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('examples/proxy relays list changes from its upstream to listening hosts', () => {
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await startProxy(['--upstream-stdio', commandLine(process.execPath, SERVER, '--conformance')]);
  });
  afterAll(async () => {
    await proxy?.kill();
  });

  it('to a 2026-07-28 host on its listen stream and to a legacy host unasked', async () => {
    const modern = new HttpClient({ url: proxy.url });
    const legacy = new HttpClient({ url: proxy.url, revision: '2025-11-25' });
    const seen: { modern: unknown[]; legacy: unknown[] } = { modern: [], legacy: [] };
    modern.onNotification('notifications/tools/list_changed', (params) => seen.modern.push(params));
    legacy.onNotification('notifications/tools/list_changed', (params) => seen.legacy.push(params ?? {}));
    try {
      const discovered = await modern.connect();
      expect(discovered.capabilities).toMatchObject({ tools: { listChanged: true } });
      await legacy.connect();
      expect(modern.revision).toBe('2026-07-28');
      await sleep(300); // both streams open (the host's listen, the legacy GET; the proxy's own upstream)
      await legacy.callTool('test_trigger_tool_change', {});
      await until(() => seen.modern.length === 1 && seen.legacy.length === 1, 'both hosts to hear of it');
      const meta = (seen.modern[0] as { _meta: Record<string, unknown> })._meta;
      expect(meta['io.modelcontextprotocol/subscriptionId']).toBeDefined();
      expect(seen.legacy[0]).toEqual({}); // no subscription id on a legacy session
      const tools = (await modern.request('tools/list')) as { tools: { name: string }[] };
      expect(tools.tools.map((t) => t.name)).toContain('test_changing_tool');
    } finally {
      await modern.close();
      await legacy.close();
    }
  });
});
