import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * "A transport only moves bytes and carries out what core decided": core hands each write a `SendIntent`,
 * so no transport module needs core's message classifier to decide what a message is (issue 18, item 5),
 * and the HTTP client builds nothing that reads `this` before super() returns (item 7). Read from source.
 */
const packages = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The HTTP server still reads a POST body's shape (one request, a batch, only notifications) to pick its
 * status and its stream, as Streamable HTTP frames it [PT2 H20]; moving that into core is not done yet.
 * No other transport module may join this list.
 */
const SERVER_BODY_FRAMING = new Set(['http/src/server/legacy.ts', 'http/src/server/modern.ts']);

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Whether a module imports `classify` from core (any entry), alone or among other names. */
function importsClassify(source: string): boolean {
  const imports = source.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'@mcp-inflight\/core[^']*'/g);
  return [...imports].some((m) =>
    m[1]!.split(',').some((name) => name.trim().split(/\s+as\s+/)[0] === 'classify'),
  );
}

describe('transport modules act on core intent', () => {
  const files = [...sourcesOf(join(packages, 'stdio/src')), ...sourcesOf(join(packages, 'http/src'))];

  it('finds the transport sources', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(importsClassify("import { classify, errorResponse } from '@mcp-inflight/core/adapter';")).toBe(
      true,
    );
    expect(importsClassify("import { classifyX } from '@mcp-inflight/core/adapter';")).toBe(false);
  });

  it('no stdio or http module imports the message classifier', () => {
    const offenders = files
      .filter((file) => importsClassify(readFileSync(file, 'utf8')))
      .map((file) => relative(packages, file))
      .filter((file) => !SERVER_BODY_FRAMING.has(file));
    expect(offenders).toEqual([]);
  });

  it("admission is core's: no stdio or http module reads a cancel to decide who runs", () => {
    // stdio's request gate once read every line (cancels, ids) to queue requests; core's Admission does it.
    const offenders = files
      .filter((file) => /\bisCancelledParams\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(packages, file));
    expect(offenders).toEqual([]);
  });

  it("HttpClient's constructor reads no `this` before super(), and its channel knows nothing of the client", () => {
    const client = readFileSync(join(packages, 'http/src/client/http-client.ts'), 'utf8');
    const ctor = client.slice(client.indexOf('constructor('));
    const beforeSuper = ctor.slice(0, ctor.indexOf('super(')).replace(/\/\/.*$/gm, '');
    expect(beforeSuper).not.toMatch(/\bthis\b/);
    const channel = readFileSync(join(packages, 'http/src/client/http-channel.ts'), 'utf8');
    expect(channel).not.toMatch(/http-client|HttpClient\b/);
  });
});
