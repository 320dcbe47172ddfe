/**
 * How code that carries a progress message tells a {@link KeptString} from other objects without
 * importing its class (the `ProgressRelay` stays out of the kept-strings module): a registered symbol, so
 * two copies of the library in one app recognise each other's.
 */
export const KEPT_BRAND: unique symbol = Symbol.for('mcp-inflight.kept-string') as never;

/** Whether `value` is a kept string (of this copy of the library or another). */
export function isKept(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && (value as { [KEPT_BRAND]?: unknown })[KEPT_BRAND] === true
  );
}
