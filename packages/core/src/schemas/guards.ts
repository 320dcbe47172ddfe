/**
 * Hand-written guards for the hot relay path. They agree with the zod schemas in `schemas.ts` on the
 * shared fixture corpus (`fixtures.ts`, tested in `fast-check.test.ts`), and cost no allocation.
 */

/**
 * A string, or an integer that JSON can carry exactly.
 */
export function isTokenOrId(value: unknown): value is string | number {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

function isOptionalFinite(value: unknown): boolean {
  return value === undefined || (typeof value === 'number' && Number.isFinite(value));
}

function isOptionalMeta(value: unknown): boolean {
  return value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value));
}

/**
 * Whether `params` are valid `notifications/progress` params. `message` is checked only where the
 * revision has it (`withMessage`); elsewhere it is ignored, as the zod schema strips it.
 */
export function isProgressParams(params: unknown, withMessage: boolean): boolean {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  const p = params as {
    progressToken?: unknown;
    progress?: unknown;
    total?: unknown;
    message?: unknown;
    _meta?: unknown;
  };
  if (!isTokenOrId(p.progressToken)) return false;
  if (typeof p.progress !== 'number' || !Number.isFinite(p.progress)) return false;
  if (!isOptionalFinite(p.total)) return false;
  if (withMessage && p.message !== undefined && typeof p.message !== 'string') return false;
  return isOptionalMeta(p._meta);
}

/**
 * Whether `params` are valid `notifications/cancelled` params; `requestIdOptional` only in 2025-11-25.
 */
export function isCancelledParams(params: unknown, requestIdOptional: boolean): boolean {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  const p = params as { requestId?: unknown; reason?: unknown; _meta?: unknown };
  if (p.requestId === undefined ? !requestIdOptional : !isTokenOrId(p.requestId)) return false;
  if (p.reason !== undefined && typeof p.reason !== 'string') return false;
  return isOptionalMeta(p._meta);
}
