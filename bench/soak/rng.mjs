// Seeded randomness for the soak: one stream per (seed, lane) for the lane's schedule of kills and drops,
// and one per (seed, lane, call) for the call itself, so a call's plan does not depend on how the lanes
// happened to interleave. Same seed, same plans (timing still decides the races the soak tolerates).

/** A 32-bit mix of the inputs (splitmix32 finaliser). */
export function mix(...values) {
  let h = 0x9e3779b9;
  for (const v of values) {
    h = Math.imul(h ^ (v >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** mulberry32: a small, fast generator of floats in [0, 1). */
export function rng(state) {
  let s = state >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [min, max]. */
export function between(random, min, max) {
  return min + Math.floor(random() * (max - min + 1));
}

/** The seed from `SOAK_SEED` (decimal or 0x hex), or a fresh one. */
export function seedFromEnv(env = process.env) {
  const text = env.SOAK_SEED;
  if (text === undefined || text === '') return (Math.random() * 2 ** 32) >>> 0;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0 || value >= 2 ** 32)
    throw new Error(`SOAK_SEED must be an integer from 0 to 2^32-1 (decimal or 0x hex), not ${text}`);
  return value;
}
