// Deadline touch cost and armed timers. `inflight`: 10,000 DeadlineControllers, then 1,000,000 touches
// spread over them. `sdk-v1-style`: the reset the official SDK does on each progress
// (clearTimeout + setTimeout per touch, one timer per request).
// Prints one JSON line: { config, deadlines, touches, nsPerTouch, timersArmed, loopNsPerTouch }.
// loopNsPerTouch is the same loop calling a method that only bumps a counter on 10,000 plain objects: what
// the harness itself costs per touch, in the same process (nsPerTouch includes it).
import { DeadlineController, systemClock } from '@mcp-inflight/core';

const config = process.argv[2];
const deadlines = 10_000;
const touches = 1_000_000;

function inflight() {
  let armed = 0;
  const clock = {
    now: () => systemClock.now(),
    setTimer: (fn, ms) => {
      armed++;
      return systemClock.setTimer(fn, ms);
    },
  };
  const list = Array.from(
    { length: deadlines },
    () => new DeadlineController({ idleMs: 60_000, ceilingMs: 600_000, clock }),
  );
  const armedBefore = armed;
  const t0 = performance.now();
  for (let i = 0; i < touches; i++) list[i % deadlines].touch();
  const ns = ((performance.now() - t0) * 1e6) / touches;
  const timersArmedByTouches = armed - armedBefore;
  for (const d of list) d.dispose();
  return { nsPerTouch: +ns.toFixed(1), timersArmed: armedBefore, timersArmedByTouches };
}

function sdkStyle() {
  const timers = Array.from({ length: deadlines }, () => setTimeout(() => {}, 60_000));
  let armed = deadlines;
  const t0 = performance.now();
  for (let i = 0; i < touches; i++) {
    const k = i % deadlines;
    clearTimeout(timers[k]);
    timers[k] = setTimeout(() => {}, 60_000);
    armed++;
  }
  const ns = ((performance.now() - t0) * 1e6) / touches;
  for (const t of timers) clearTimeout(t);
  return { nsPerTouch: +ns.toFixed(1), timersArmed: deadlines, timersArmedByTouches: armed - deadlines };
}

function loop() {
  const list = Array.from({ length: deadlines }, () => ({
    count: 0,
    touch() {
      this.count++;
    },
  }));
  const t0 = performance.now();
  for (let i = 0; i < touches; i++) list[i % deadlines].touch();
  return +(((performance.now() - t0) * 1e6) / touches).toFixed(1);
}

const result = { inflight, 'sdk-v1-style': sdkStyle }[config]();
console.log(JSON.stringify({ config, deadlines, touches, ...result, loopNsPerTouch: loop() }));
process.exit(0);
