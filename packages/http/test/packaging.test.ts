// The built package: both module formats load with the documented names, and the `fetch` entry (client and
// Fetch handler) pulls in no node:* module, so it bundles for browsers, Deno, Bun and workers.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importWithoutZod } from '../../core/test/support/refuse-zod.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const require = createRequire(import.meta.url);

const FETCH_NAMES = [
  'HttpClient',
  'SseParser',
  'createHttpHandler',
  'decodeHeaderValue',
  'encodeHeaderValue',
  'TRANSPORT_FAILURE_CODE',
  'HTTP_ERROR_CODES',
  'LOOPBACK_HOSTS',
];
const NODE_NAMES = ['serveHttp', 'toNodeListener', 'limitConnections'];

/** Every file a built module reaches through relative imports. */
function closure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/(?:from|import|require\()\s*["'](\.[^"']+)["']/g))
    closure(join(dirname(file), match[1]!), seen);
  return seen;
}

const NODE_IMPORT =
  /(?:from|import|require\()\s*["'](?:node:|(?:fs|http|net|stream|crypto|path|url|os|child_process)["'])/;

describe('@mcp-inflight/http as built', () => {
  it('loads as ESM and as CJS with every documented name', async () => {
    const esm = await import(join(dist, 'index.js'));
    const cjs = require(join(dist, 'index.cjs'));
    for (const name of [...FETCH_NAMES, ...NODE_NAMES]) {
      expect(esm[name], `ESM ${name}`).toBeDefined();
      expect(cjs[name], `CJS ${name}`).toBeDefined();
    }
    const fetchEsm = await import(join(dist, 'fetch.js'));
    const fetchCjs = require(join(dist, 'fetch.cjs'));
    for (const name of FETCH_NAMES) {
      expect(fetchEsm[name], `fetch ESM ${name}`).toBeDefined();
      expect(fetchCjs[name], `fetch CJS ${name}`).toBeDefined();
    }
    expect(fetchEsm.serveHttp).toBeUndefined();
  });

  it('the fetch entry reaches no node:* module, built or in source', () => {
    for (const file of [...closure(join(dist, 'fetch.js')), join(dist, 'fetch.cjs')]) {
      expect(NODE_IMPORT.test(readFileSync(file, 'utf8')), file).toBe(false);
    }
    for (const folder of ['client', 'server', 'shared']) {
      for (const name of readdirSync(join(root, 'src', folder))) {
        if (name.endsWith('.test.ts')) continue;
        const text = readFileSync(join(root, 'src', folder, name), 'utf8');
        expect(NODE_IMPORT.test(text), `src/${folder}/${name}`).toBe(false);
      }
    }
  });

  it('keeps core external, so there is one copy of each core class', () => {
    for (const file of closure(join(dist, 'index.js'))) {
      expect(readFileSync(file, 'utf8')).not.toMatch(/class Endpoint\b/);
    }
  });

  // zod is an optional peer of core, loaded only by its /schemas and /tools entries: a browser host
  // that uses only HttpClient, and a server on createHttpHandler, install none.
  it.each(['@mcp-inflight/http', '@mcp-inflight/http/fetch'])('%s loads with zod unresolvable', (entry) => {
    expect(importWithoutZod(entry, root)).toEqual({ status: 0, stderr: '' });
  });
});
