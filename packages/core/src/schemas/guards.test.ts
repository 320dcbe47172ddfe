import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALL_FIXTURES,
  CANCELLED_FIXTURES,
  isValidIn,
  type ParamsFixture,
  PROGRESS_FIXTURES,
  paramsOf,
} from '../../test/schema-fixtures.js';
import { hasProgressMessage, REVISIONS, type Revision } from '../revisions/revisions.js';
import { isCancelledParams, isProgressParams, isTokenOrId } from './guards.js';
import {
  cancelledNotificationSchema,
  cancelledParamsSchema,
  progressNotificationSchema,
  progressParamsSchema,
  progressTokenSchema,
  requestIdSchema,
} from './schemas.js';

function zodAccepts(fixture: ParamsFixture, revision: Revision, params: unknown): boolean {
  const schema =
    fixture.kind === 'progress' ? progressParamsSchema(revision) : cancelledParamsSchema(revision);
  return schema.safeParse(params).success;
}

function handAccepts(fixture: ParamsFixture, revision: Revision, params: unknown): boolean {
  return fixture.kind === 'progress'
    ? isProgressParams(params, hasProgressMessage(revision))
    : isCancelledParams(params, revision === '2025-11-25');
}

const cases = ALL_FIXTURES.flatMap((fixture) => REVISIONS.map((revision) => ({ fixture, revision })));

describe('schema fixture corpus', () => {
  it('covers both notifications with valid and invalid params in every revision', () => {
    for (const fixtures of [PROGRESS_FIXTURES, CANCELLED_FIXTURES]) {
      for (const revision of REVISIONS) {
        expect(fixtures.some((f) => isValidIn(f, revision))).toBe(true);
        expect(fixtures.some((f) => !isValidIn(f, revision))).toBe(true);
      }
    }
    expect(new Set(ALL_FIXTURES.map((f) => `${f.kind}:${f.name}`)).size).toBe(ALL_FIXTURES.length);
  });

  it.each(cases)(
    '$fixture.kind "$fixture.name" in $revision: zod and the hand-written check agree with the spec',
    ({ fixture, revision }) => {
      const params = paramsOf(fixture);
      const expected = isValidIn(fixture, revision);
      expect({
        zod: zodAccepts(fixture, revision, params),
        hand: handAccepts(fixture, revision, params),
      }).toEqual({
        zod: expected,
        hand: expected,
      });
    },
  );

  it.each(cases)(
    '$fixture.kind "$fixture.name" in $revision: the whole notification agrees with its params',
    ({ fixture, revision }) => {
      const params = paramsOf(fixture);
      const method = fixture.kind === 'progress' ? 'notifications/progress' : 'notifications/cancelled';
      const schema =
        fixture.kind === 'progress'
          ? progressNotificationSchema(revision)
          : cancelledNotificationSchema(revision);
      expect(schema.safeParse({ jsonrpc: '2.0', method, params }).success).toBe(isValidIn(fixture, revision));
    },
  );
});

describe('what the schemas keep and strip', () => {
  it('strips message from 2024-11-05 progress and keeps it from 2025-03-26 on', () => {
    const params = { progressToken: 't', progress: 1, total: 2, message: 'half' };
    expect(progressParamsSchema('2024-11-05').parse(params)).toEqual({
      progressToken: 't',
      progress: 1,
      total: 2,
    });
    for (const revision of REVISIONS.filter(hasProgressMessage)) {
      expect(progressParamsSchema(revision).parse(params)).toEqual(params);
    }
  });

  it('strips unknown keys but keeps _meta', () => {
    const parsed = cancelledParamsSchema('2025-06-18').parse({ requestId: 1, extra: true, _meta: { k: 1 } });
    expect(parsed).toEqual({ requestId: 1, _meta: { k: 1 } });
  });

  it('a whole notification must carry the right method and jsonrpc', () => {
    const params = { progressToken: 't', progress: 1 };
    expect(
      progressNotificationSchema('2025-06-18').safeParse({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params,
      }).success,
    ).toBe(false);
    expect(
      progressNotificationSchema('2025-06-18').safeParse({
        jsonrpc: '1.0',
        method: 'notifications/progress',
        params,
      }).success,
    ).toBe(false);
  });
});

// Any JSON value, plus the numbers JSON text can still produce in odd ways (1e400 -> Infinity, -0).
const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom<unknown>(
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    -0,
    1.5,
    2 ** 53,
    -(2 ** 53),
    '',
  ),
  fc.integer(),
  fc.string({ maxLength: 3 }),
);
const field = (key: string, usual: fc.Arbitrary<unknown>) =>
  fc
    .option(fc.oneof({ weight: 3, arbitrary: usual }, { weight: 1, arbitrary: anyValue }), { nil: undefined })
    .map((v) => (v === undefined ? {} : { [key]: v }));
const idLike = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }));
const metaLike = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
  anyValue,
);
const randomProgress = fc
  .tuple(
    field('progressToken', idLike),
    field('progress', fc.double({ noNaN: true })),
    field('total', fc.double({ noNaN: true })),
    field('message', fc.string({ maxLength: 4 })),
    field('_meta', metaLike),
  )
  .map((parts) => Object.assign({}, ...parts) as unknown);
const randomCancelled = fc
  .tuple(field('requestId', idLike), field('reason', fc.string({ maxLength: 4 })), field('_meta', metaLike))
  .map((parts) => Object.assign({}, ...parts) as unknown);

describe('zod and the hand-written checks agree on random params', () => {
  it('for notifications/progress in every revision', () => {
    fc.assert(
      fc.property(
        fc.oneof({ weight: 9, arbitrary: randomProgress }, { weight: 1, arbitrary: anyValue }),
        (params) => {
          for (const revision of REVISIONS) {
            const zod = progressParamsSchema(revision).safeParse(params).success;
            expect(isProgressParams(params, hasProgressMessage(revision))).toBe(zod);
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('for notifications/cancelled in every revision', () => {
    fc.assert(
      fc.property(
        fc.oneof({ weight: 9, arbitrary: randomCancelled }, { weight: 1, arbitrary: anyValue }),
        (params) => {
          for (const revision of REVISIONS) {
            const zod = cancelledParamsSchema(revision).safeParse(params).success;
            expect(isCancelledParams(params, revision === '2025-11-25')).toBe(zod);
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('for a bare token or request id', () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        expect(isTokenOrId(value)).toBe(progressTokenSchema.safeParse(value).success);
        expect(isTokenOrId(value)).toBe(requestIdSchema.safeParse(value).success);
      }),
      { numRuns: 1_000 },
    );
  });
});
