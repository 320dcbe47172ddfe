// What the directory's instances say to each other and keep in Redis: a claim, a forwarded request and
// its reply, with the helpers that read them off the wire.
import { JsonRpcError } from '@mcp-inflight/core';
import type { KeptWrite } from './store-link.js';

/** A forwarded request's answer: the holder's result, or that no instance holds the task. */
export type Forwarded = { held: false } | { held: true; result: unknown };

export interface Claim {
  instance: string;
  createdAt: string;
  ttlMs: number;
  /** The terminal `tasks/get` answer, once the holder saw one. */
  answer?: Record<string, unknown>;
}

/** A claim kept while Redis is away, so a later `settle` can add its answer to it. */
export interface KeptClaim extends KeptWrite {
  readonly claim: Claim;
}

/** What answers the requests forwarded to this instance (with the asking host's passed headers). */
export type Answerer = (
  method: string,
  params: Record<string, unknown>,
  headers?: Record<string, string>,
) => Promise<unknown>;

/** When a terminal answer's task ends (its `createdAt` plus `ttlMs`), if it says. */
export function expiryOf(answer: Record<string, unknown>): number | undefined {
  const created = typeof answer.createdAt === 'string' ? Date.parse(answer.createdAt) : Number.NaN;
  const ttlMs = answer.ttlMs;
  return Number.isFinite(created) && typeof ttlMs === 'number' ? created + ttlMs : undefined;
}

/** A forwarded request's headers, string values only (anything else from the wire is left out). */
export function stringsOf(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) if (typeof v === 'string') out[name] = v;
  return out;
}

export interface JsonRpcErrorShape {
  code: number;
  message: string;
  data?: unknown;
}

export function errorShape(error: unknown): JsonRpcErrorShape {
  if (error instanceof JsonRpcError) return { code: error.code, message: error.message, data: error.data };
  return { code: -32603, message: error instanceof Error ? error.message : String(error) };
}
