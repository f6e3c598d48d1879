// Issue 15 item 8: "A test renders it in headless Chromium (Debian's `chromium`, installed by
// `.ci/run` if missing) and checks the charts are drawn." The page is written by the real `pico
// report` (dist/) from real sessions, and opened from disk in real headless Chromium: every chart's
// marks have a laid-out size, a screenshot has ink and colour, and the page asks the network for
// nothing: the requests counted are the ones Chromium attributes to the page itself (its DevTools
// protocol, test/report/cdp.ts), never the browser's own background traffic, and a control page
// shows the count does see a page's request. Issue 37 item 1: a host list of the browser's own
// calls failed with every Chromium release that called one more. Skipped, saying why, when there
// is no chromium on PATH.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAIN_JS } from '../daemon/spawn.js';
import { tempDir } from '../helpers/temp.js';
import { pageRequests } from './cdp.js';
import { buildReportRoot, type ReportRoot } from './fixture.js';
import { decodePng, inkOf } from './png.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p))
  ?? (spawnSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).stdout.trim() || null);
if (!CHROMIUM) console.warn('test/report/chromium.test.ts: no chromium on PATH, the browser checks are skipped (apt-get install chromium; .ci/run installs it)');
const CHART_IDS = ['jobs', 'durations', 'passrate', 'signatures', 'gaps', 'fixes'];

function pico(args: string[], cwd?: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN_JS, ...args], { encoding: 'utf8', timeout: 60_000, ...(cwd ? { cwd } : {}) });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The flags every run here gets: a fresh profile, and the browser's own housekeeping (background
 * networking, component updates, sync, sign-in, safe browsing, field trials, crash reports) off.
 * They make the browser quieter; what the tests count is the page's requests all the same.
 */
function browserFlags(): string[] {
  return [
    '--headless', '--disable-gpu', '--no-sandbox', `--user-data-dir=${tempDir('pico-chromium-')}`, '--no-first-run', '--hide-scrollbars',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-default-apps', '--disable-extensions',
    '--disable-client-side-phishing-detection', '--disable-domain-reliability', '--no-pings', '--disable-breakpad', '--no-default-browser-check',
    '--disable-field-trial-config', '--metrics-recording-only', '--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication,CertificateTransparencyComponentUpdater,NetworkTimeServiceQuerying',
  ];
}

/** Run headless chromium on a file; resolves with its stdout (the DOM, for --dump-dom). */
function chromium(file: string, extra: string[]): Promise<string> {
  const args = [...browserFlags(), ...extra, `file://${file}`];
  return new Promise((res, rej) => {
    execFile(CHROMIUM!, args, { timeout: 90_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => (err ? rej(new Error(`${err.message}\n${stderr.slice(-2000)}`)) : res(stdout)));
  });
}

let r: ReportRoot;
let out: string;
let html: string;
beforeAll(async () => {
  r = await buildReportRoot();
  out = join(tempDir('pico-report-out-'), 'report.html');
  const run = pico(['report', '--root', r.root, '--out', out]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`wrote ${out}`);
  html = readFileSync(out, 'utf8');
}, 120_000);

describe('pico report, the command', () => {
  it('the report never writes into the checkout: by default it writes report.html in the root and says where', () => {
    const checkout = join(import.meta.dirname, '..', '..');
    const before = existsSync(join(checkout, 'report.html'));
    // run from the checkout, as issue 37 found it: the page lands in the root, not in the current folder
    const run = pico(['report', '--root', r.root], checkout);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`wrote ${join(r.root, 'report.html')}`);
    expect(readFileSync(join(r.root, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/);
    expect(existsSync(join(checkout, 'report.html'))).toBe(before);
    // and from any other folder the same
    const cwd = tempDir('pico-report-cwd-');
    expect(pico(['report', '--root', r.root], cwd).code).toBe(0);
    expect(existsSync(join(cwd, 'report.html'))).toBe(false);
  });

  it('--json prints the aggregated data instead of a page', () => {
    const run = pico(['report', '--root', r.root, '--json', '--days', '7']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ report: 'report@1', days: 7, counts: { sessions: 6 } });
  });

  it('bad input exits 2 and says what to change', () => {
    const days = pico(['report', '--root', r.root, '--days', '0']);
    expect(days.code).toBe(2);
    expect(days.stderr).toMatch(/--days must be a whole number of days, 1 or more, got "0"/);
    const none = tempDir('pico-report-none-');
    const notRoot = pico(['report', '--root', none]);
    expect(notRoot.code).toBe(2);
    expect(notRoot.stderr).toContain(`no root at ${none}: the folder holds no manifests/ or sessions/ (pico init ${none} makes one)`);
    const noFolder = pico(['report', '--root', r.root, '--out', join(r.root, 'no', 'such', 'r.html')]);
    expect(noFolder.code).toBe(2);
    expect(noFolder.stderr).toMatch(/does not exist; create it/);
  });

  it('the page names no URL, loads no script, font, stylesheet or image, and forbids fetching', () => {
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/url\((?!#)|@import|@font-face/i); // url(#id): a gradient in the same page
    // an http(s) URL may appear only as escaped text a ledger held, never inside a tag
    // (ledger text is escaped, so every `<` in the file opens a tag the page itself wrote)
    for (const tag of html.match(/<[^>]*>/g)!) {
      expect(tag).not.toMatch(/https?:/i);
      expect(tag).not.toMatch(/\s(src|href|xlink:href|srcset|action|formaction|background)\s*=/i);
    }
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    // one page holds every chart's SVG: an id vega repeats per chart (gradient_0) would cross-wire them
    const ids = [...html.matchAll(/\bid="([^"]*)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe.skipIf(!CHROMIUM)('the page in headless Chromium', () => {
  it('every chart is an SVG whose marks Chromium lays out with a size, and no ledger text became markup', async () => {
    // a copy of the page with one probe script, allowed by a nonce: it measures the drawn marks
    const probe = `<script nonce="probe">
const out = { title: document.title, scripts: document.scripts.length, imgs: document.images.length, charts: {} };
for (const c of document.querySelectorAll('[data-chart]')) {
  const svg = c.querySelector('svg');
  const marks = [...c.querySelectorAll('.role-mark > path, .role-mark > rect')].map((m) => m.getBoundingClientRect());
  out.charts[c.dataset.chart] = { svg: svg ? [svg.getBoundingClientRect().width, svg.getBoundingClientRect().height] : null,
    marks: marks.length, sized: marks.filter((b) => b.width > 0 && b.height > 0).length };
}
const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out); document.body.append(pre);
</script>`;
    const probed = join(tempDir('pico-report-probe-'), 'probe.html');
    writeFileSync(probed, html.replace("default-src 'none';", "default-src 'none'; script-src 'nonce-probe';").replace('</body>', `${probe}</body>`));
    // through a proxy that refuses every connection (nothing listens on port 9): drawing needs no network
    const dom = await chromium(probed, ['--dump-dom', '--virtual-time-budget=5000', '--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=<-loopback>']);
    const m = /<pre id="probe">([^<]*)<\/pre>/.exec(dom);
    expect(m, 'the probe ran and wrote its result into the DOM').not.toBeNull();
    const res = JSON.parse(m![1]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as {
      title: string; scripts: number; imgs: number; charts: Record<string, { svg: [number, number] | null; marks: number; sized: number }>;
    };
    expect(res.title).toMatch(/^picoharness report/);
    expect(res.scripts).toBe(1); // the probe itself
    expect(res.imgs).toBe(0);
    expect(Object.keys(res.charts).sort()).toEqual([...CHART_IDS].sort());
    for (const id of CHART_IDS) {
      const c = res.charts[id]!;
      expect(c.svg![0], `${id}: the svg has a width`).toBeGreaterThan(200);
      expect(c.svg![1], `${id}: the svg has a height`).toBeGreaterThan(50);
      expect(c.sized, `${id}: marks with a non-zero size`).toBeGreaterThan(0);
    }
    expect(res.charts.jobs!.sized).toBe(5); // one bar per day and outcome: answered on three days, partial on two
    // the page as written (no probe): Chromium parses it to the same charts and no script at all
    const plain = await chromium(out, ['--dump-dom']);
    expect(plain.match(/<div class="chart" data-chart="[a-z]+"><svg/g)).toHaveLength(CHART_IDS.length);
    expect(plain).not.toMatch(/<script|<img/i);
    expect(plain).toContain('&lt;script&gt;document.title=');
  }, 120_000);

  it('a screenshot of the page is drawn: ink on most of the top and the charts in colour', async () => {
    const shot = join(tempDir('pico-report-shot-'), 'shot.png');
    await chromium(out, [`--screenshot=${shot}`, '--window-size=1280,2000']);
    const px = decodePng(readFileSync(shot));
    expect([px.width, px.height]).toEqual([1280, 2000]);
    const { ink, colour, total } = inkOf(px);
    expect(ink / total).toBeGreaterThan(0.03);
    expect(colour).toBeGreaterThan(5000);
  }, 120_000);

  it('the page makes no request of its own, while the same count sees a control page\'s image', async () => {
    // a proxy nothing listens behind (port 9): whatever the browser sends anyway never leaves the box
    const offline = [...browserFlags(), '--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=<-loopback>'];
    const control = join(tempDir('pico-report-control-'), 'control.html');
    mkdirSync(join(control, '..'), { recursive: true });
    writeFileSync(control, '<!doctype html><p>control</p><img src="http://report-test.invalid/pixel.png">');
    const seen = await pageRequests(CHROMIUM!, `file://${control}`, offline);
    expect(seen, 'the count sees a page\'s own request').toContain('http://report-test.invalid/pixel.png');
    expect(await pageRequests(CHROMIUM!, `file://${out}`, offline), 'requests the report page made').toEqual([]);
  }, 120_000);
});
