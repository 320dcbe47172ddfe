// The package's entries as a user loads them, built: the root entry (`createProxy`) never loads
// prom-client; the metrics live on `./metrics` and the command line on `./cli` (the bin's).
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const REFUSE = fileURLToPath(new URL('./fixtures/refuse-prom-client.mjs', import.meta.url));
const dist = (file: string): string => fileURLToPath(new URL(`../dist/${file}`, import.meta.url));

/** Loads a built file in a child process where prom-client cannot be resolved; prints its export names. */
function loadWithoutPromClient(file: string, how: 'import' | 'require') {
  const load =
    how === 'import'
      ? `const m = await import(${JSON.stringify(pathToFileURL(dist(file)).href)});`
      : `const m = (await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(dist(file))});`;
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      pathToFileURL(REFUSE).href,
      '--input-type=module',
      '-e',
      `${load} console.log(Object.keys(m).sort().join(','));`,
    ],
    { encoding: 'utf8' },
  );
  return { status: child.status, names: child.stdout.trim().split(','), stderr: child.stderr };
}

describe('entries', () => {
  for (const how of ['import', 'require'] as const) {
    const [root, metrics, cli] =
      how === 'import' ? ['index.js', 'metrics.js', 'cli.js'] : ['index.cjs', 'metrics.cjs', 'cli.cjs'];

    it(`${how}: the root entry loads with prom-client refused, and has createProxy but no metrics or CLI`, () => {
      const { status, names, stderr } = loadWithoutPromClient(root, how);
      expect(stderr).toBe('');
      expect(status).toBe(0);
      expect(names).toEqual(expect.arrayContaining(['createProxy', 'CallRelay', 'TaskTable', 'listenStdio']));
      expect(names).not.toContain('ProxyMetrics');
      expect(names).not.toContain('runCli');
    });

    it(`${how}: ./metrics and ./cli do load prom-client (so the refusal above is real)`, () => {
      for (const file of [metrics, cli]) {
        const { status, stderr } = loadWithoutPromClient(file, how);
        expect(status).not.toBe(0);
        expect(stderr).toContain('prom-client refused by the test');
      }
    });
  }
});
