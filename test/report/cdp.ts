/**
 * The requests one page makes, as Chromium itself attributes them: the
 * browser runs headless with its DevTools protocol on a pipe (file
 * descriptors 3 and 4, messages ended by a NUL byte, no WebSocket needed),
 * the test attaches to the page's own target, enables its Network domain and
 * navigates it. Only that target's `Network.requestWillBeSent` events count,
 * so the browser's own background traffic (component updates, sign-in,
 * network time: whatever a Chromium release adds next) is never mistaken for
 * the page's, and nothing has to list the vendor's hosts.
 */
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

interface Message { id?: number; method?: string; params?: Record<string, unknown>; sessionId?: string; result?: Record<string, unknown>; error?: { message: string } }

/** Open `url` in headless Chromium and return the URL of every request the page made (its own document left out). */
export async function pageRequests(chromium: string, url: string, args: readonly string[], settleMs = 1500): Promise<string[]> {
  const child = spawn(chromium, [...args, '--remote-debugging-pipe', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr = (stderr + d).slice(-4000); });
  const replies = new Map<number, (m: Message) => void>();
  const events: Message[] = [];
  const watchers: ((m: Message) => void)[] = [];
  let buffered = '';
  fromBrowser.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\0')) >= 0) {
      const m = JSON.parse(buffered.slice(0, end)) as Message;
      buffered = buffered.slice(end + 1);
      if (m.id !== undefined) replies.get(m.id)?.(m);
      else {
        events.push(m);
        for (const w of watchers) w(m);
      }
    }
  });
  const exited = new Promise<void>((res) => child.on('exit', () => res()));
  let next = 0;
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> =>
    new Promise((res, rej) => {
      const id = ++next;
      const timer = setTimeout(() => rej(new Error(`chromium did not answer ${method} within 30 s\n${stderr}`)), 30_000);
      replies.set(id, (m) => {
        clearTimeout(timer);
        replies.delete(id);
        if (m.error) rej(new Error(`${method}: ${m.error.message}`));
        else res(m.result ?? {});
      });
      toBrowser.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
    });
  try {
    const { targetInfos } = (await send('Target.getTargets')) as { targetInfos: { targetId: string; type: string }[] };
    const target = targetInfos.find((t) => t.type === 'page');
    if (!target) throw new Error(`chromium opened no page\n${stderr}`);
    const { sessionId } = (await send('Target.attachToTarget', { targetId: target.targetId, flatten: true })) as { sessionId: string };
    await send('Network.enable', {}, sessionId);
    await send('Page.enable', {}, sessionId);
    const loaded = new Promise<void>((res) => watchers.push((m) => { if (m.sessionId === sessionId && m.method === 'Page.loadEventFired') res(); }));
    await send('Page.navigate', { url }, sessionId);
    await Promise.race([loaded, new Promise((res) => setTimeout(res, 30_000))]);
    // what a page fetches after its load event (a lazy image, a timer) has this long to show itself
    await new Promise((res) => setTimeout(res, settleMs));
    return events
      .filter((m) => m.sessionId === sessionId && m.method === 'Network.requestWillBeSent')
      .map((m) => (m.params as { request: { url: string } }).request.url)
      .filter((u) => u !== url);
  } finally {
    await Promise.race([send('Browser.close').catch(() => undefined), new Promise((res) => setTimeout(res, 5000))]);
    child.kill('SIGKILL');
    await exited;
  }
}
