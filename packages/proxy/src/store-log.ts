// The task directory's store (`--redis`) in the proxy's log: its outage, its end, a kept write given up.
// Written beside the proxy's own events, in the same two formats (text, `--log json`).
import type { StoreEvent } from '@mcp-inflight/redis';
import { escapeForLog } from './events.js';

/**
 * One log line for a store event: the text line, or with `json` the proxy's JSON line (`time`, `level`,
 * `msg`, then the event's fields), as `jsonLine` of events.ts writes the proxy's own events.
 */
export function storeLogLine(event: StoreEvent, format: 'text' | 'json', at: Date = new Date()): string {
  const msg = messageOf(event);
  if (format === 'text') return `proxy: ${escapeForLog(msg)}`;
  const level = event.type === 'store-down' ? 'warn' : event.type === 'store-up' ? 'info' : 'error';
  return JSON.stringify({ time: at.toISOString(), level, msg, ...event });
}

function messageOf(event: StoreEvent): string {
  switch (event.type) {
    case 'store-down':
      // The error text is the Redis client's; escaped anyway, so no line of the log can be forged.
      return `task store away (${JSON.stringify(event.message)}): task claims and answers are kept and written once it is back`;
    case 'store-up':
      return `task store back after ${event.downMs} ms; ${event.writtenAfter} writes kept meanwhile are in it`;
    case 'store-write-dropped':
      return `task store: the write kept for task ${JSON.stringify(event.taskId)} was given up: its TTL passed before the store came back`;
  }
}
