import { InflightError, JsonRpcError } from '@mcp-inflight/core';
import { inflightErrorFromJsonRpc } from '@mcp-inflight/core/adapter';
import { ManualClock } from '@mcp-inflight/core/testing';
import { describe, expect, it } from 'vitest';
import { parseHostArgs } from '../src/args.js';
import { Display } from '../src/display.js';
import { describeOutcome, outcomeOfError, outcomeOfResult } from '../src/outcome.js';
import { bar, type CallView, renderEndLine, renderLine } from '../src/render.js';
import { exitCodeFor } from '../src/report.js';

const ESC = '\x1b';

describe('renderLine', () => {
  const running: CallView = {
    label: 'a',
    tool: 'work',
    progress: 3,
    total: 10,
    message: 'step 3',
    updates: 3,
    startedAt: 0,
  };

  it('draws a bar, the numbers, the time and the message; plain ASCII off a terminal', () => {
    expect(renderLine(running, { now: 900, tty: false })).toBe(
      'a  [######..............]  3/10  30%  0.9 s  step 3',
    );
  });

  it('uses block glyphs on a terminal and never exceeds the width', () => {
    const line = renderLine({ ...running, message: 'x'.repeat(200) }, { now: 900, tty: true, width: 60 });
    expect(line).toContain('\u2588');
    expect(line.length).toBeLessThanOrEqual(60);
  });

  it('shows an unknown total as a moving marker and the raw value', () => {
    const line = renderLine(
      { label: 'b', tool: 'work', progress: 7, updates: 7, startedAt: 0 },
      { now: 100, tty: false },
    );
    expect(line).toMatch(/^b {2}\[\.*#\.*\] {2}7 {2}0\.1 s$/);
    expect(bar(undefined, 5, false, 2)).toBe('..#..');
  });

  it('draws an empty bar while a call waits for its first update (no marker that reads as 5%)', () => {
    const waiting: CallView = { label: 'w', tool: 'work', updates: 0, startedAt: 0 };
    const line = renderLine(waiting, { now: 100, tty: true });
    expect(line).toContain(`[${'\u2591'.repeat(20)}]  waiting`);
    expect(line).not.toContain('\u2588');
    expect(renderLine(waiting, { now: 100, tty: false })).toBe(`w  [${'.'.repeat(20)}]  waiting  0.1 s`);
  });

  it('says why a call ended, coloured on a terminal only', () => {
    const ended: CallView = {
      ...running,
      endedAt: 800,
      outcome: {
        kind: 'idle-timeout',
        by: 'server',
        cause: 'IDLE_TIMEOUT',
        detail: 'idle limit of 800 ms passed with no progress',
      },
    };
    expect(renderLine(ended, { now: 5_000, tty: false, width: 200 })).toContain(
      'idle limit (upstream): idle limit of 800 ms passed',
    );
    expect(renderLine(ended, { now: 5_000, tty: false })).not.toContain(ESC);
    expect(renderLine(ended, { now: 5_000, tty: true, width: 200 })).toContain(`${ESC}[33m`);
  });
});

describe('outcomes', () => {
  it('shows people sentences, not the raw JSON an adapter appends to a message', () => {
    const lost = outcomeOfError(
      new InflightError('UPSTREAM_CLOSED', 'the request failed: fetch failed ({"network":true})'),
    );
    expect(lost.detail).toBe('the request failed: fetch failed');
    const relayed = outcomeOfError(
      inflightErrorFromJsonRpc({
        code: -32000,
        message: 'the request failed: fetch failed ({"network":true})',
        data: { cause: 'UPSTREAM_CLOSED' },
      }),
    );
    expect(describeOutcome(relayed)).toBe(
      "the server's upstream went away: the request failed: fetch failed",
    );
    // Parentheses that are words stay.
    expect(outcomeOfError(new Error('spawn failed (exit code 1)')).detail).toBe('spawn failed (exit code 1)');
  });

  it('tells a result from a tool error', () => {
    expect(outcomeOfResult({ content: [{ type: 'text', text: 'done 8 steps' }] })).toEqual({
      kind: 'completed',
      by: 'server',
      detail: 'done 8 steps',
    });
    expect(outcomeOfResult({ isError: true, content: [{ type: 'text', text: 'boom' }] }).kind).toBe(
      'tool-error',
    );
  });

  it('reads a proxy’s limit (a remote InflightError), and never calls a user’s cancel a timeout', () => {
    const fromProxy = {
      code: -32001,
      message: 'hard ceiling of 3000 ms reached',
      data: { cause: 'CEILING', limitMs: 3000 },
    };
    const remote = outcomeOfError(inflightErrorFromJsonRpc(fromProxy));
    expect(remote).toMatchObject({ kind: 'ceiling', by: 'server', cause: 'CEILING', code: -32001 });
    const mine = outcomeOfError(InflightError.cancelled('you pressed Ctrl-C'));
    expect(mine).toMatchObject({ kind: 'cancelled', by: 'you' });
    expect(describeOutcome(mine)).toBe('cancelled by you');
    expect(outcomeOfError(InflightError.idle(500))).toMatchObject({ kind: 'idle-timeout', by: 'host' });
    expect(outcomeOfError(new JsonRpcError(-32602, 'Unknown tool: x'))).toMatchObject({
      kind: 'error',
      code: -32602,
    });
    expect(
      describeOutcome(
        outcomeOfError(
          inflightErrorFromJsonRpc({ code: -32000, message: 'gone', data: { cause: 'UPSTREAM_CLOSED' } }),
        ),
      ),
    ).toBe("the server's upstream went away: gone");
  });

  it('writes one end line per call with duration and update count', () => {
    const line = renderEndLine({
      label: 'cancelled',
      tool: 'work',
      updates: 11,
      startedAt: 0,
      endedAt: 1_210,
      outcome: { kind: 'cancelled', by: 'you', cause: 'CANCELLED', detail: 'x' },
    });
    expect(line).toBe('cancelled: cancelled by you after 1.2 s, 11 progress updates');
  });

  it('exits 0 only when every call completed, 130 after a user cancel', () => {
    const view = (
      kind: 'completed' | 'cancelled' | 'ceiling',
      by: 'you' | 'server' = 'server',
    ): CallView => ({
      label: kind,
      tool: 'work',
      updates: 0,
      startedAt: 0,
      outcome: { kind, by, detail: '' },
    });
    expect(exitCodeFor([view('completed')])).toBe(0);
    expect(exitCodeFor([view('completed'), view('cancelled', 'you')])).toBe(130);
    expect(exitCodeFor([view('completed'), view('ceiling')])).toBe(1);
  });
});

describe('Display', () => {
  const sink = (isTTY: boolean) => {
    const chunks: string[] = [];
    return { chunks, out: { isTTY, columns: 100, write: (t: string) => void chunks.push(t) } };
  };

  it('off a terminal: plain lines, at most one progress line per call per 500 ms, one end line each', () => {
    const clock = new ManualClock();
    const view: CallView = { label: 'a', tool: 'work', updates: 0, startedAt: 0 };
    const { chunks, out } = sink(false);
    const display = new Display([view], out, clock);
    for (let i = 1; i <= 20; i++) {
      clock.advance(100);
      Object.assign(view, { progress: i, total: 20, updates: i });
      display.update(view);
    }
    Object.assign(view, { endedAt: clock.now(), outcome: { kind: 'completed', by: 'server', detail: 'ok' } });
    display.end(view);
    display.finish();
    const text = chunks.join('');
    expect(text).not.toContain(ESC);
    expect(text.trim().split('\n')).toHaveLength(5); // at 100, 600, 1100, 1600 ms, then the end line
    expect(text).toContain('a: completed after 2.0 s, 20 progress updates: ok');
  });

  it('on a terminal: redraws in place, throttled, and prints the end lines at the finish', () => {
    const clock = new ManualClock();
    const views: CallView[] = [
      { label: 'a', tool: 'work', updates: 0, startedAt: 0 },
      { label: 'b', tool: 'work', updates: 0, startedAt: 0 },
    ];
    const { chunks, out } = sink(true);
    const display = new Display(views, out, clock);
    const first = chunks.length;
    for (let i = 1; i <= 10; i++) {
      Object.assign(views[0] as CallView, { progress: i, total: 10, updates: i });
      display.update(views[0] as CallView);
    }
    expect(chunks.length).toBe(first); // nothing until the redraw timer
    clock.advance(80);
    expect(chunks.length).toBe(first + 1);
    expect(chunks.at(-1)).toContain(`${ESC}[2F`); // back up over both bars
    display.note('hello');
    for (const v of views)
      Object.assign(v, { endedAt: 100, outcome: { kind: 'completed', by: 'server', detail: 'ok' } });
    display.finish();
    expect(chunks.join('')).toContain('hello\n');
    expect(chunks.slice(-2)).toEqual([
      'a: completed after 0.1 s, 10 progress updates: ok\n',
      'b: completed after 0.1 s, 0 progress updates: ok\n',
    ]);
  });
});

describe('parseHostArgs', () => {
  it('reads several calls, each with its own args, label and scripted cancel', () => {
    const options = parseHostArgs([
      '--http',
      'http://127.0.0.1:9/mcp',
      '--tool',
      'work',
      '--args',
      '{"steps":2}',
      '--label',
      'first',
      '--tool',
      'status',
      '--cancel-after',
      '100',
      '--revision',
      '2026-07-28',
      '--idle-timeout',
      '500',
    ]);
    expect(options.target).toEqual({ kind: 'http', url: 'http://127.0.0.1:9/mcp' });
    expect(options.calls).toEqual([
      { tool: 'work', args: { steps: 2 }, label: 'first' },
      { tool: 'status', args: {}, cancelAfterMs: 100 },
    ]);
    expect(options).toMatchObject({ revision: '2026-07-28', idleMs: 500, ceilingMs: 600_000 });
  });

  it('says what is wrong', () => {
    expect(() => parseHostArgs(['--tool', 'x'])).toThrow('give --stdio');
    expect(() => parseHostArgs(['--stdio', 'x', '--args', '{}'])).toThrow('--args belongs after a --tool');
    expect(() => parseHostArgs(['--stdio', 'x', '--tool', 'a', '--args', '[1]'])).toThrow(
      'must be a JSON object',
    );
    expect(() => parseHostArgs(['--stdio', 'x', '--tool', 'a', '--revision', '2099-01-01'])).toThrow(
      'unknown revision',
    );
    expect(() => parseHostArgs(['--stdio', 'x'])).toThrow('give --tool NAME');
    expect(() => parseHostArgs(['--http', 'ftp://x', '--tool', 'a'])).toThrow('http(s) URL');
  });
});
