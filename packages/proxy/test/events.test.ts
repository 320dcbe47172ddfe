// The proxy's log lines read as English whatever the counts.
import { expect, it } from 'vitest';
import { emptyStats, formatEvent, jsonLine } from '../src/events.js';

it('pluralizes the totals line', () => {
  const one = {
    ...emptyStats(),
    calls: 1,
    completed: 0,
    errors: 1,
    upstreamClosed: 1,
    progressIn: 1,
    progressOut: 1,
  };
  expect(formatEvent({ type: 'stats', stats: one })).toBe(
    'proxy: 1 call relayed: 0 completed, 1 upstream error, 1 upstream closed, cancelled upstream: none; 1 progress in, 1 out',
  );
  const two = { ...emptyStats(), calls: 2, completed: 2, cancelled: { SHUTDOWN: 1 } };
  expect(formatEvent({ type: 'stats', stats: two })).toBe(
    'proxy: 2 calls relayed: 2 completed, 0 upstream errors, 0 upstream closed, cancelled upstream: SHUTDOWN 1; 0 progress in, 0 out',
  );
});

it("an upstream's warning about a tool it lists is one escaped line, a warning in the JSON log", () => {
  const tool = 'evil\u2028proxy: forged\u202e';
  const message = `tool ${JSON.stringify(tool)} left out of tools/list: its x-mcp-header annotations are invalid (bad)`;
  const event = { type: 'upstream-warning', tool, message } as const;
  expect(formatEvent(event)).toBe(
    'proxy: upstream: tool "evil\\u2028proxy: forged\\u202e" left out of tools/list: its x-mcp-header annotations are invalid (bad)',
  );
  expect(JSON.parse(jsonLine(event, new Date(0)))).toMatchObject({
    level: 'warn',
    type: 'upstream-warning',
    tool,
  });
});
