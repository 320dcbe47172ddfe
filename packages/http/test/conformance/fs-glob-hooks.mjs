// Module hooks: every import of `fs` / `node:fs` (except from the shim itself) resolves to the shim, which
// is node:fs plus a `globSync`.
const SHIM = new URL('./fs-glob-shim.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL !== SHIM) {
    return { url: SHIM, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
