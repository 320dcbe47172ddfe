// Release check: what would be published is what is checked. Packs every public package (packages/*) with
// `pnpm pack` into a temp dir (workspace:^ and catalog: ranges rewritten as publishing would), then, on the
// tarballs and never on the workspace:
//   - contents: LICENSE, README.md, CHANGELOG.md, package.json and dist/ are in; no src/, tests or build
//     configs; no workspace:/catalog: range left in package.json, internal ranges point at a packed version;
//   - README links: every relative link (and image) in README.md names a file the tarball ships, since on the
//     registry a relative link resolves inside the package;
//   - publint --strict <tarball>;
//   - attw <tarball> --profile node16 (the profile `lint:pkg` uses);
//   - the bundle-size budgets of bench/size.mjs (its own table, via --packages), bundled from the extracted
//     tarballs laid out as node_modules/@mcp-inflight/*, third-party dependencies linked from the workspace's
//     install; an esbuild metafile proves no workspace file of ours got into the bundle.
// Needs `pnpm build` first. Prints a table per step and exits 1 on any failure. `pnpm release:check` runs it.
// Usage: node bench/release-check.mjs [--keep] (--keep leaves the temp dir with the tarballs in place).
import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const bin = (name) => join(root, 'node_modules/.bin', name);
const keep = process.argv.includes('--keep');
const started = performance.now();

// `pnpm release:check` runs under pnpm, which names itself in npm_execpath (pnpm 12 is a native executable,
// older ones a script for node); run directly, the pinned pnpm via npx.
const execpath = process.env.npm_execpath ?? '';
const pnpm = !/(^|[/\\])pnpm[^/\\]*$/.test(execpath)
  ? ['npx', '-y', 'pnpm@12.4.2']
  : /\.[cm]?js$/.test(execpath)
    ? [process.execPath, execpath]
    : [execpath];

const publicPackages = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => ({ short: d.name, dir: join(root, 'packages', d.name) }))
  .map((p) => ({ ...p, manifest: JSON.parse(readFileSync(join(p.dir, 'package.json'), 'utf8')) }))
  .filter((p) => !p.manifest.private);

const tmp = mkdtempSync(join(tmpdir(), 'mcp-inflight-release-'));
const tarballs = join(tmp, 'tarballs');
const scope = join(tmp, 'node_modules/@mcp-inflight');
mkdirSync(tarballs, { recursive: true });
mkdirSync(scope, { recursive: true });

const failures = [];
const fail = (what, detail) => failures.push({ what, detail: detail.trim() });
const output = (error) => `${error.stdout ?? ''}${error.stderr ?? ''}` || String(error);

// 1. Pack, one at a time (pnpm pack runs no lifecycle build here: dist/ comes from `pnpm build`).
for (const p of publicPackages) {
  const before = new Set(readdirSync(tarballs));
  try {
    await run(pnpm[0], [...pnpm.slice(1), 'pack', '--pack-destination', tarballs], { cwd: p.dir });
  } catch (error) {
    fail(`${p.manifest.name}: pnpm pack`, output(error));
    continue;
  }
  const made = readdirSync(tarballs).filter((f) => !before.has(f) && f.endsWith('.tgz'));
  if (made.length !== 1) {
    fail(`${p.manifest.name}: pnpm pack`, `expected one new tarball, found ${made.join(', ') || 'none'}`);
    continue;
  }
  p.tarball = join(tarballs, made[0]);
  p.extracted = join(scope, p.short);
  mkdirSync(p.extracted);
  await run('tar', ['-xzf', p.tarball, '-C', p.extracted, '--strip-components=1']);
  p.files = (await run('tar', ['-tzf', p.tarball])).stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  p.packed = JSON.parse(readFileSync(join(p.extracted, 'package.json'), 'utf8'));
}
const packed = publicPackages.filter((p) => p.tarball);
const packedVersions = new Map(packed.map((p) => [p.packed.name, p.packed.version]));

// 2. Contents of each tarball.
const required = ['package.json', 'LICENSE', 'README.md', 'CHANGELOG.md'];
const forbidden = [
  /^src\//,
  /(^|\/)tests?\//,
  /\.(test|spec)\.[cm]?[jt]sx?$/,
  /^tsconfig.*\.json$/,
  /^tsup\.config\./,
  /^examples\//,
];
const depFields = ['dependencies', 'peerDependencies', 'optionalDependencies'];
for (const p of packed) {
  const problems = [];
  for (const f of required) if (!p.files.includes(f)) problems.push(`missing ${f}`);
  if (!p.files.some((f) => f.startsWith('dist/'))) problems.push('missing dist/');
  for (const f of p.files) if (forbidden.some((re) => re.test(f))) problems.push(`ships ${f}`);
  for (const field of depFields) {
    for (const [dep, range] of Object.entries(p.packed[field] ?? {})) {
      if (/^(workspace|catalog|link|file):/.test(range)) problems.push(`${field}.${dep} is ${range}`);
      const version = packedVersions.get(dep);
      if (version !== undefined && range !== `^${version}` && range !== version)
        problems.push(`${field}.${dep} is ${range}, packed ${dep} is ${version}`);
    }
  }
  p.contents = problems.length === 0;
  if (!p.contents) fail(`${p.packed.name}: contents`, problems.join('\n'));
}

// 2b. README links. Code blocks are left out (a snippet may hold brackets and parentheses); absolute URLs
// (http:, https:, mailto:) and in-page anchors are not files.
const LINK = /!?\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)|^\s*\[[^\]]+\]:\s*(\S+)/gm;
for (const p of packed) {
  if (!p.files.includes('README.md')) continue;
  const text = readFileSync(join(p.extracted, 'README.md'), 'utf8').replace(
    /^(```|~~~)[^\n]*\n[\s\S]*?^\1/gm,
    '',
  );
  const dead = [];
  for (const match of text.matchAll(LINK)) {
    const target = match[1] ?? match[2];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    const path = posix.normalize(decodeURI(target.split('#')[0])).replace(/\/$/, '');
    const ships = p.files.includes(path) || p.files.some((f) => f.startsWith(`${path}/`));
    if (path.startsWith('../') || !ships) dead.push(target);
  }
  p.links = dead.length === 0;
  if (!p.links) fail(`${p.packed.name}: README links`, `not in the tarball: ${dead.join(', ')}`);
}

// 3. publint and attw on the tarballs, two at a time (CI has two cores).
async function lint(p) {
  const cwd = tmp; // nowhere near the workspace
  try {
    await run(bin('publint'), ['--strict', p.tarball], { cwd });
    p.publint = true;
  } catch (error) {
    p.publint = false;
    fail(`${p.packed.name}: publint --strict`, output(error));
  }
  try {
    await run(bin('attw'), [p.tarball, '--profile', 'node16', '--format', 'table-flipped'], { cwd });
    p.attw = true;
  } catch (error) {
    p.attw = false;
    fail(`${p.packed.name}: attw --profile node16`, output(error));
  }
}
const queue = [...packed];
await Promise.all(
  [0, 1].map(async () => {
    while (queue.length > 0) await lint(queue.shift());
  }),
);

// 4. Bundle sizes from the extracted tarballs. Third-party dependencies and peers (zod, for core's /tools
// and /schemas) come from the workspace's install
// (resolved to their real paths), our own packages only from the tarballs.
const linked = new Set();
for (const p of packed) {
  for (const dep of [
    ...Object.keys(p.packed.dependencies ?? {}),
    ...Object.keys(p.packed.peerDependencies ?? {}),
  ]) {
    if (packedVersions.has(dep) || linked.has(dep)) continue;
    const target = join(tmp, 'node_modules', dep);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(realpathSync(join(p.dir, 'node_modules', dep)), target, 'dir');
    linked.add(dep);
  }
}
let sizeOk = false;
let sizeTable = '';
if (packedVersions.has('@mcp-inflight/core') && packedVersions.has('@mcp-inflight/http')) {
  try {
    const { stdout } = await run(process.execPath, [join(here, 'size.mjs'), '--packages', scope]);
    sizeTable = stdout;
    sizeOk = true;
  } catch (error) {
    sizeTable = error.stdout ?? '';
    fail('bench/size.mjs --packages <extracted tarballs>', error.stderr || String(error));
  }
  // The browser entry pulls in core through http's dependency: both must come from the tarballs.
  const probe = await build({
    stdin: { contents: `export * from '@mcp-inflight/http/fetch';`, resolveDir: tmp, loader: 'js' },
    absWorkingDir: tmp,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(probe.metafile.inputs)
    .filter((input) => input !== '<stdin>')
    .map((input) => realpathSync(join(tmp, input)));
  const ours = inputs.filter((input) => input.startsWith(join(root, 'packages')));
  const fromTarball = (name) =>
    inputs.some((input) => input.startsWith(join(realpathSync(scope), name, 'dist')));
  if (ours.length > 0 || !fromTarball('core') || !fromTarball('http')) {
    sizeOk = false;
    fail(
      'bundle source',
      `not bundled from the tarballs:\n${inputs.map((f) => relative(root, f)).join('\n')}`,
    );
  }
} else {
  fail('bench/size.mjs', 'core or http was not packed');
}

// 5. Report.
const mark = (ok) => (ok === undefined ? '-' : ok ? 'ok' : 'FAIL');
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(`release check: pnpm pack of ${publicPackages.length} public packages into ${tarballs}\n`);
console.log(
  `${'package'.padEnd(22)} ${'version'.padEnd(8)} ${'tarball'.padStart(9)} ${'unpacked'.padStart(9)} ${'files'.padStart(5)}  ${'contents'.padEnd(8)}  ${'links'.padEnd(5)}  ${'publint'.padEnd(7)}  attw`,
);
for (const p of publicPackages) {
  const size = p.tarball ? kb(statSync(p.tarball).size) : 'not packed';
  const unpacked = p.files
    ? kb(p.files.reduce((sum, f) => sum + statSync(join(p.extracted, f)).size, 0))
    : '-';
  console.log(
    `${p.manifest.name.padEnd(22)} ${(p.packed?.version ?? p.manifest.version).padEnd(8)} ${size.padStart(9)} ${unpacked.padStart(9)} ${String(p.files?.length ?? '-').padStart(5)}  ${mark(p.contents).padEnd(8)}  ${mark(p.links).padEnd(5)}  ${mark(p.publint).padEnd(7)}  ${mark(p.attw)}`,
  );
}
console.log(`\n${sizeTable.trimEnd()}`);
console.log(`bundle budgets on the tarballs: ${mark(sizeOk)}`);
console.log(`\n${((performance.now() - started) / 1000).toFixed(1)} s`);

if (!keep) rmSync(tmp, { recursive: true, force: true });
if (failures.length > 0) {
  for (const f of failures) console.error(`\nrelease-check: ${f.what}\n${f.detail}`);
  console.error(`\nrelease-check: ${failures.length} failure(s)`);
  process.exit(1);
}
