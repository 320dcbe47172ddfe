import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { fixturePath } from './helpers.js';

// 50,000 mutated lines into serveStdio in a real child process (rule 10, rule 8). The mutations are
// drawn from a seeded generator: a failure names its seed, and FUZZ_SEED=<seed> replays it exactly
// (FUZZ_SEED=random draws a fresh one). An independent oracle frames the same bytes to count what must
// be a parse error.

const LINES = 50_000;
const MAX_LINE_BYTES = 2_048;
const DEFAULT_SEED = 20_261_130;
/** Codes the spec names for bad input, plus the unsupported-version error of 2026-07-28 [M19]. */
const BAD_INPUT_CODES = new Set([-32700, -32600, -32601, -32602, -32022]);

/** mulberry32: small, fast, and the same sequence on every platform for one seed. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}
type Random = ReturnType<typeof generator>;

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
};

/** Well-formed messages of every kind, to mutate. */
function seedMessage(r: Random, n: number): unknown {
  const id = r.pick([n, `s${n}`, 0, '', -1]);
  switch (r.int(11)) {
    case 0:
      return { jsonrpc: '2.0', id, method: 'ping' };
    case 1:
      return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { n } } };
    case 2:
      return {
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: {
          protocolVersion: r.pick(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']),
          capabilities: {},
          clientInfo: { name: 'fuzz', version: '1' },
        },
      };
    case 3:
      return { jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: MODERN_META } };
    case 4:
      return {
        jsonrpc: '2.0',
        id,
        method: 'resources/read',
        params: { uri: 'x:', _meta: { progressToken: id } },
      };
    case 5:
      return { jsonrpc: '2.0', id, method: 'no/such/method', params: {} };
    case 6:
      return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'fuzz' } };
    case 7:
      return {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: id, progress: n, total: n + 1, message: 'm' },
      };
    case 8:
      return { jsonrpc: '2.0', id, result: {} };
    case 9:
      return { jsonrpc: '2.0', id, error: { code: -32000, message: 'x' } };
    default:
      return [seedMessage(r, n), seedMessage(r, n + 1)];
  }
}

const ODD_VALUES: unknown[] = [
  null,
  true,
  0,
  -0.5,
  1e308,
  2 ** 53 + 1,
  '',
  '\u2000',
  'x'.repeat(3_000),
  [],
  {},
  [[[[[]]]]],
  { method: 'ping' },
];
const ODD_TEXT = [
  '"',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '\\',
  '\r',
  '\t',
  ' ',
  '\u2000',
  '\u0000',
  'é',
  '\ud83d',
  'null',
  '1e999',
];

/** One field of an object changed, removed or added, or the whole message replaced. */
function mutateValue(r: Random, value: unknown): unknown {
  if (Array.isArray(value)) {
    if (value.length > 0 && r.next() < 0.7) {
      const copy = [...value];
      copy[r.int(copy.length)] = mutateValue(r, copy[r.int(copy.length)]);
      return copy;
    }
    return r.pick([[], [1], [value], r.pick(ODD_VALUES)]);
  }
  if (typeof value !== 'object' || value === null || r.next() < 0.05) return r.pick(ODD_VALUES);
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const key = r.pick([...keys, 'id', 'method', 'params', 'result', 'error', 'jsonrpc', '_meta']);
  const roll = r.next();
  if (roll < 0.25) delete copy[key];
  else if (roll < 0.55 && typeof copy[key] === 'object' && copy[key] !== null)
    copy[key] = mutateValue(r, copy[key]);
  else copy[key] = r.pick(ODD_VALUES);
  return copy;
}

/** Bytes changed in the text: inserted, deleted, repeated, cut short. */
function mutateText(r: Random, text: string): string {
  const at = r.int(text.length + 1);
  switch (r.int(6)) {
    case 0:
      return text.slice(0, at) + r.pick(ODD_TEXT) + text.slice(at);
    case 1:
      return text.slice(0, at) + text.slice(at + 1 + r.int(8));
    case 2:
      return text.slice(0, at); // truncated
    case 3:
      return text + text.slice(at); // trailing garbage
    case 4:
      return text.repeat(2 + r.int(MAX_LINE_BYTES / Math.max(16, text.length))); // sometimes overlong
    default:
      return `${r.pick([' ', '\t', '\r', ''])}${text}${r.pick([' ', '\r', '\t\r', ''])}`;
  }
}

/** The fuzz input as bytes: whole lines, some with raw bytes that are not UTF-8, plus blank lines. */
function fuzzInput(seed: number): Buffer {
  const r = generator(seed);
  const parts: Buffer[] = [];
  for (let n = 0; n < LINES; n++) {
    let value = seedMessage(r, n);
    const roll = r.next();
    if (roll < 0.05) {
      // Blank lines, and lines that only look blank: U+2000 and U+00A0 are not JSON whitespace.
      parts.push(
        Buffer.from(r.pick(['', ' ', '\t', '\r', ' \t\r', ' \u2000', '\u2000', '\t\u00a0']), 'utf8'),
      );
      parts.push(Buffer.from('\n'));
      continue;
    }
    if (roll < 0.5) value = mutateValue(r, value);
    let text = JSON.stringify(value) ?? 'undefined';
    if (r.next() < 0.5) text = mutateText(r, text);
    let bytes = Buffer.from(text.replace(/\n/g, ''), 'utf8');
    if (r.next() < 0.03) {
      // Bytes that are not UTF-8 at all, somewhere in the line.
      const cut = r.int(bytes.length + 1);
      bytes = Buffer.concat([
        bytes.subarray(0, cut),
        Buffer.from([r.pick([0xff, 0xc3, 0x80, 0xed])]),
        bytes.subarray(cut),
      ]);
    }
    parts.push(bytes, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/** What the stream must produce, framed independently: lines that must be answered with -32700, and ids. */
function oracle(input: Buffer): { parseErrors: number; ids: Set<unknown>; lines: number } {
  let parseErrors = 0;
  let lines = 0;
  const ids = new Set<unknown>();
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(collect);
    if (typeof value === 'object' && value !== null) {
      const { id, params } = value as { id?: unknown; params?: { progressToken?: unknown; _meta?: unknown } };
      ids.add(id);
      const meta =
        params && typeof params === 'object' ? (params._meta as { progressToken?: unknown }) : undefined;
      if (meta && typeof meta === 'object') ids.add(meta.progressToken);
    }
  };
  let start = 0;
  for (let nl = input.indexOf(10); nl !== -1; start = nl + 1, nl = input.indexOf(10, start)) {
    let line = input.subarray(start, nl);
    if (line.length > MAX_LINE_BYTES) {
      parseErrors++;
      lines++;
      continue;
    }
    if (line.length > 0 && line[line.length - 1] === 13) line = line.subarray(0, -1);
    if (line.every((b) => b === 0x20 || b === 0x09 || b === 0x0d)) continue; // blank: only JSON whitespace
    lines++;
    try {
      collect(JSON.parse(line.toString('utf8')));
    } catch {
      parseErrors++;
    }
  }
  return { parseErrors, ids, lines };
}

type Reply = {
  jsonrpc?: unknown;
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
};

/** A JSON-RPC response as the spec shapes it; a string saying what is wrong, or undefined. */
function wrongWith(reply: Reply, ids: Set<unknown>): string | undefined {
  if (reply.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if ('result' in reply === 'error' in reply) return 'not exactly one of result and error';
  const id = reply.id;
  if (!(id === null || typeof id === 'string' || Number.isInteger(id)))
    return 'id is not a string, integer or null';
  if (id !== null && !ids.has(id)) return 'answers an id that was never sent';
  if (reply.error) {
    const { code, message } = reply.error;
    if (typeof message !== 'string') return 'error without a message';
    if (!BAD_INPUT_CODES.has(code as number)) return `error code ${String(code)} is not one the spec names`;
    if (id === null && code !== -32700 && code !== -32600)
      return 'a null id on an error that is not -32700/-32600';
  }
  return undefined;
}

let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
});

describe('serveStdio under fuzz', () => {
  it(`answers ${LINES} mutated lines with well-formed errors, keeps serving, and leaks nothing`, async () => {
    const requested = process.env.FUZZ_SEED;
    const seed =
      requested === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(requested ?? DEFAULT_SEED);
    try {
      const input = fuzzInput(seed);
      const expected = oracle(input);
      const server = spawn(process.execPath, [fixturePath('fuzz-server.mjs')], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, MAX_LINE_BYTES: String(MAX_LINE_BYTES) },
      });
      child = server;
      let stderr = '';
      server.stderr!.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
      });
      const out: string[] = [];
      let tail = '';
      server.stdout!.setEncoding('utf8').on('data', (text: string) => {
        const lines = (tail + text).split('\n');
        tail = lines.pop()!;
        out.push(...lines);
      });
      const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
      const finalId = `fuzz-final-${seed}`;
      server.stdin!.write(input);
      server.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: finalId, method: 'ping' })}\n`);
      // The endpoint keeps serving: the valid request after the fuzz is answered.
      await expect
        .poll(() => out.some((l) => l.includes(finalId)), { timeout: 20_000, interval: 20 })
        .toBe(true);
      // Then nothing is left in any table (every request above ended at once).
      const statsId = `fuzz-stats-${seed}`;
      let stats: Record<string, Record<string, number>> | undefined;
      await expect
        .poll(
          async () => {
            server.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: statsId, method: 'fuzz/stats' })}\n`);
            await new Promise((resolve) => setTimeout(resolve, 20));
            const line = out.findLast((l) => l.includes(statsId));
            stats = line ? (JSON.parse(line) as { result: typeof stats }).result : undefined;
            return stats?.endpoint?.inboundInFlight;
          },
          { timeout: 20_000, interval: 50 },
        )
        .toBe(0);
      expect(stats!.endpoint).toMatchObject({ inboundInFlight: 0, outboundInFlight: 0 });
      expect(stats!.relay!.openRoutes).toBe(0);
      expect(stats!.connection).toMatchObject({ queuedRequests: 0, queuedBytes: 0, unsentBytes: 0 });
      expect(stats!.connection!.parseErrors! + stats!.connection!.overlongLines!).toBe(expected.parseErrors);

      server.stdin!.end();
      expect(await exited).toBe(0);
      expect(stderr).toBe('');

      const replies = out.filter((l) => !l.includes(finalId) && !l.includes(statsId));
      const problems: string[] = [];
      let parseErrorReplies = 0;
      const codes = new Map<string, number>();
      let answers = 0;
      for (const line of replies) {
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          problems.push(`not JSON: ${line.slice(0, 200)}`);
          continue;
        }
        // A 2025-03-26 session (a fuzzed initialize can open one) answers a batch with an array [J9].
        for (const reply of (Array.isArray(value) ? value : [value]) as (Reply & {
          method?: unknown;
          params?: { progressToken?: unknown };
        })[]) {
          if (reply.method === 'notifications/progress') {
            if (!expected.ids.has(reply.params?.progressToken))
              problems.push(`progress for a token never sent: ${line}`);
            continue;
          }
          answers++;
          const wrong = wrongWith(reply, expected.ids);
          if (wrong) problems.push(`${wrong}: ${JSON.stringify(reply).slice(0, 300)}`);
          if (reply.error?.code === -32700) parseErrorReplies++;
          const code = reply.error ? String(reply.error.code) : 'result';
          codes.set(code, (codes.get(code) ?? 0) + 1);
        }
      }
      console.info(
        `fuzz seed ${seed}: ${LINES} lines, ${answers} answers (${[...codes].map(([c, n]) => `${c}: ${n}`).join(', ')}), ${expected.parseErrors} parse errors`,
      );
      expect(problems.slice(0, 10)).toEqual([]);
      expect(parseErrorReplies).toBe(expected.parseErrors);
      expect(answers).toBeLessThanOrEqual(expected.lines * 2); // nothing answered twice over
    } catch (error) {
      throw new Error(`fuzz failed with seed ${seed}; replay with FUZZ_SEED=${seed}: ${String(error)}`, {
        cause: error,
      });
    }
  }, 60_000);
});
