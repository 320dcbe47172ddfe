// node:fs plus a small `globSync(pattern, { cwd, exclude })` for Node 20: `*`, `?`, `**` and `{a,b}`,
// returning paths relative to cwd like Node 22's. Enough for what the conformance CLI asks of it.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

export function globSync(patterns, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const matchers = [patterns].flat().map(toRegExp);
  const excluded = typeof options.exclude === 'function' ? options.exclude : () => false;
  const found = [];
  const walk = (relative) => {
    let entries;
    try {
      entries = fs.readdirSync(path.join(cwd, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (excluded(child)) continue;
      if (matchers.some((m) => m.test(child))) found.push(child);
      if (entry.isDirectory()) walk(child);
    }
  };
  walk('');
  return found.map((p) => p.split('/').join(path.sep));
}

function toRegExp(pattern) {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else if (ch === '{') {
      const end = pattern.indexOf('}', i);
      if (end < 0) source += '\\{';
      else {
        source += `(?:${pattern
          .slice(i + 1, end)
          .split(',')
          .map(escapeRegExp)
          .join('|')})`;
        i = end;
      }
    } else source += escapeRegExp(ch);
  }
  return new RegExp(`^${source.replace(/^\.\//, '')}$`);
}

function escapeRegExp(text) {
  return text.replace(/[.+^${}()|[\]\\]/g, '\\$&');
}
