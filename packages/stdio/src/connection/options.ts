import type { Readable, Writable } from 'node:stream';
import type { Endpoint, EndpointOptions, InflightError } from '@mcp-inflight/core';
import type { AdmissionStats, KeepStrings, Role } from '@mcp-inflight/core/adapter';
import type { LineFramerStats } from '../framing/line-framer.js';
import type { LineWriterStats } from '../framing/line-writer.js';
import type { BadInput } from './bad-input.js';

/**
 * Options for `connectStdio`: the two streams, our role, framing limits, and any endpoint option.
 *
 * @example
 * ```ts
 * import { createConnection } from 'node:net';
 * import { connectStdio, type StdioConnectionOptions } from '@mcp-inflight/stdio';
 * const socket = createConnection('./mcp.sock');
 * const options: StdioConnectionOptions = {
 *   input: socket,
 *   output: socket,
 *   role: 'client',
 *   maxLineBytes: 1 << 20, // a line of a megabyte from this peer is already wrong
 *   onBadInput: (event) => console.error(event.detail), // a client counts bad lines and never answers them
 *   idleMs: 30_000, // any Endpoint option goes here too
 * };
 * const connection = connectStdio(options);
 * ```
 */
export interface StdioConnectionOptions extends Omit<EndpointOptions, 'role' | 'transport' | 'channel'> {
  /** Where the peer's lines come from (a server's stdin; a client's view of the child's stdout). */
  input: Readable;
  /** Where our lines go. */
  output: Writable;
  /** Which side we are. */
  role: Role;
  /** The longest line read, in bytes; longer lines are skipped and reported. @default 16 MiB */
  maxLineBytes?: number;
  /**
   * Requests run at once; more wait their turn in arrival order (reading never stops, so cancels and
   * responses still act at once). Sets up the connection's own `Admission` (core); ignored when
   * `admission` is given. @default 1 000 (`DEFAULT_MAX_IN_FLIGHT`)
   */
  maxInFlight?: number;
  /**
   * Bound on requests waiting for a slot: the bytes of their lines plus 64 each. A request that does not
   * fit is refused at once with `-32010` (`OVERLOADED_ERROR_CODE`). Ignored when `admission` is given.
   * @default 8 MiB
   */
  maxQueuedBytes?: number;
  /**
   * Write budget: bytes written but not yet read by the peer. A backlog over it that does not shrink for
   * `unsentStallMs` means the peer stopped reading, and a line that would take the backlog past it plus
   * one message means the peer is too far behind; either way the connection closes: output ended,
   * handlers aborted (`DISCONNECTED` for a server), `onClose` told. One large answer to a peer that
   * reads never closes it.
   * @default 64 MiB
   */
  maxUnsentBytes?: number;
  /**
   * How long a backlog over `maxUnsentBytes` may go without shrinking before the peer counts as stalled.
   * @default 10_000 (`DEFAULT_UNSENT_STALL_MS`)
   */
  unsentStallMs?: number;
  /**
   * How long a response waits after the same request's last progress line was handed to the OS, when it
   * comes less than this after it; every other line goes out at once. A reader decides where its reads
   * break, and the official SDK v1 client drops a progress update that arrives in the same read as its
   * result ("unknown token"); the gap makes them separate reads at a host that is not busy. `0` turns it
   * off. @default 5 (`DEFAULT_RESULT_GAP_MS`)
   */
  resultGapMs?: number;
  /**
   * Whether bad lines get an error response (-32700 with a null id). A server answers; a client only
   * counts them, because what a server prints by mistake is not a request, and a 2026-07-28 client must
   * not write responses [S5]. @default role === 'server'
   */
  answerBadInput?: boolean;
  /** Told about every bad line (not JSON, too long, unfinished at the end). */
  onBadInput?: (event: BadInput) => void;
  /**
   * Told once when the connection ends, with the cause (also in `closeReason`; `closed` resolves).
   * Without it, a close because the peer stopped reading is also a process warning on stderr.
   */
  onClose?: (reason: InflightError) => void;
  /** Told about exceptions thrown by our own notification handlers. @default process.emitWarning */
  onError?: (error: unknown) => void;
  /**
   * Whether the end of `input` (or, for a client, the loss of `output`) closes the connection. Turn it
   * off when you watch the peer some other way and call `abort()` yourself: `spawnStdio` does, to wait
   * for the child's exit status so the cause it reports names the exit code. @default true
   */
  closeOnInputEnd?: boolean;
  /** Whether `close()` ends `output` (for a server, the spec's way to start shutdown). @default true */
  endOutputOnClose?: boolean;
  /** Registers handlers before the first line is read. */
  setup?: (endpoint: Endpoint) => void;
  /**
   * For a relay's upstream leg: `keepStrings(65_536)` (`@mcp-inflight/core/adapter`) keeps long strings in
   * results as the JSON literals they arrived as, and a line that long is handed over as its bytes, so the
   * literal goes on to the next peer as the bytes read, never decoded, parsed or serialized in between.
   * Without it, every line is decoded and `JSON.parse`d.
   */
  keepStrings?: KeepStrings;
}

/**
 * Counters of one connection: framing, parsing, writing, and its admission's (`maxInFlight`; shared
 * counters when the connection was given an `admission` others use too).
 *
 * @example
 * ```ts
 * import type { StdioConnection, StdioConnectionStats } from '@mcp-inflight/stdio';
 * declare const connection: StdioConnection;
 * const stats: StdioConnectionStats = connection.stats; // a snapshot
 * if (stats.parseErrors + stats.overlongLines > 0) console.error('the peer writes lines that are not MCP');
 * if (stats.peakUnsentBytes > 1 << 20) console.error('the peer reads slowly');
 * if (stats.refusedRequests > 0) console.error('the peer sent more than maxInFlight + maxQueuedBytes allow');
 * ```
 */
export interface StdioConnectionStats extends LineFramerStats, LineWriterStats, AdmissionStats {
  /** Lines that were not JSON. */
  parseErrors: number;
  /** Lines a client did not answer: JSON, but not a JSON-RPC message (`null`, `42`, a log record). */
  notMessages: number;
  /** Responses waiting out `resultGapMs` right now. */
  heldResponses: number;
  /** Responses that waited out `resultGapMs`, in all (the rest had no progress right before them). */
  gapDelayedResponses: number;
}

/**
 * One MCP connection over a pair of streams.
 *
 * @example
 * ```ts
 * import type { Duplex } from 'node:stream';
 * import { connectStdio, type StdioConnection } from '@mcp-inflight/stdio';
 * declare const pipe: Duplex;
 * const connection: StdioConnection = connectStdio({ input: pipe, output: pipe, role: 'server' });
 * // close(): in-flight handlers end with SHUTDOWN, queued lines are written, then the output ends.
 * process.once('SIGTERM', () => void connection.close('SIGTERM'));
 * await connection.closed;
 * console.error(connection.closeReason?.code); // 'DISCONNECTED' if the client went first
 * ```
 */
export interface StdioConnection {
  /** The core endpoint: set handlers, send requests and notifications, read `stats`. */
  readonly endpoint: Endpoint;
  /** Resolves when the connection is over: the input ended, a stream failed, or `close()`/`abort()`. */
  readonly closed: Promise<void>;
  /** Why it ended, once it has. */
  readonly closeReason: InflightError | undefined;
  /** A snapshot of the connection's counters: read it again for new numbers. */
  readonly stats: StdioConnectionStats;
  /**
   * Closes gracefully: in-flight outbound calls are cancelled on the wire and rejected with SHUTDOWN,
   * in-flight handlers are aborted and answered with an error naming the shutdown, queued lines are
   * written, then `output` is ended (unless `endOutputOnClose` is false).
   */
  close(why?: string): Promise<void>;
  /** The transport is gone: fails every pending call at once with `cause` and writes nothing more. */
  abort(cause?: InflightError): void;
}
