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
