/**
 * The fields that hold a value, the unset ones left out: an options object passed on whole would carry
 * `key: undefined`, which an app compiling with `exactOptionalPropertyTypes` (a vendored copy) rejects.
 */
export function setFields<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const set: Record<string, unknown> = {};
  for (const key in fields) if (fields[key] !== undefined) set[key] = fields[key];
  return set as { [K in keyof T]?: Exclude<T[K], undefined> };
}
