/**
 * The MIT license ships: the root LICENSE is the MIT text, every package holds the same file, lists it in
 * package.json `files`, and `npm pack --dry-run` puts it in the tarball.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const license = readFileSync(join(root, 'LICENSE'), 'utf8');

it('the root LICENSE is the MIT license', () => {
  expect(license.startsWith('MIT License\n')).toBe(true);
  expect(license).toContain('Permission is hereby granted, free of charge, to any person obtaining a copy');
  expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
});

describe.each(['core', 'client', 'server', 'http', 'stdio', 'sdk'])('@mcp-inflight/%s', (name) => {
  const dir = join(root, 'packages', name);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    license: string;
    files: string[];
  };

  it('declares MIT, holds the root LICENSE and lists it in files', () => {
    expect(manifest.license).toBe('MIT');
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe(license);
    expect(manifest.files).toContain('LICENSE');
  });

  it('puts LICENSE in the tarball (npm pack --dry-run)', () => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: dir,
      encoding: 'utf8',
    });
    const [pack] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
    expect(pack?.files.map((f) => f.path)).toContain('LICENSE');
  }, 60_000);
});
