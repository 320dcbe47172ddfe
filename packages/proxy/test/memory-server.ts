// An upstream `work` tool on a core server endpoint, timed by a ManualClock: it reports progress every
// `intervalMs` for `steps` steps and records how each call ended, so tests can see what reached it.
import { type Endpoint, InflightError, JsonRpcError, serveLifecycle } from '@mcp-inflight/core';
import type { ManualClock } from '@mcp-inflight/core/testing';

export interface WorkRecord {
  tag: string;
  /** How the call ended at the upstream: `done`, or the abort reason's code and message. */
  end?: { kind: 'done' } | { kind: 'aborted'; code: string; message: string };
  /** The progress token the upstream saw (the proxy's, never the host's). */
  token: unknown;
  /** The `_meta` the upstream received. */
  meta: unknown;
}

export function serveWork(endpoint: Endpoint, clock: ManualClock, records: WorkRecord[]): void {
  serveLifecycle(endpoint, {
    serverInfo: { name: 'memory-upstream', version: '1.0.0' },
    capabilities: { tools: {} },
  });
  endpoint.setRequestHandler('tools/call', (params, ctx) => {
    if (params?.name !== 'work') throw new JsonRpcError(-32602, `Unknown tool: ${String(params?.name)}`);
    const args = (params.arguments ?? {}) as { steps: number; intervalMs: number; tag?: string };
    const record: WorkRecord = { tag: args.tag ?? '', token: ctx.progressToken, meta: params._meta };
    records.push(record);
    return new Promise((resolve, reject) => {
      let step = 0;
      const tick = () => {
        step++;
        ctx.progress(step, args.steps, `${record.tag} step ${step}`);
        if (step >= args.steps) {
          record.end = { kind: 'done' };
          resolve({ content: [{ type: 'text', text: `${record.tag} done` }] });
        } else timer = clock.setTimer(tick, args.intervalMs);
      };
      let timer = clock.setTimer(tick, args.intervalMs);
      ctx.signal.addEventListener('abort', () => {
        timer.clear();
        const reason = InflightError.from(ctx.signal.reason);
        record.end = { kind: 'aborted', code: reason.code, message: reason.message };
        reject(reason);
      });
    });
  });
}
