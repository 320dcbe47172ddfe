import { describe, expect, it } from 'vitest';
import { compileVendoredCopy, RESOLUTIONS } from './support/vendor-check.js';

// Core is meant to be vendored: its src, copied into an app with the strictest common settings, must
// compile as is, for both module resolutions an ESM app uses.
describe('vendored core source', () => {
  for (const resolution of Object.keys(RESOLUTIONS) as (keyof typeof RESOLUTIONS)[]) {
    it(`compiles with zero errors under a strict app tsconfig (${resolution})`, () => {
      expect(compileVendoredCopy(resolution)).toEqual([]);
    }, 120_000);
  }
});
