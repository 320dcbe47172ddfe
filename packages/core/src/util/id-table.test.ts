import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdTable } from './id-table.js';

// Keys as they come: small integers (slot collisions), large and negative ones, -0, fractions, strings
// that look like numbers, NaN.
const key = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 70 }) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(-0, 0.5, 2 ** 40, 2 ** 40 + 8, Number.NaN, '3', 'a', '') },
);
const op = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }),
  fc.record({ kind: fc.constant('delete' as const), key }),
  fc.record({ kind: fc.constant('get' as const), key }),
);

describe('IdTable', () => {
  it('answers get, has, delete, size and list as a Map does, for any keys in any order', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const table = new IdTable<number>();
        const map = new Map<unknown, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            table.set(o.key, o.value);
            map.set(o.key, o.value);
          } else if (o.kind === 'delete') expect(table.delete(o.key)).toBe(map.delete(o.key));
          expect(table.get(o.key)).toBe(map.get(o.key));
          expect(table.has(o.key)).toBe(map.has(o.key));
          expect(table.size).toBe(map.size);
        }
        expect(table.list().sort()).toEqual([...map.values()].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a long-lived call while thousands of later ids pass its slot', () => {
    const table = new IdTable<string>();
    table.set(0, 'long');
    for (let id = 1; id < 5_000; id++) {
      table.set(id, `call ${id}`);
      expect(table.get(id)).toBe(`call ${id}`);
      expect(table.delete(id)).toBe(true);
    }
    expect(table.get(0)).toBe('long');
    expect(table.size).toBe(1);
  });

  it('serves again after a burst of 5,000 in flight has emptied it', () => {
    const table = new IdTable<number>();
    for (let round = 0; round < 2; round++) {
      for (let id = 0; id < 5_000; id++) table.set(id, id + round);
      for (let id = 0; id < 5_000; id++) expect(table.delete(id)).toBe(true);
      expect(table.size).toBe(0);
      table.set(7, 70);
      expect(table.get(7)).toBe(70);
      expect(table.list()).toEqual([70]);
      table.delete(7);
    }
  });

  it('holds a thousand calls in flight at once, then none', () => {
    const table = new IdTable<number>();
    for (let id = 0; id < 1_000; id++) table.set(id * 3, id);
    expect(table.size).toBe(1_000);
    for (let id = 0; id < 1_000; id++) expect(table.get(id * 3)).toBe(id);
    for (let id = 0; id < 1_000; id++) expect(table.delete(id * 3)).toBe(true);
    expect(table.size).toBe(0);
    expect(table.list()).toEqual([]);
  });

  it('carries nothing through young collections under churn after a full one (a Map carries megabytes)', () => {
    // V8's own account, in a child: bytes left in the young generation after each scavenge, with 32
    // entries in flight and one added and one removed per step, once a full collection has run.
    const script = `
      const IdTable = ${IdTable.toString()};
      const run = (table) => {
        const v8 = require('node:v8');
        for (let i = 0; i < 200000; i++) { table.set(i, { i, pad: [i, i] }); table.delete(i - 32); }
        globalThis.gc();
        const profiler = new v8.GCProfiler();
        profiler.start();
        for (let i = 200000; i < 1200000; i++) { table.set(i, { i, pad: [i, i] }); table.delete(i - 32); }
        const scavenges = profiler.stop().statistics.filter((g) => g.gcType === 'Scavenge');
        const young = (g) => g.afterGC.heapSpaceStatistics.find((s) => s.spaceName === 'new_space').spaceUsedSize;
        return Math.round(scavenges.reduce((sum, g) => sum + young(g), 0) / scavenges.length);
      };
      console.log(JSON.stringify({ table: run(new IdTable()), map: run(new Map()) }));`;
    const out = execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
    const carried = JSON.parse(out) as { table: number; map: number };
    expect(carried.table).toBeLessThan(64 * 1024);
    // The check sees the Map's carry on the engine Node 20 ships (V8 11), where it was measured.
    if (process.versions.v8.startsWith('11.')) expect(carried.map).toBeGreaterThan(512 * 1024);
  });
});
