/**
 * A program and its arguments, as `child_process.spawn` takes them.
 *
 * @example
 * ```ts
 * import { type CommandSpec, spawnStdio } from '@mcp-inflight/stdio';
 * // Already split into words, so no quoting applies: the path may contain spaces.
 * const spec: CommandSpec = { command: process.execPath, args: ['/opt/my tools/server.js', '--stdio'] };
 * const client = spawnStdio(spec);
 * ```
 */
export interface CommandSpec {
  /** The program to run. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
}

/**
 * Splits a command line into a program and its arguments the way a POSIX shell splits words, without
 * running a shell (no expansion, no pipes, no injection): whitespace separates words, `'...'` is literal,
 * `"..."` allows `\"` and `\\`, and a backslash outside quotes escapes the next character.
 *
 * @throws {SyntaxError} on an unterminated quote, a trailing backslash, or an empty command line.
 * @example
 * ```ts
 * import { parseCommandLine } from '@mcp-inflight/stdio';
 * parseCommandLine(`node "my server.js" --name 'a b'`);
 * // { command: 'node', args: ['my server.js', '--name', 'a b'] }
 * ```
 */
export function parseCommandLine(line: string): {
  /** The program: the first word. */
  command: string;
  /** The words after it. */
  args: string[];
} {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\') {
      if (i + 1 >= line.length) throw new SyntaxError(`trailing backslash in command line: ${line}`);
      word += line[++i];
      inWord = true;
    } else if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new SyntaxError(`unterminated ${quote} quote in command line: ${line}`);
  if (inWord) words.push(word);
  const [command, ...args] = words;
  if (command === undefined) throw new SyntaxError('empty command line');
  return { command, args };
}
