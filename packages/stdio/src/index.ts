/**
 * The public surface of `@mcp-inflight/stdio`: explicit named exports only.
 *
 * @module @mcp-inflight/stdio
 */
export type { ChildExit, ChildOptions, StderrMode } from './client/child.js';
export { type CommandSpec, parseCommandLine } from './client/command-line.js';
export { type SpawnStdioOptions, type StdioClient, spawnStdio } from './client/spawn-stdio.js';
export type { BadInput, BadInputKind } from './connection/bad-input.js';
export {
  connectStdio,
  type StdioConnection,
  type StdioConnectionOptions,
  type StdioConnectionStats,
} from './connection/connect-stdio.js';
export {
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_QUEUED_BYTES,
  OVERLOADED_ERROR_CODE,
  QUEUED_REQUEST_OVERHEAD_BYTES,
} from './connection/overloaded.js';
export { DEFAULT_RESULT_GAP_MS } from './connection/result-gap.js';
export {
  DEFAULT_MAX_LINE_BYTES,
  LineFramer,
  type LineFramerOptions,
  type LineFramerStats,
  type OverlongEdges,
} from './framing/line-framer.js';
export {
  DEFAULT_MAX_UNSENT_BYTES,
  DEFAULT_UNSENT_STALL_MS,
  LineWriter,
  type LineWriterOptions,
  type LineWriterStats,
} from './framing/line-writer.js';
export { type ReadLinesOptions, readLines } from './framing/read-lines.js';
export { type StdioOptions, type StdioServer, serveStdio } from './server/serve-stdio.js';
