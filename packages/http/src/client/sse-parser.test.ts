import { describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from './sse-parser.js';

function parse(chunks: string[]): { events: SseEvent[]; parser: SseParser } {
  const events: SseEvent[] = [];
  const parser = new SseParser((event) => events.push(event));
  for (const chunk of chunks) parser.push(chunk);
  return { events, parser };
}

describe('SseParser', () => {
  it('reads events with ids, keeping the last id for Last-Event-ID', () => {
    const { events, parser } = parse(['id: 3-1\ndata: {"a":1}\n\n', 'id: 3-2\ndata: {"a":2}\n\n']);
    expect(events.map((e) => [e.data, e.lastEventId, e.type])).toEqual([
      ['{"a":1}', '3-1', 'message'],
      ['{"a":2}', '3-2', 'message'],
    ]);
    expect(parser.lastEventId).toBe('3-2');
  });

  it('handles LF, CRLF and CR line ends, even split between chunks', () => {
    const { events } = parse(['data: a\r', '\n\r', '\ndata: b\r\rdata: c\n', '\n']);
    expect(events.map((e) => e.data)).toEqual(['a', 'b', 'c']);
  });

  it('reads the same events however the stream is cut, with every kind of line end mixed', () => {
    const ends = ['\n', '\r', '\r\n'];
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    let text = '';
    const expected: string[] = [];
    for (let e = 0; e < 200; e++) {
      const data = `{"n":${e},"pad":"${'x'.repeat(next(300))}"}`;
      expected.push(data);
      const end = () => ends[next(3)]!;
      const last = end(); // the blank line ends as its data line does: `\r` then `\n` would be one CRLF
      text += `: keep-alive${end()}id: ${e}${end()}data: ${data}${last}${last}`;
    }
    const whole = parse([text]).events.map((event) => event.data);
    expect(whole).toEqual(expected);
    for (let round = 0; round < 20; round++) {
      const chunks: string[] = [];
      for (let at = 0; at < text.length; ) {
        const size = 1 + next(64);
        chunks.push(text.slice(at, at + size));
        at += size;
      }
      expect(parse(chunks).events.map((event) => event.data)).toEqual(expected);
    }
  });

  it('reads bytes cut anywhere, inside any multi-byte character, as a streaming TextDecoder would', () => {
    const text = '\ufeffdata: {"t":"é✓😀\ufeff"}\n\ndata: \ufeffx\n\n';
    const bytes = new TextEncoder().encode(text);
    const expected: string[] = [];
    const oracle = new SseParser((event) => expected.push(event.data));
    const decoder = new TextDecoder();
    oracle.push(decoder.decode(bytes, { stream: true }));
    oracle.push(decoder.decode());
    expect(expected).toEqual(['{"t":"é✓😀\ufeff"}', '\ufeffx']); // the leading BOM alone is dropped
    for (let a = 0; a <= bytes.length; a++) {
      for (let b = a; b <= bytes.length; b++) {
        const events: string[] = [];
        const parser = new SseParser((event) => events.push(event.data));
        parser.pushBytes(bytes.subarray(0, a));
        parser.pushBytes(bytes.subarray(a, b));
        parser.pushBytes(bytes.subarray(b));
        parser.endBytes();
        expect(events).toEqual(expected);
      }
    }
  });

  it('decodes a character cut short at the end of the bytes, or by bad bytes, as U+FFFD', () => {
    const events: string[] = [];
    const parser = new SseParser((event) => events.push(event.data));
    const check = new TextEncoder().encode('✓');
    parser.pushBytes(new TextEncoder().encode('data: a'));
    parser.pushBytes(check.subarray(0, 2)); // the character never finishes: the next line comes instead
    parser.pushBytes(new Uint8Array([0xff, 0x0a, 0x0a]));
    parser.pushBytes(new TextEncoder().encode('data: b'));
    parser.pushBytes(check.subarray(0, 1));
    parser.endBytes();
    parser.push('\n\n');
    expect(events).toEqual(['a\ufffd\ufffd', 'b\ufffd']);
  });

  it('splits a message anywhere across chunks', () => {
    const text = 'id: 1-9\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n';
    const { events } = parse(text.split(''));
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.data)).toEqual({ jsonrpc: '2.0', method: 'notifications/progress' });
  });

  it('ignores comments (keep-alives) and joins multi-line data', () => {
    const { events } = parse([': keep-alive\n\n:\n', 'data: one\ndata: two\n\n']);
    expect(events.map((e) => e.data)).toEqual(['one\ntwo']);
  });

  it('dispatches a priming event (id, retry, empty data) with empty data and keeps retry', () => {
    const { events, parser } = parse(['id: 7-0\nretry: 250\ndata:\n\n']);
    expect(events).toEqual([{ type: 'message', data: '', lastEventId: '7-0' }]);
    expect(parser.retryMs).toBe(250);
  });

  it('moves lastEventId on an id-only event without dispatching it', () => {
    const { events, parser } = parse(['id: 5-5\n\n']);
    expect(events).toEqual([]);
    expect(parser.lastEventId).toBe('5-5');
  });

  it('keeps event types and drops an unterminated last event', () => {
    const { events } = parse(['event: ping\ndata: x\n\n', 'data: never ends']);
    expect(events.map((e) => [e.type, e.data])).toEqual([['ping', 'x']]);
  });

  it('ignores a bad retry and an id with NUL', () => {
    const { parser } = parse(['retry: soon\nid: a\u0000b\ndata: x\n\n']);
    expect(parser.retryMs).toBeUndefined();
    expect(parser.lastEventId).toBe('');
  });
});

describe('SseParser limits', () => {
  it('skips an event over maxEventChars, reports it once, and reads the next one', () => {
    const sizes: number[] = [];
    const events: string[] = [];
    const parser = new SseParser((e) => events.push(e.data), {
      maxEventChars: 10,
      onOversize: (size, limit) => sizes.push(size, limit),
    });
    parser.push('id: 1\ndata: 12345\ndata: 67890\ndata: more\n');
    parser.push('data: still the same event\n\n');
    parser.push('id: 2\ndata: ok\n\n');
    expect(events).toEqual(['ok']);
    expect(sizes).toEqual([12, 10]);
    expect(parser.lastEventId).toBe('2');
  });

  it('never buffers a line past the limit, even one that never ends', () => {
    const sizes: number[] = [];
    const parser = new SseParser(() => {}, { maxEventChars: 100, onOversize: (size) => sizes.push(size) });
    for (let i = 0; i < 1_000; i++) parser.push('x'.repeat(60));
    expect(sizes).toEqual([120]);
    const events: string[] = [];
    const next = new SseParser((e) => events.push(e.data), { maxEventChars: 100 });
    next.push(`data: ${'y'.repeat(200)}`);
    next.push('y\r');
    next.push('\n\r\ndata: after\r\n\r\n');
    expect(events).toEqual(['after']);
  });

  it('lets onOversize stop the stream by throwing', () => {
    const parser = new SseParser(() => {}, {
      maxEventChars: 4,
      onOversize: () => {
        throw new Error('too large');
      },
    });
    expect(() => parser.push('data: 12345\n')).toThrow('too large');
  });

  it('scans each chunk once: a large event in small chunks takes linear time', () => {
    const events: string[] = [];
    const parser = new SseParser((e) => events.push(e.data));
    const chunk = 'z'.repeat(1_024);
    const started = performance.now();
    parser.push('data: ');
    for (let i = 0; i < 2_048; i++) parser.push(chunk); // 2 MiB in 1 KiB chunks
    parser.push('\n\n');
    expect(events[0]).toHaveLength(2 * 1024 * 1024);
    // Re-scanning the buffer on every chunk took about 12 s here; one pass takes milliseconds.
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
