import fc from 'fast-check';

// Every property test replays from a seed. fast-check prints `{ seed, path }` when a property fails;
// run that test again with FC_SEED=<seed> (and FC_PATH=<path> to go straight to the shrunk
// counterexample), e.g. `FC_SEED=-379161356 npx vitest run --config .config/vitest.config.ts <file> -t <name>`.
const seed = process.env.FC_SEED;
if (seed !== undefined && seed !== '') {
  const value = Number(seed);
  if (!Number.isInteger(value)) throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(seed)}`);
  const path = process.env.FC_PATH;
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: value, ...(path ? { path } : {}) });
}
