import { describe, expect, it } from 'vitest';
import { spawnStdio } from '../src/index.js';

// Plain JavaScript can pass spawnStdio anything: a mistake throws before any child starts, naming the
// accepted forms, instead of Node's 'The "file" argument must be of type string'.
describe('spawnStdio argument mistakes', () => {
  const call = (commandLine: unknown, options?: unknown) => () =>
    spawnStdio(commandLine as string, options as Parameters<typeof spawnStdio>[1]);

  it('an array (the argv form) names the { command, args } it means', () => {
    expect(call(['node', '/srv/server.js', '--stdio'])).toThrow(TypeError);
    expect(call(['node', '/srv/server.js', '--stdio'])).toThrow(
      `spawnStdio takes a command line ('node server.js') or { command, args } ({ command: 'node', args: ['server.js'] }), not an array: for ["node", …] pass { command: "node", args: ["/srv/server.js","--stdio"] }`,
    );
  });

  it.each([
    [undefined, /got undefined$/],
    [42, /got number 42$/],
    [{ cmd: 'node' }, /got an object whose command is undefined$/],
    [{ command: '' }, /got an object whose command is ""$/],
  ])('%j is refused with the accepted forms', (commandLine, message) => {
    expect(call(commandLine)).toThrow(TypeError);
    expect(call(commandLine)).toThrow(
      /^spawnStdio takes a command line \('node server\.js'\) or \{ command, args \}/,
    );
    expect(call(commandLine)).toThrow(message);
  });

  it('args that are not an array of strings', () => {
    expect(call({ command: 'node', args: 'server.js' })).toThrow(
      'spawnStdio: args must be an array of strings, got "server.js"',
    );
    expect(call({ command: 'node', args: ['server.js', 3] })).toThrow(TypeError);
  });

  it('an unknown stderr mode, and limits that are not finite numbers >= 0', () => {
    expect(call('node server.js', { stderr: 'capture-all' })).toThrow(
      `spawnStdio: stderr must be 'inherit', 'ignore', 'pipe', 'capture' or a writable stream, got "capture-all"`,
    );
    expect(call('node server.js', { exitGraceMs: -1 })).toThrow(RangeError);
    expect(call('node server.js', { killGraceMs: '1000' })).toThrow(
      'spawnStdio: killGraceMs must be a finite number >= 0, got "1000"',
    );
    expect(call('node server.js', { maxStderrBytes: Number.NaN })).toThrow(RangeError);
  });

  it('the accepted forms start a child (node -e), which closes cleanly', async () => {
    for (const commandLine of [
      `${JSON.stringify(process.execPath)} -e "process.stdin.resume()"`,
      { command: process.execPath, args: ['-e', 'process.stdin.resume()'] },
    ]) {
      const client = spawnStdio(commandLine, { stderr: 'ignore', exitGraceMs: 5_000 });
      await client.close();
      expect((await client.exited).code).toBe(0);
    }
  });
});
