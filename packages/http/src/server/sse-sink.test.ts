import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { type DisconnectWhy, SseSink } from './sse-sink.js';

// Rule 14 on the SSE write path: the backlog for a client never holds more than the budget plus one
// message; a client that stops reading is cut at once past that, not after a stall window.

function sink(budgetBytes: number) {
  const gone: DisconnectWhy[] = [];
  const clock = new ManualClock();
  const s = new SseSink(
    { onGone: (why) => gone.push(why), onDrained: () => {} },
    { budgetBytes, stallMs: 10_000, clock },
  );
  const message = (bytes: number): boolean => {
    const ok = s.write(new Uint8Array(bytes));
    s.checkBudget();
    return ok;
  };
  return { sink: s, gone, message, clock };
}

const microtask = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe('SseSink', () => {
  it('cuts a client that reads nothing once the backlog would pass the budget plus one message', async () => {
    const { sink: s, gone, message } = sink(4_096);
    let accepted = 0;
    for (let i = 0; i < 1_000 && message(1_000); i++) accepted++;
    // Before the cap, all 1,000 messages (a million bytes) waited for the 10 s stall window.
    expect(accepted).toBe(5); // 5,000 bytes: the budget, plus one message
    expect(s.queuedBytes).toBe(0); // cut: what was queued is freed
    await microtask();
    expect(gone).toEqual(['slow']);
  });

  it('lets one message larger than the budget wait, and small ones after it within the budget', async () => {
    const { gone, message } = sink(4_096);
    expect(message(20_000)).toBe(true); // five times the budget in one message (rule 13)
    for (let i = 0; i < 4; i++) expect(message(1_000)).toBe(true); // 24,000 <= 4,096 + 20,000
    expect(message(1_000)).toBe(false);
    await microtask();
    expect(gone).toEqual(['slow']);
  });

  it('never cuts a client that reads', async () => {
    const { sink: s, gone, message } = sink(4_096);
    const reader = s.body.getReader();
    let read = 0;
    for (let i = 0; i < 200; i++) {
      expect(message(1_000)).toBe(true);
      if (i % 3 === 2)
        while (s.queuedBytes > 0) read += ((await reader.read()).value as Uint8Array).byteLength;
    }
    expect(read).toBeGreaterThan(150_000);
    expect(gone).toEqual([]);
  });
});
