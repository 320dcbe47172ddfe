import { describe, expect, it } from 'vitest';
import { REVISIONS, type Revision } from '../revisions/revisions.js';
import {
  type CancelMethod,
  EraCancelPolicy,
  eraCancelPolicy,
  type OutboundRequest,
  type Role,
  type TransportKind,
} from './era-cancel-policy.js';

// Every answer cites the rule it rests on (keys of packages/core/RULES.md), and the test checks that citation.
const R1105: Revision = '2024-11-05';
const R0326: Revision = '2025-03-26';
const R0618: Revision = '2025-06-18';
const R1125: Revision = '2025-11-25';
const R0728: Revision = '2026-07-28';

const INIT: OutboundRequest = { method: 'initialize' };
const CALL: OutboundRequest = { method: 'tools/call' };
const LISTEN: OutboundRequest = { method: 'subscriptions/listen' };
// Task-augmented: 2025-11-25 `params.task`, or the 2026-07-28 tasks extension. Before 2025-11-25 there are no
// tasks, so the flag changes nothing there.
const TASK: OutboundRequest = { method: 'tools/call', task: true };

type Row = [Revision, TransportKind, Role, OutboundRequest, CancelMethod, string, boolean, string];

/**
 * revision, transport, role, request | outboundCancel (value, rule) | maySendCancelled (value, rule)
 *
 * Legacy (2025-11-25 and earlier): either side cancels with the notification [CN1]; on Streamable HTTP a
 * disconnect is not a cancel, so the notification it is [H14]; never `initialize` [CN7], which a server never
 * issued anyway [CN4]; 2025-11-25 tasks use `tasks/cancel` [CN16]. 2026-07-28: servers issue no requests
 * [L1] and send the notification only to end a listen, on either transport [CN6 CN21 CN3]; a client closes the stream on
 * HTTP [CN24 CN22] and sends the notification on stdio [CN25]; tasks use `tasks/cancel` [T11].
 */
const MATRIX: Row[] = [
  [R1105, 'stdio', 'client', INIT, 'none', 'CN7', false, 'CN7'],
  [R1105, 'stdio', 'client', CALL, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'stdio', 'client', LISTEN, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'stdio', 'client', TASK, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'stdio', 'server', INIT, 'none', 'CN4', false, 'CN4'],
  [R1105, 'stdio', 'server', CALL, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'stdio', 'server', LISTEN, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'stdio', 'server', TASK, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'http', 'client', INIT, 'none', 'CN7', false, 'CN7'],
  [R1105, 'http', 'client', CALL, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'http', 'client', LISTEN, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'http', 'client', TASK, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'http', 'server', INIT, 'none', 'CN4', false, 'CN4'],
  [R1105, 'http', 'server', CALL, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'http', 'server', LISTEN, 'notification', 'CN1', true, 'CN1'],
  [R1105, 'http', 'server', TASK, 'notification', 'CN1', true, 'CN1'],
  [R0326, 'stdio', 'client', INIT, 'none', 'CN7', false, 'CN7'],
  [R0326, 'stdio', 'client', CALL, 'notification', 'CN1', true, 'CN1'],
  [R0326, 'stdio', 'client', LISTEN, 'notification', 'CN1', true, 'CN1'],
  [R0326, 'stdio', 'client', TASK, 'notification', 'CN1', true, 'CN1'],
  [R0326, 'stdio', 'server', INIT, 'none', 'CN4', false, 'CN4'],
  [R0326, 'stdio', 'server', CALL, 'notification', 'CN1', true, 'CN1'],
  [R0326, 'stdio', 'server', LISTEN, 'notification', 'CN1', true, 'CN1'],
  [R0326, 'stdio', 'server', TASK, 'notification', 'CN1', true, 'CN1'],
  [R0326, 'http', 'client', INIT, 'none', 'CN7', false, 'CN7'],
  [R0326, 'http', 'client', CALL, 'notification', 'H14', true, 'CN1'],
  [R0326, 'http', 'client', LISTEN, 'notification', 'H14', true, 'CN1'],
  [R0326, 'http', 'client', TASK, 'notification', 'H14', true, 'CN1'],
  [R0326, 'http', 'server', INIT, 'none', 'CN4', false, 'CN4'],
  [R0326, 'http', 'server', CALL, 'notification', 'H14', true, 'CN1'],
  [R0326, 'http', 'server', LISTEN, 'notification', 'H14', true, 'CN1'],
  [R0326, 'http', 'server', TASK, 'notification', 'H14', true, 'CN1'],
  [R0618, 'stdio', 'client', INIT, 'none', 'CN7', false, 'CN7'],
  [R0618, 'stdio', 'client', CALL, 'notification', 'CN1', true, 'CN1'],
  [R0618, 'stdio', 'client', LISTEN, 'notification', 'CN1', true, 'CN1'],
  [R0618, 'stdio', 'client', TASK, 'notification', 'CN1', true, 'CN1'],
  [R0618, 'stdio', 'server', INIT, 'none', 'CN4', false, 'CN4'],
  [R0618, 'stdio', 'server', CALL, 'notification', 'CN1', true, 'CN1'],
  [R0618, 'stdio', 'server', LISTEN, 'notification', 'CN1', true, 'CN1'],
  [R0618, 'stdio', 'server', TASK, 'notification', 'CN1', true, 'CN1'],
  [R0618, 'http', 'client', INIT, 'none', 'CN7', false, 'CN7'],
  [R0618, 'http', 'client', CALL, 'notification', 'H14', true, 'CN1'],
  [R0618, 'http', 'client', LISTEN, 'notification', 'H14', true, 'CN1'],
  [R0618, 'http', 'client', TASK, 'notification', 'H14', true, 'CN1'],
  [R0618, 'http', 'server', INIT, 'none', 'CN4', false, 'CN4'],
  [R0618, 'http', 'server', CALL, 'notification', 'H14', true, 'CN1'],
  [R0618, 'http', 'server', LISTEN, 'notification', 'H14', true, 'CN1'],
  [R0618, 'http', 'server', TASK, 'notification', 'H14', true, 'CN1'],
  [R1125, 'stdio', 'client', INIT, 'none', 'CN7', false, 'CN7'],
  [R1125, 'stdio', 'client', CALL, 'notification', 'CN1', true, 'CN1'],
  [R1125, 'stdio', 'client', LISTEN, 'notification', 'CN1', true, 'CN1'],
  [R1125, 'stdio', 'client', TASK, 'tasks/cancel', 'CN16', false, 'CN16'],
  [R1125, 'stdio', 'server', INIT, 'none', 'CN4', false, 'CN4'],
  [R1125, 'stdio', 'server', CALL, 'notification', 'CN1', true, 'CN1'],
  [R1125, 'stdio', 'server', LISTEN, 'notification', 'CN1', true, 'CN1'],
  [R1125, 'stdio', 'server', TASK, 'tasks/cancel', 'CN16', false, 'CN16'],
  [R1125, 'http', 'client', INIT, 'none', 'CN7', false, 'CN7'],
  [R1125, 'http', 'client', CALL, 'notification', 'H14', true, 'CN1'],
  [R1125, 'http', 'client', LISTEN, 'notification', 'H14', true, 'CN1'],
  [R1125, 'http', 'client', TASK, 'tasks/cancel', 'CN16', false, 'CN16'],
  [R1125, 'http', 'server', INIT, 'none', 'CN4', false, 'CN4'],
  [R1125, 'http', 'server', CALL, 'notification', 'H14', true, 'CN1'],
  [R1125, 'http', 'server', LISTEN, 'notification', 'H14', true, 'CN1'],
  [R1125, 'http', 'server', TASK, 'tasks/cancel', 'CN16', false, 'CN16'],
  [R0728, 'stdio', 'client', INIT, 'none', 'CN7', false, 'CN7'],
  [R0728, 'stdio', 'client', CALL, 'notification', 'CN25', true, 'CN25'],
  [R0728, 'stdio', 'client', LISTEN, 'notification', 'CN25', true, 'CN25'],
  [R0728, 'stdio', 'client', TASK, 'tasks/cancel', 'T11', false, 'T11'],
  [R0728, 'stdio', 'server', INIT, 'none', 'L1', false, 'CN6'],
  [R0728, 'stdio', 'server', CALL, 'none', 'L1', false, 'CN6'],
  [R0728, 'stdio', 'server', LISTEN, 'none', 'L1', true, 'CN21'],
  [R0728, 'stdio', 'server', TASK, 'none', 'L1', false, 'CN6'],
  [R0728, 'http', 'client', INIT, 'none', 'CN7', false, 'CN7'],
  [R0728, 'http', 'client', CALL, 'close-stream', 'CN24', false, 'CN22'],
  [R0728, 'http', 'client', LISTEN, 'close-stream', 'CN24', false, 'CN22'],
  [R0728, 'http', 'client', TASK, 'tasks/cancel', 'T11', false, 'T11'],
  [R0728, 'http', 'server', INIT, 'none', 'L1', false, 'CN6'],
  [R0728, 'http', 'server', CALL, 'none', 'L1', false, 'CN6'],
  [R0728, 'http', 'server', LISTEN, 'none', 'L1', true, 'CN3'],
  [R0728, 'http', 'server', TASK, 'none', 'L1', false, 'CN6'],
];

const describeRequest = (r: OutboundRequest) => `${r.method}${r.task ? ' (task)' : ''}`;

describe('EraCancelPolicy matrix', () => {
  it('covers 5 revisions x 2 transports x 2 roles x 4 requests', () => {
    expect(MATRIX.length).toBe(80);
    expect(new Set(MATRIX.map(([r, t, role, req]) => `${r}|${t}|${role}|${describeRequest(req)}`)).size).toBe(
      80,
    );
  });

  it.each(MATRIX.map((row) => ({ row, label: `${row[0]} ${row[1]} ${row[2]} ${describeRequest(row[3])}` })))(
    '$label',
    ({ row: [revision, transport, role, request, signal, signalRule, maySend, maySendRule] }) => {
      const policy = eraCancelPolicy(revision, transport);
      expect(policy.outboundCancel(role, request)).toEqual({ value: signal, rule: signalRule });
      expect(policy.outboundCancel(role, request).value !== 'none').toBe(signal !== 'none');
      expect(policy.maySendCancelled(role, request)).toEqual({ value: maySend, rule: maySendRule });
      if (!request.task)
        expect(policy.maySendCancelled(role, request.method)).toEqual({ value: maySend, rule: maySendRule });
    },
  );
});

describe('EraCancelPolicy: disconnects and progress', () => {
  const DISCONNECT: Array<[Revision, TransportKind, boolean, string]> = [
    // stdio: the one channel is gone, so nothing in flight can finish [S8].
    ...REVISIONS.map((r): [Revision, TransportKind, boolean, string] => [r, 'stdio', true, 'S8']),
    [R1105, 'http', false, 'CN1'], // HTTP+SSE defines no disconnect; only the notification cancels
    [R0326, 'http', false, 'H13'],
    [R0618, 'http', false, 'H13'],
    [R1125, 'http', false, 'H13'],
    [R0728, 'http', true, 'CN24'],
  ];
  it.each(DISCONNECT)('disconnectIsCancel %s %s -> %s [%s]', (revision, transport, value, rule) => {
    expect(eraCancelPolicy(revision, transport).disconnectIsCancel()).toEqual({ value, rule });
  });

  const PROGRESS: Array<[Revision, Role, boolean, string]> = [
    ...[R1105, R0326, R0618, R1125].flatMap(
      (r): Array<[Revision, Role, boolean, string]> => [
        [r, 'client', true, 'PG1'],
        [r, 'server', true, 'PG1'],
      ],
    ),
    [R0728, 'client', false, 'PG2'],
    [R0728, 'server', true, 'PG2'],
  ];
  it.each(PROGRESS)('maySendProgress %s %s -> %s [%s], on both transports', (revision, role, value, rule) => {
    for (const transport of ['stdio', 'http'] as const) {
      expect(eraCancelPolicy(revision, transport).maySendProgress(role)).toEqual({ value, rule });
    }
  });
});

describe('EraCancelPolicy: the answers that matter most', () => {
  it('a legacy client may not cancel initialize: no notification, no signal [CN7]', () => {
    for (const revision of [R1105, R0326, R0618, R1125]) {
      for (const transport of ['stdio', 'http'] as const) {
        const policy = eraCancelPolicy(revision, transport);
        expect(policy.outboundCancel('client', INIT)).toEqual({ value: 'none', rule: 'CN7' });
        expect(policy.outboundCancel('client', INIT).value).toBe('none');
        expect(policy.maySendCancelled('client', 'initialize')).toEqual({ value: false, rule: 'CN7' });
      }
    }
  });

  it('a 2026-07-28 HTTP client cancels by closing the stream and sends no notification [CN24 CN22]', () => {
    const policy = eraCancelPolicy(R0728, 'http');
    expect(policy.outboundCancel('client', CALL)).toEqual({ value: 'close-stream', rule: 'CN24' });
    expect(policy.maySendCancelled('client', 'tools/call')).toEqual({ value: false, rule: 'CN22' });
    expect(policy.disconnectIsCancel()).toEqual({ value: true, rule: 'CN24' });
  });

  it('the same client on stdio sends the notification [CN25]', () => {
    const policy = eraCancelPolicy(R0728, 'stdio');
    expect(policy.outboundCancel('client', CALL)).toEqual({ value: 'notification', rule: 'CN25' });
    expect(policy.maySendCancelled('client', 'tools/call')).toEqual({ value: true, rule: 'CN25' });
  });
});

describe('eraCancelPolicy', () => {
  it('hands out one shared instance per revision and transport', () => {
    expect(eraCancelPolicy(R0618, 'http')).toBe(eraCancelPolicy(R0618, 'http'));
    expect(eraCancelPolicy(R0618, 'http')).not.toBe(eraCancelPolicy(R0618, 'stdio'));
    expect(eraCancelPolicy(R0618, 'http')).toBeInstanceOf(EraCancelPolicy);
    expect(eraCancelPolicy(R0618, 'http').revision).toBe(R0618);
    expect(eraCancelPolicy(R0618, 'http').transport).toBe('http');
  });

  it('throws for a revision it does not know', () => {
    expect(() => eraCancelPolicy('2099-01-01' as Revision, 'http')).toThrow(RangeError);
  });
});
