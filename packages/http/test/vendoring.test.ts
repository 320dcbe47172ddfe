import { describe, expect, it } from 'vitest';
import {
  CORE_PATHS,
  compileVendored,
  RESOLUTIONS,
  VENDORED_CORE,
} from '../../core/test/support/vendor-check.js';

// A browser host vendors core and http together (README, Vendoring): both `src` folders copied into one
// strict app, the vendored http finding the vendored core through a `paths` mapping. What a browser needs
// (client/, server/, shared/, fetch.ts) compiles with no Node types; node/ and index.ts need @types/node.
const CORE = { from: 'packages/core/src', to: VENDORED_CORE };
const HTTP = 'src/vendor/inflight-http';

describe('vendored http source, with vendored core', () => {
  for (const resolution of Object.keys(RESOLUTIONS) as (keyof typeof RESOLUTIONS)[]) {
    it(`the Fetch API part compiles with zero errors under a strict app tsconfig, no Node types (${resolution})`, () => {
      const folders = [CORE, { from: 'packages/http/src', to: HTTP, leaveOut: ['node', 'index.ts'] }];
      expect(compileVendored({ folders, resolution, paths: CORE_PATHS })).toEqual([]);
    }, 120_000);
  }

  it('all of src, node/ included, compiles with zero errors with @types/node (NodeNext)', () => {
    const folders = [CORE, { from: 'packages/http/src', to: HTTP }];
    expect(compileVendored({ folders, resolution: 'NodeNext', paths: CORE_PATHS, types: ['node'] })).toEqual(
      [],
    );
  }, 120_000);

  it('control: without the paths mapping the vendored http does not find core', () => {
    const folders = [CORE, { from: 'packages/http/src', to: HTTP, leaveOut: ['node', 'index.ts'] }];
    const errors = compileVendored({ folders, resolution: 'Bundler' });
    expect(errors.some((line) => line.includes("'@mcp-inflight/core'"))).toBe(true);
  }, 120_000);
});
