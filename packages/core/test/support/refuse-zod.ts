import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '../..');

// Registered off-thread with node:module's register(): any resolution that lands in zod throws.
const REFUSE_ZOD_HOOK = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/[\\\\/]zod[\\\\/]/.test(resolved.url)) throw new Error('zod loaded from ' + context.parentURL);
  return resolved;
}`;

/** Imports `entry` from `cwd` in a node child whose every resolution of zod throws. */
export function importWithoutZod(entry: string, cwd = coreDir): { status: number | null; stderr: string } {
  const script = `
    import { register } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(REFUSE_ZOD_HOOK)}));
    const mod = await import(${JSON.stringify(entry)});
    if (Object.keys(mod).length === 0) process.exit(3);`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: child.status, stderr: child.stderr };
}
