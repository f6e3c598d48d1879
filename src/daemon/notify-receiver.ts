/**
 * The receiving end of sd_notify, for tests and the bench (not used by the daemon).
 *
 * Plays systemd's part: binds a unix datagram socket (a path, or `@name` for
 * the abstract namespace) and collects every datagram. Node cannot bind unix
 * datagram sockets, so a python3 child binds it and prints each datagram as
 * one JSON line; python3 is on the dev and CI machines (the daemon itself
 * never needs it).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const RECEIVER = `
import json, socket, sys
addr = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\\0" + addr[1:] if addr.startswith("@") else addr)
print(json.dumps("bound"), flush=True)
while True:
    print(json.dumps(s.recv(65536).decode()), flush=True)
`;

export interface NotifyReceiver {
  /** datagrams received and not yet taken by next() */
  messages: string[];
  /** the next datagram (waits for one) */
  next(): Promise<string>;
  /** resolves with the first datagram matching `re` (earlier ones are dropped) */
  waitFor(re: RegExp): Promise<string>;
  close(): void;
}

/** Bind a datagram socket at `addr` (path or @abstract); resolves once it is bound. */
export async function bindNotifyReceiver(addr: string): Promise<NotifyReceiver> {
  const child = spawn('python3', ['-c', RECEIVER, addr], { stdio: ['ignore', 'pipe', 'inherit'] });
  const messages: string[] = [];
  const waiters: ((m: string) => void)[] = [];
  let first = true;
  await new Promise<void>((bound, fail) => {
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`notify receiver for ${addr} exited with code ${code} before binding`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = JSON.parse(line) as string;
      if (first) {
        first = false; // the receiver's own "bound" line
        return bound();
      }
      const w = waiters.shift();
      if (w) w(m);
      else messages.push(m);
    });
  });
  const next = (): Promise<string> => (messages.length > 0 ? Promise.resolve(messages.shift()!) : new Promise((ok) => waiters.push(ok)));
  return {
    messages,
    next,
    async waitFor(re) {
      for (;;) {
        const m = await next();
        if (re.test(m)) return m;
      }
    },
    close: () => void child.kill('SIGKILL'),
  };
}
