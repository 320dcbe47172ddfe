// examples/web in a real browser: a headless Chromium driven by playwright-core (which never downloads a
// browser). The page (one origin) calls examples/server (another origin, whose --allowed-origins names
// the page's) with the bundled @mcp-inflight/http/fetch client, for both eras; the assertions read the DOM.
// The browser is CHROMIUM_PATH, else a system Chromium, else the one @sparticuz/chromium ships in its npm
// tarball (unpacked to the temp directory on first use), so a machine with only Node and the npm registry
// runs this test too; it never skips.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

/** Where the browser comes from, in order: the environment, the system, the npm package. */
async function findChromium(): Promise<{ path: string; from: string }> {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH is ${fromEnv}, which does not exist`);
    return { path: fromEnv, from: 'CHROMIUM_PATH' };
  }
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const dir of dirs)
    for (const name of ['chromium', 'chromium-browser'])
      if (existsSync(join(dir, name))) return { path: join(dir, name), from: 'PATH' };
  if (existsSync('/usr/bin/chromium')) return { path: '/usr/bin/chromium', from: 'system' };
  // @sparticuz/chromium 153 declares Node 22 in `engines`, but runs on Node 20 (checked on Node 20.20 with
  // Debian): executablePath() unpacks its brotli-compressed Chromium once and returns the binary's path.
  const { default: packaged } = await import('@sparticuz/chromium');
  return { path: await packaged.executablePath(), from: '@sparticuz/chromium' };
}

const SERVE = fileURLToPath(new URL('../serve.mjs', import.meta.url));

let serve: ChildProcess | undefined;
let context: BrowserContext | undefined;
let profile: string | undefined;
let shots: string;
let pageUrl: string;
let mcpUrl: string;

beforeAll(async () => {
  const browser = await findChromium();
  const version = execFileSync(browser.path, ['--version'], { encoding: 'utf8' }).trim();
  console.log(`browser: ${version} at ${browser.path} (from ${browser.from})`);
  shots = await mkdtemp(join(tmpdir(), 'mcp-inflight-web-shots-'));
  console.log(`screenshots: ${shots}`);
  profile = await mkdtemp(join(tmpdir(), 'mcp-inflight-web-profile-'));

  serve = spawn(process.execPath, [SERVE, '--port', '0', '--mcp-port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  serve.stderr!.on('data', (chunk) => {
    err += String(chunk);
  });
  pageUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    serve!.stdout!.on('data', (chunk) => {
      out += String(chunk);
      const page = /^page (\S+)$/m.exec(out);
      const mcp = /^mcp (\S+)$/m.exec(out);
      if (page && mcp) {
        mcpUrl = mcp[1]!;
        resolve(page[1]!);
      }
    });
    serve!.once('exit', (code) => reject(new Error(`serve.mjs exited ${code}: ${err}`)));
  });

  context = await chromium.launchPersistentContext(profile, {
    executablePath: browser.path,
    headless: true,
    // `profile` is a new empty directory: playwright passes it as --user-data-dir.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 120_000); // unpacking the packaged Chromium the first time takes a few seconds, more under load

afterAll(async () => {
  await context?.close();
  if (serve && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve!.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** Fills the form and runs `work`; returns the new call's list item. */
async function run(
  page: Page,
  fields: { steps: number; intervalMs: number; idleMs?: number; ceilingMs?: number },
): Promise<Locator> {
  const before = await page.locator('.call').count();
  await page.fill('input[name=steps]', String(fields.steps));
  await page.fill('input[name=intervalMs]', String(fields.intervalMs));
  await page.fill('input[name=idleMs]', String(fields.idleMs ?? 10_000));
  await page.fill('input[name=ceilingMs]', String(fields.ceilingMs ?? 30_000));
  await page.click('#run');
  return page.locator(`.call[data-call="${before + 1}"]`);
}

async function endingOf(call: Locator): Promise<string | undefined> {
  await call.locator('.ended:not(:empty)').waitFor({ timeout: 20_000 });
  return (await call.getAttribute('data-ended')) ?? undefined;
}

async function serverStatus(page: Page): Promise<{ running: number; completed: number; cancelled: number }> {
  await page.evaluate(() => {
    document.querySelector('#status')!.textContent = '';
  });
  await page.click('#refresh-status');
  await page.locator('#status:not(:empty)').waitFor({ timeout: 20_000 });
  return JSON.parse((await page.textContent('#status')) ?? '');
}

for (const revision of ['2026-07-28', '2025-11-25'] as const) {
  it(`${revision}: progress, Stop, idle limit and ceiling, as the page shows them`, async () => {
    const page = await context!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    try {
      await page.goto(`${pageUrl}?revision=${revision}`);
      await expect.poll(() => page.textContent('#connected')).toBe(`connected, ${revision}`);
      await page.locator('#tools .tool').nth(1).waitFor({ timeout: 20_000 }); // tools/list answered
      expect(await page.locator('#tools .tool').allTextContents()).toEqual([
        expect.stringMatching(/^work: /),
        expect.stringMatching(/^status: /),
        expect.stringMatching(/^confirm: /),
      ]);
      // Nothing left running from an earlier test, so the counts below are this test's alone.
      await expect.poll(async () => (await serverStatus(page)).running, { timeout: 20_000 }).toBe(0);
      const start = await serverStatus(page);

      // Progress reaches the page: the bar's width is progress / total of what was reported.
      const long = await run(page, { steps: 100, intervalMs: 100 });
      await expect
        .poll(async () => Number(await long.getAttribute('data-progress')), { timeout: 20_000 })
        .toBeGreaterThanOrEqual(3);
      const shown = await long.evaluate((item) => {
        const fill = item.querySelector('.fill')!.getBoundingClientRect().width;
        const bar = item.querySelector('.bar')!.getBoundingClientRect().width;
        const el = item as HTMLElement;
        return { fill, bar, progress: Number(el.dataset.progress), total: Number(el.dataset.total) };
      });
      expect(shown.total).toBe(100);
      expect(Math.abs(shown.fill - (shown.bar * shown.progress) / shown.total)).toBeLessThanOrEqual(1.5);
      expect(await long.locator('.message').textContent()).toMatch(/^call \d+: step \d+ of 100$/);
      await page.screenshot({ path: join(shots, `${revision}-progress.png`) });

      // Stop aborts that call's signal: the page says so, and the server counted a cancel.
      await long.locator('.stop').click();
      expect(await endingOf(long)).toBe('cancelled by you');
      await expect
        .poll(async () => (await serverStatus(page)).cancelled, { timeout: 20_000 })
        .toBe(start.cancelled + 1);

      const done = await run(page, { steps: 3, intervalMs: 20 });
      expect(await endingOf(done)).toBe('completed');
      expect(await done.locator('.fill').evaluate((fill) => (fill as HTMLElement).style.width)).toBe('100%');

      // No progress within the idle limit; progress that keeps coming but outlasts the ceiling.
      const idle = await run(page, { steps: 2, intervalMs: 3_000, idleMs: 300 });
      const ceiling = await run(page, { steps: 40, intervalMs: 50, ceilingMs: 600 });
      expect(await endingOf(idle)).toBe('idle limit');
      expect(await endingOf(ceiling)).toBe('ceiling');
      expect(Number(await ceiling.getAttribute('data-progress'))).toBeGreaterThan(0);
      // The server saw every one end: Stop, the idle limit and the ceiling as cancels (on 2026-07-28 the
      // client closed the streams; on 2025-11-25 it POSTed notifications/cancelled), one completed.
      await expect.poll(async () => (await serverStatus(page)).running, { timeout: 20_000 }).toBe(0);
      expect(await serverStatus(page)).toEqual({
        running: 0,
        completed: start.completed + 1,
        cancelled: start.cancelled + 3,
        stopped: start.stopped,
      });
      await page.screenshot({ path: join(shots, `${revision}-endings.png`), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
}

it('a page from an origin outside --allowed-origins is refused, and says so', async () => {
  // serve.mjs allows http://127.0.0.1:PORT only; http://localhost:PORT is loopback (allowed by the
  // adapter's default) but not on that list, so this shows the flag is applied: the server answers 403
  // without CORS headers, which the page can only see as a network error.
  const page = await context!.newPage();
  try {
    await page.goto(pageUrl.replace('127.0.0.1', 'localhost'));
    await expect
      .poll(() => page.textContent('#connected'), { timeout: 20_000 })
      .toBe('refused (network/CORS)');
    expect(await page.locator('#tools .tool').count()).toBe(0);
    await page.screenshot({ path: join(shots, 'refused.png') });
    // At the server: the preflight from this page's origin is refused with 403; the allowed origin's is not.
    const preflight = (origin: string) =>
      fetch(mcpUrl, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    expect((await preflight(new URL(page.url()).origin)).status).toBe(403);
    expect((await preflight(new URL(pageUrl).origin)).status).toBeLessThan(300);
  } finally {
    await page.close();
  }
});
