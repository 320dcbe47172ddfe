// Runs one benchmark configuration in a fresh `node --expose-gc` process and reads the JSON object on its
// last stdout line. A run that fails (non-zero exit, no JSON, past its time) rejects with the tail of its
// stderr; the child is SIGTERMed (its own cleanup then ends whatever it started), SIGKILLed 3 s later.
import { spawn } from 'node:child_process';

export function runScript(
  script,
  args,
  { timeoutMs = 180_000, nodeArgs = ['--expose-gc'], node = process.execPath } = {},
) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [...nodeArgs, script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-4_000);
    });
    let timedOut = false;
    let killer;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      killer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      const what = `${script.split('/').slice(-2).join('/')} ${args.join(' ')}`;
      if (timedOut) return reject(new Error(`${what}: killed after ${timeoutMs} ms\n${stderr}`));
      if (code !== 0) return reject(new Error(`${what}: exit ${code ?? signal}\n${stderr}`));
      const last = stdout.trim().split('\n').pop();
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`${what}: no JSON on the last stdout line: ${last}\n${stderr}`));
      }
    });
  });
}

/** The median of the numbers (the lower middle of an even count, so it is a value that was measured). */
export function median(values) {
  const sorted = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  return sorted.length === 0 ? undefined : sorted[(sorted.length - 1) >> 1];
}

/** One row of medians: each numeric field's median over the rows; other fields from the first row. */
export function medianRow(rows) {
  if (rows.length === 0) return undefined;
  const out = {};
  for (const key of Object.keys(rows[0])) {
    const values = rows.map((r) => r[key]);
    out[key] = typeof values[0] === 'number' ? median(values) : values[0];
  }
  // A yes/no measured in every run is reported as how many runs said yes.
  for (const key of Object.keys(rows[0]))
    if (typeof rows[0][key] === 'boolean') out[key] = `${rows.filter((r) => r[key]).length}/${rows.length}`;
  return out;
}
