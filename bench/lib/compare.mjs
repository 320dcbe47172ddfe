// The rows people compare across Nodes (A: progress in one process; F2: plain calls), measured on the Node
// the bench runs on and again, interleaved, on the one `--compare-node` names (pnpm bench: Node 26 and the
// lowest Node CI runs, Node 20).

/** Whether a job is one of the compared rows. */
export const isCompared = (job) =>
  job.section === 'A' || (job.section === 'F' && job.key.startsWith('calls '));

const fmt = (v, digits = 0) =>
  typeof v === 'number' && Number.isFinite(v)
    ? v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';

/** Markdown lines: each compared row's headline figure on both Nodes, and the second over the first. */
export function comparedTable(results, compared, { node, compareNode }) {
  const lines = [
    `### A and F2 on ${node} and on ${compareNode} (the same runs, interleaved)`,
    '',
    `| row | figure | ${node} | ${compareNode} | ${compareNode} / ${node} |`,
    '| --- | --- | --- | --- | --- |',
  ];
  const row = (section, key, field, label, digits = 0) => {
    const a = results[section]?.[key]?.median?.[field];
    const b = compared[section]?.[key]?.median?.[field];
    if (a === undefined && b === undefined) return;
    const over = typeof a === 'number' && typeof b === 'number' && a !== 0 ? `${(b / a).toFixed(2)}x` : 'n/a';
    lines.push(
      `| ${section === 'F' ? 'F2' : section} ${key} | ${label} | ${fmt(a, digits)} | ${fmt(b, digits)} | ${over} |`,
    );
  };
  for (const key of Object.keys(compared.A ?? {}))
    if (key === 'floor-vs-inflight') row('A', key, 'floorOverInflight', 'floor / ours (goal <= 1.2x)', 2);
    else row('A', key, 'ratePerSec', 'notifications/s');
  for (const key of Object.keys(compared.F ?? {})) row('F', key, 'callsPerSec', 'calls/s');
  return [...lines, ''];
}
