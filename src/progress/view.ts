/**
 * Where progress is shown: permanent lines, plus one live line that changes.
 *
 * Why: on a terminal the tokens-so-far counter should be one line rewritten
 * in place (`\r`, erase to the end of the line), not a scroll of numbers; in
 * a pipe or a log file (systemd, CI, `2> run.log`) there is no "in place",
 * so the live text becomes a plain line every `plainEveryMs`, the first once
 * it has been live that long (a quick call prints none). A
 * permanent line first erases the live line, then puts it back below. On a
 * terminal the live line is cut to the terminal's width (a wrapped line
 * cannot be rewritten with `\r`); it is transient, and every fact it shows
 * is also in the permanent lines and the ledger. It knows nothing of steps
 * or ledgers (steps.ts does). Every text it is given has its control
 * characters shown as escapes (the log formatter's `visible`): a ledger's
 * text cannot move the cursor, ring the bell or retitle the terminal.
 */
import { visible, visibleText } from '../base/log-pretty.js';

export interface ProgressOutput {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ViewOptions {
  /** rewrite one line in place; default: whether the output is a terminal */
  tty?: boolean;
  /** without a terminal, the live text is printed at most this often (ms); default 2000 */
  plainEveryMs?: number;
  now?: () => number;
}

const ERASE = '\r\x1b[K';

export class LiveView {
  private readonly tty: boolean;
  private readonly every: number;
  private readonly now: () => number;
  private shown: string | null = null;
  private lastPlain = -Infinity;
  /** when the live text appeared (plain output), or null while there is none */
  private since: number | null = null;

  constructor(private readonly out: ProgressOutput, o: ViewOptions = {}) {
    this.tty = o.tty ?? !!out.isTTY;
    this.every = o.plainEveryMs ?? 2000;
    this.now = o.now ?? Date.now;
  }

  /** A line that stays. */
  line(raw: string): void {
    const text = visibleText(raw); // ledger text never moves the cursor or colours the screen
    if (this.tty && this.shown !== null) this.out.write(ERASE);
    this.out.write(`${text}\n`);
    if (this.tty && this.shown !== null) this.out.write(this.fit(this.shown));
  }

  /** The live text (null: nothing in flight). A plain output prints it when `every` ms have passed since the last. */
  live(raw: string | null): void {
    const text = raw === null ? null : visible(raw);
    if (!this.tty) {
      const now = this.now();
      if (text === null) {
        this.since = null;
        return;
      }
      // a call shorter than `every` prints no live line at all; a long one, one line per `every`
      this.since ??= now;
      if (now - this.since < this.every || now - this.lastPlain < this.every) return;
      this.lastPlain = now;
      this.out.write(`${text}\n`);
      return;
    }
    if (text === this.shown) return;
    this.shown = text;
    this.out.write(text === null ? ERASE : `${ERASE}${this.fit(text)}`);
  }

  /** Leave the output with nothing half-drawn. */
  close(): void {
    this.live(null);
  }

  private fit(text: string): string {
    const cols = this.out.columns ?? 80;
    return text.length < cols ? text : `${text.slice(0, Math.max(1, cols - 2))}…`;
  }
}
