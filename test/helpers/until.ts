/**
 * Polling for a condition a real process brings about (a file appears, a
 * status changes): the value once `f` returns one, or an error naming what
 * was awaited. Shared by the end-to-end suites, which watch real daemons.
 */
export async function until<T>(what: string, f: () => T | null | undefined | false | Promise<T | null | undefined | false>, ms = 30_000, everyMs = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
