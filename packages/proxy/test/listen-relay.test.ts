// The proxy relays list changes: it keeps its own listen stream to a 2026-07-28 upstream (the test
// fixture tool-server.mjs, whose change_tools changes its tool list) and publishes what arrives
// to every host: a 2026-07-28 host on its listen stream (tagged with the host stream's own subscription
// id), a legacy host on its GET stream.
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient } from '@mcp-inflight/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandLine, type RunningProxy, SERVER, startProxy } from './procs.js';

/** Waits until `check` passes; after `tries` polls of 5 ms it returns (`tries` given) or throws. */
async function until(check: () => boolean, what: string, tries?: number): Promise<void> {
  for (let i = 0; i < (tries ?? 600) && !check(); i++) await sleep(5);
  if (!check() && tries === undefined) throw new Error(`timed out waiting for ${what}`);
}

describe('examples/proxy relays list changes from its upstream to listening hosts', () => {
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await startProxy(['--upstream-stdio', commandLine(process.execPath, SERVER, '--list-changed')]);
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
      // The streams (the host's listen, the legacy GET, the proxy's own to its upstream) open in their own
      // time: change the list until both hosts have heard of a change, however long that takes.
      let changes = 0;
      while (seen.modern.length === 0 || seen.legacy.length === 0) {
        await legacy.callTool('change_tools', {});
        changes++;
        await until(() => seen.modern.length > 0 && seen.legacy.length > 0, 'both hosts to hear of it', 100);
      }
      const meta = (seen.modern[0] as { _meta: Record<string, unknown> })._meta;
      expect(meta['io.modelcontextprotocol/subscriptionId']).toBeDefined();
      expect(seen.legacy[0]).toEqual({}); // no subscription id on a legacy session
      const tools = (await modern.request('tools/list')) as { tools: { name: string }[] };
      // An odd number of changes leaves the tool added.
      expect(tools.tools.map((t) => t.name).includes('changing_tool')).toBe(changes % 2 === 1);
    } finally {
      await modern.close();
      await legacy.close();
    }
  });
});
