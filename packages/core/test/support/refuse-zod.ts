import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '../..');

// Any resolution that lands in zod throws. Where node:module has registerHooks (Node 22.15+, 23.5+) the hook
// runs in-thread through it; register() (off-thread) only on older Node, as Node 26 deprecates it (DEP0205)
// and prints a warning the tests would read as stderr.
const REFUSE_ZOD_SYNC = `(specifier, context, next) => {
  const resolved = next(specifier, context);
  if (/[\\\\/]zod[\\\\/]/.test(resolved.url)) throw new Error('zod loaded from ' + context.parentURL);
  return resolved;
}`;
const REFUSE_ZOD_HOOK = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/[\\\\/]zod[\\\\/]/.test(resolved.url)) throw new Error('zod loaded from ' + context.parentURL);
  return resolved;
}`;

/** Imports `entry` from `cwd` in a node child whose every resolution of zod throws. */
export function importWithoutZod(entry: string, cwd = coreDir): { status: number | null; stderr: string } {
  const script = `
    import * as nodeModule from 'node:module';
    if (typeof nodeModule.registerHooks === 'function') nodeModule.registerHooks({ resolve: ${REFUSE_ZOD_SYNC} });
    else nodeModule.register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(REFUSE_ZOD_HOOK)}));
    const mod = await import(${JSON.stringify(entry)});
    if (Object.keys(mod).length === 0) process.exit(3);`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: child.status, stderr: child.stderr };
}
