/**
 * P9, no network at run time: an `http` provider may only talk to a server on
 * this machine (llama-server, Ollama). The check is on the endpoint's host as
 * written — a loopback IP literal or `localhost` — never on a DNS answer, so
 * a name that resolves elsewhere cannot pass. It does not stop a local server
 * from reaching out itself; that is the server's configuration.
 */

/** True when a URL's host is a loopback address. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host === '[::1]' || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Throw when a manifest's endpoint is not on loopback; the registry calls this at load, the adapter again per call. */
export function assertLoopback(m: { id: string; endpoint: string }): void {
  if (!isLoopbackUrl(m.endpoint)) {
    throw new Error(
      `provider manifest "${m.id}": endpoint ${m.endpoint} is not on loopback; picoharness makes no network calls at run time (P9) — run the server on this machine and use http://127.0.0.1:PORT/v1`,
    );
  }
}
