import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './command-line.js';

describe('parseCommandLine', () => {
  it('splits on whitespace and honours quotes and escapes like a POSIX shell', () => {
    expect(parseCommandLine('node   server.js --port 3')).toEqual({
      command: 'node',
      args: ['server.js', '--port', '3'],
    });
    expect(parseCommandLine(`node "my server.js" --name 'a "b" c' x\\ y`)).toEqual({
      command: 'node',
      args: ['my server.js', '--name', 'a "b" c', 'x y'],
    });
    expect(parseCommandLine(`run "say \\"hi\\"" '' "a\\b"`)).toEqual({
      command: 'run',
      args: ['say "hi"', '', 'a\\b'],
    });
  });

  it('never treats shell syntax as anything but text', () => {
    expect(parseCommandLine('echo $HOME; rm -rf / | cat')).toEqual({
      command: 'echo',
      args: ['$HOME;', 'rm', '-rf', '/', '|', 'cat'],
    });
  });

  it('throws on unterminated quotes, a trailing backslash, or nothing at all', () => {
    expect(() => parseCommandLine('node "open')).toThrow(SyntaxError);
    expect(() => parseCommandLine("node 'open")).toThrow(SyntaxError);
    expect(() => parseCommandLine('node \\')).toThrow(SyntaxError);
    expect(() => parseCommandLine('   ')).toThrow(/empty/);
  });
});
