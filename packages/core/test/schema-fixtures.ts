/**
 * A shared corpus of `notifications/progress` and `notifications/cancelled` params, valid and invalid, with
 * the revisions each is valid in. The zod schemas (`schemas.ts`) and the hand-written hot-path checks
 * (`guards.ts`) must both agree with every entry (`guards.test.ts`).
 *
 * Each fixture is JSON text, because that is what arrives on the wire: `1e400` parses to `Infinity`, and
 * NaN cannot be written at all.
 */
import { REVISIONS, type Revision } from '../src/revisions/revisions.js';

export interface ParamsFixture {
  readonly kind: 'progress' | 'cancelled';
  readonly name: string;
  /** The params object as JSON text. */
  readonly json: string;
  /** The revisions whose schema accepts these params. */
  readonly validIn: readonly Revision[];
  /** The rule keys (packages/core/RULES.md) the verdict rests on. */
  readonly rules: readonly string[];
}

const ALL = REVISIONS;
const NONE: readonly Revision[] = [];
const ONLY_1105: readonly Revision[] = ['2024-11-05'];
const ONLY_1125: readonly Revision[] = ['2025-11-25'];

function progress(
  name: string,
  json: string,
  validIn: readonly Revision[],
  ...rules: string[]
): ParamsFixture {
  return { kind: 'progress', name, json, validIn, rules };
}

function cancelled(
  name: string,
  json: string,
  validIn: readonly Revision[],
  ...rules: string[]
): ParamsFixture {
  return { kind: 'cancelled', name, json, validIn, rules };
}

/** `notifications/progress` params. */
export const PROGRESS_FIXTURES: readonly ParamsFixture[] = [
  // progressToken: string or integer [PS1 PG3]
  progress('string token', '{"progressToken":"abc","progress":1}', ALL, 'PS1'),
  progress('token 0 is a real token', '{"progressToken":0,"progress":1}', ALL, 'PS1'),
  progress('token "" is a real token', '{"progressToken":"","progress":1}', ALL, 'PS1'),
  progress('token "1" (a string)', '{"progressToken":"1","progress":1}', ALL, 'PS1'),
  progress('negative integer token', '{"progressToken":-7,"progress":1}', ALL, 'PS1', 'PG3'),
  progress('integer token written with an exponent', '{"progressToken":1e3,"progress":1}', ALL, 'PG3'),
  progress('largest safe integer token', '{"progressToken":9007199254740991,"progress":1}', ALL, 'PG3'),
  progress(
    'token 2**53 (not exactly representable)',
    '{"progressToken":9007199254740992,"progress":1}',
    NONE,
    'PG3',
  ),
  progress('float token 1.5', '{"progressToken":1.5,"progress":1}', NONE, 'PG3'),
  progress('null token', '{"progressToken":null,"progress":1}', NONE, 'PS1'),
  progress('boolean token', '{"progressToken":true,"progress":1}', NONE, 'PS1'),
  progress('object token', '{"progressToken":{"id":1},"progress":1}', NONE, 'PS1'),
  progress('array token', '{"progressToken":[1],"progress":1}', NONE, 'PS1'),
  progress('missing token', '{"progress":1}', NONE, 'PS1'),
  // progress and total: numbers, floats allowed [PS4 PS5 PG7]
  progress('float progress', '{"progressToken":"t","progress":0.25}', ALL, 'PS4', 'PG7'),
  progress('negative progress', '{"progressToken":"t","progress":-3}', ALL, 'PS4'),
  progress('zero progress', '{"progressToken":"t","progress":0}', ALL, 'PS4'),
  progress('string progress', '{"progressToken":"t","progress":"5"}', NONE, 'PS4'),
  progress('progress 1e400 parses to Infinity', '{"progressToken":"t","progress":1e400}', NONE, 'PS4'),
  progress('progress -1e400 parses to -Infinity', '{"progressToken":"t","progress":-1e400}', NONE, 'PS4'),
  progress('null progress', '{"progressToken":"t","progress":null}', NONE, 'PS4'),
  progress('missing progress', '{"progressToken":"t"}', NONE, 'PS4'),
  progress('float total', '{"progressToken":"t","progress":1,"total":10.5}', ALL, 'PS5', 'PG7'),
  progress(
    'total below progress (not a schema matter)',
    '{"progressToken":"t","progress":5,"total":1}',
    ALL,
    'PS5',
  ),
  progress('string total', '{"progressToken":"t","progress":1,"total":"10"}', NONE, 'PS5'),
  progress('null total', '{"progressToken":"t","progress":1,"total":null}', NONE, 'PS5'),
  progress('total 1e400 parses to Infinity', '{"progressToken":"t","progress":1,"total":1e400}', NONE, 'PS5'),
  // message: only from 2025-03-26; 2024-11-05 has no such field, so its schema strips it [PS6 PS7]
  progress('string message', '{"progressToken":"t","progress":1,"message":"step 1"}', ALL, 'PS6'),
  progress('empty message', '{"progressToken":"t","progress":1,"message":""}', ALL, 'PS6'),
  progress('number message', '{"progressToken":"t","progress":1,"message":42}', ONLY_1105, 'PS6', 'PS7'),
  progress('null message', '{"progressToken":"t","progress":1,"message":null}', ONLY_1105, 'PS6', 'PS7'),
  progress(
    'object message',
    '{"progressToken":"t","progress":1,"message":{"text":"x"}}',
    ONLY_1105,
    'PS6',
    'PS7',
  ),
  // _meta: an object [MK1]
  progress('_meta object', '{"progressToken":"t","progress":1,"_meta":{"x.example/trace":"a"}}', ALL, 'MK1'),
  progress('empty _meta', '{"progressToken":"t","progress":1,"_meta":{}}', ALL, 'MK1'),
  progress('_meta array', '{"progressToken":"t","progress":1,"_meta":[1,2]}', NONE, 'MK1'),
  progress('_meta null', '{"progressToken":"t","progress":1,"_meta":null}', NONE, 'MK1'),
  progress('_meta string', '{"progressToken":"t","progress":1,"_meta":"x"}', NONE, 'MK1'),
  // the params themselves
  progress('unknown extra key (stripped)', '{"progressToken":"t","progress":1,"extra":true}', ALL, 'PS4'),
  progress(
    'every field at once',
    '{"progressToken":-1,"progress":0.5,"total":1,"message":"half","_meta":{}}',
    ALL,
    'PS4',
    'PS6',
  ),
  progress('params array', '[{"progressToken":"t","progress":1}]', NONE, 'PS4'),
  progress('params null', 'null', NONE, 'PS4'),
  progress('params string', '"t"', NONE, 'PS4'),
];

/** `notifications/cancelled` params. */
export const CANCELLED_FIXTURES: readonly ParamsFixture[] = [
  // requestId: string or integer, never null [J1 J2 J7]
  cancelled(
    'string requestId with reason',
    '{"requestId":"r-1","reason":"user pressed stop"}',
    ALL,
    'CN17',
    'CN19',
  ),
  cancelled('requestId 0', '{"requestId":0}', ALL, 'CN17', 'J7'),
  cancelled('requestId ""', '{"requestId":""}', ALL, 'CN17', 'J7'),
  cancelled('negative requestId', '{"requestId":-3}', ALL, 'J1'),
  cancelled('float requestId 1.5', '{"requestId":1.5}', NONE, 'J1'),
  cancelled('requestId 2**53', '{"requestId":9007199254740992}', NONE, 'J1'),
  cancelled('null requestId', '{"requestId":null}', NONE, 'J2'),
  cancelled('boolean requestId', '{"requestId":false}', NONE, 'J7'),
  cancelled('object requestId', '{"requestId":{"id":1}}', NONE, 'J7'),
  // requestId optional only in 2025-11-25, for tasks [CN18a CN18b CN18c]
  cancelled('missing requestId', '{"reason":"task"}', ONLY_1125, 'CN17', 'CN18c'),
  cancelled('empty params', '{}', ONLY_1125, 'CN17', 'CN18c'),
  // reason: an optional string [CN19]
  cancelled('no reason', '{"requestId":7}', ALL, 'CN19'),
  cancelled('empty reason', '{"requestId":7,"reason":""}', ALL, 'CN19'),
  cancelled('number reason', '{"requestId":7,"reason":408}', NONE, 'CN19'),
  cancelled('null reason', '{"requestId":7,"reason":null}', NONE, 'CN19'),
  cancelled('object reason', '{"requestId":7,"reason":{"code":"IDLE"}}', NONE, 'CN19'),
  cancelled('number reason without requestId', '{"reason":408}', NONE, 'CN19'),
  // _meta: an object [MK1]
  cancelled('_meta object', '{"requestId":7,"_meta":{"x.example/k":1}}', ALL, 'MK1'),
  cancelled('_meta array', '{"requestId":7,"_meta":[]}', NONE, 'MK1'),
  cancelled('_meta null', '{"requestId":7,"_meta":null}', NONE, 'MK1'),
  // the params themselves
  cancelled('unknown extra key (stripped)', '{"requestId":7,"extra":1}', ALL, 'CN17'),
  cancelled('params array', '[{"requestId":7}]', NONE, 'CN17'),
  cancelled('params null', 'null', NONE, 'CN17'),
  cancelled('params number', '7', NONE, 'CN17'),
];

export const ALL_FIXTURES: readonly ParamsFixture[] = [...PROGRESS_FIXTURES, ...CANCELLED_FIXTURES];

/** The params of a fixture, parsed as a receiver would parse them. */
export function paramsOf(fixture: ParamsFixture): unknown {
  return JSON.parse(fixture.json);
}

/** Whether the fixture is valid in `revision`. */
export function isValidIn(fixture: ParamsFixture, revision: Revision): boolean {
  return fixture.validIn.includes(revision);
}
