// The codebase's map, checked (docs/architecture.md): imports go one way between packages, no import cycle
// between source files, no source file over 400 lines, no function over 80 lines or with more than 5
// positional parameters, core's src at most 7,000 lines. Prints the figures; exits 1 on a violation.
// `node .config/structure.mjs` (`pnpm structure`); `--json` prints the figures as JSON.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Which packages each package may import, type-only imports included: core <- client <- server <- the rest. */
export const LAYERS = {
  core: [],
  client: ['core'],
  server: ['core', 'client'],
  stdio: ['core', 'client', 'server'],
  http: ['core', 'client', 'server'],
  redis: ['core', 'client', 'server'],
  sdk: ['core', 'client', 'server', 'stdio', 'http'],
  proxy: ['core', 'client', 'server', 'stdio', 'http', 'redis', 'sdk'],
};
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;
const MAX_PARAMETERS = 5;
const MAX_CORE_LINES = 7_000;

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : walk(p);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
const isTest = (f) => /\.test\.ts$/.test(f);
const packages = readdirSync(join(root, 'packages')).filter((p) => existsSync(join(root, 'packages', p, 'src')));
const filesOf = (pkg) => walk(join(root, 'packages', pkg, 'src'));
const rel = (f) => relative(root, f);

function importsOf(file, text) {
  return ts.preProcessFile(text, true, true).importedFiles.map((i) => i.fileName);
}

const report = { layering: [], cycles: [], bigFiles: [], longFunctions: [], manyParameters: [], coreSize: [] };

// Layering: every file of a package's src (tests too), by package name or by a relative path out of it.
for (const pkg of packages) {
  const allowed = new Set([pkg, ...(LAYERS[pkg] ?? [])]);
  for (const file of filesOf(pkg)) {
    for (const spec of importsOf(file, readFileSync(file, 'utf8'))) {
      let target;
      const named = /^@mcp-inflight\/([^/]+)/.exec(spec);
      if (named) target = named[1];
      else if (spec.startsWith('.')) target = /^packages\/([^/]+)\//.exec(rel(resolve(dirname(file), spec)))?.[1];
      if (target !== undefined && packages.includes(target) && !allowed.has(target))
        report.layering.push(`${rel(file)} imports ${spec} (${pkg} may import ${[...allowed].join(', ')})`);
    }
  }
}

// Cycles and sizes: the non-test source files.
const sources = packages.flatMap((pkg) => filesOf(pkg).filter((f) => !isTest(f)));
const edges = new Map();
for (const file of sources) {
  const out = new Set();
  for (const spec of importsOf(file, readFileSync(file, 'utf8'))) {
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    if (existsSync(target)) out.add(target);
  }
  edges.set(file, out);
}
const state = new Map();
const stack = [];
const visit = (f) => {
  state.set(f, 1);
  stack.push(f);
  for (const g of edges.get(f) ?? []) {
    if (state.get(g) === 1) report.cycles.push(stack.slice(stack.indexOf(g)).map(rel).join(' -> '));
    else if (!state.has(g)) visit(g);
  }
  stack.pop();
  state.set(f, 2);
};
for (const f of sources) if (!state.has(f)) visit(f);

const lineCounts = new Map();
for (const file of sources) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  lineCounts.set(file, lines);
  if (lines > MAX_FILE_LINES) report.bigFiles.push(`${rel(file)} (${lines})`);
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visitNode = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.end).line;
      const name = node.name?.getText(sf) ?? (ts.isConstructorDeclaration(node) ? 'constructor' : '(anonymous)');
      const where = `${rel(file)}:${start + 1} ${name}`;
      if (end - start + 1 > MAX_FUNCTION_LINES) report.longFunctions.push(`${where} (${end - start + 1} lines)`);
      const positional = node.parameters.filter((p) => p.name.getText(sf) !== 'this').length;
      if (positional > MAX_PARAMETERS) report.manyParameters.push(`${where} (${positional} parameters)`);
    }
    ts.forEachChild(node, visitNode);
  };
  visitNode(sf);
}

// Entries and the names each exports.
const entries = {};
for (const pkg of packages) {
  const manifest = JSON.parse(readFileSync(join(root, 'packages', pkg, 'package.json'), 'utf8'));
  for (const key of Object.keys(manifest.exports ?? {})) {
    if (key === './package.json') continue;
    const file = join(root, 'packages', pkg, 'src', `${key === '.' ? 'index' : key.slice(2)}.ts`);
    if (!existsSync(file)) continue;
    let names = 0;
    for (const m of readFileSync(file, 'utf8').matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g))
      names += m[1].split(',').filter((s) => s.trim()).length;
    entries[`${manifest.name}${key === '.' ? '' : key.slice(1)}`] = names;
  }
}
const coreLines = filesOf('core')
  .filter((f) => !isTest(f))
  .reduce((n, f) => n + lineCounts.get(f), 0);

if (coreLines > MAX_CORE_LINES) report.coreSize.push(`core's src is ${coreLines} lines, over ${MAX_CORE_LINES}`);

const figures = {
  coreSrcLines: coreLines,
  srcLinesByPackage: Object.fromEntries(
    packages.map((p) => [p, filesOf(p).filter((f) => !isTest(f)).reduce((n, f) => n + lineCounts.get(f), 0)]),
  ),
  entries,
  ...Object.fromEntries(Object.entries(report).map(([k, v]) => [k, v.length])),
};
if (process.argv.includes('--json')) console.log(JSON.stringify({ figures, report }, null, 2));
else {
  console.log(`core src: ${coreLines} lines (non-test); by package: ${JSON.stringify(figures.srcLinesByPackage)}`);
  console.log('entries (names exported):');
  for (const [name, n] of Object.entries(entries)) console.log(`  ${name}: ${n}`);
  for (const [kind, rows] of Object.entries(report)) {
    console.log(`${kind}: ${rows.length}`);
    for (const row of rows) console.log(`  ${row}`);
  }
}
const failed = Object.values(report).some((rows) => rows.length > 0);
process.exit(failed ? 1 : 0);
