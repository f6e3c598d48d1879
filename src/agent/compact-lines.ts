/**
 * Compacting line-oriented output (logs, command output) to a token budget.
 *
 * A model reading a long log needs its failures, how it starts and how it
 * ends, and to be told plainly what it was not shown. So lines are kept in
 * priority order — every failure line first (the log_summary@2 vocabulary:
 * rule 1's severity words and rule 2's syslog priority, the same matcher the
 * parser and the cross-check use), then the head and the tail alternately
 * (first, last, second, second-to-last, …) — as long as they fit; a line that
 * does not fit is skipped and the next tried. Each run of cut lines becomes
 * one marker line `[… 1,234 lines cut: 5..1238 …]` (line numbers of the
 * input, 1-based, inclusive). Lines are kept whole and in file order; nothing
 * is reworded. Sizes are planned with per-line counts and the result is
 * counted again whole, giving back the last-added lines until it truly fits.
 */
import { isRule1FailureLine, isRule2FailureLine } from './failure-lines.js';
import type { TokenCounter } from './tokens.js';

export interface LineCut {
  from_line: number;
  to_line: number;
}

export interface LinesCompacted {
  text: string;
  cut: LineCut[];
  failure_lines: { total: number; kept: number };
}

/** A failure line by the log_summary@2 rules 1 and 2. */
export function isFailureLine(line: string): boolean {
  return isRule1FailureLine(line) || isRule2FailureLine(line);
}

/** 1234567 → "1,234,567", the same on every machine (no locale). */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The marker that stands for lines from..to (1-based, inclusive). */
export function cutMarker(from: number, to: number): string {
  const n = to - from + 1;
  return `[… ${groupDigits(n)} line${n === 1 ? '' : 's'} cut: ${from}..${to} …]`;
}

/** Keep-order of line indices: failure lines, then head and tail alternately. */
function priorityOrder(lines: readonly string[]): number[] {
  const order: number[] = [];
  const taken = new Uint8Array(lines.length);
  lines.forEach((l, i) => {
    if (isFailureLine(l)) {
      order.push(i);
      taken[i] = 1;
    }
  });
  for (let lo = 0, hi = lines.length - 1; lo <= hi; lo++, hi--) {
    for (const i of lo === hi ? [lo] : [lo, hi]) {
      if (!taken[i]) {
        order.push(i);
        taken[i] = 1;
      }
    }
  }
  return order;
}

function render(lines: readonly string[], kept: Uint8Array, trailingNewline: boolean): { text: string; cut: LineCut[] } {
  const out: string[] = [];
  const cut: LineCut[] = [];
  for (let i = 0; i < lines.length; ) {
    if (kept[i]) {
      out.push(lines[i]!);
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && !kept[j]) j++;
    cut.push({ from_line: i + 1, to_line: j });
    out.push(cutMarker(i + 1, j));
    i = j;
  }
  return { text: out.join('\n') + (trailingNewline ? '\n' : ''), cut };
}

/** Compact lines to at most `budget` tokens; throws when not even one cut marker fits. */
export function compactLines(text: string, budget: number, counter: TokenCounter): LinesCompacted {
  const trailingNewline = text.endsWith('\n');
  const lines = (trailingNewline ? text.slice(0, -1) : text).split('\n');
  const n = lines.length;
  const kept = new Uint8Array(n);
  // plan with the dearest marker this input can need: the largest count and line numbers
  const markerCost = counter.count(`[… ${groupDigits(n)} lines cut: ${n}..${n} …]`) + 1;
  let planned = markerCost; // everything cut: one marker
  const added: { line: number; cost: number }[] = [];
  for (const i of priorityOrder(lines)) {
    const left = i > 0 && !kept[i - 1];
    const right = i < n - 1 && !kept[i + 1];
    const gapDelta = (left ? 1 : 0) + (right ? 1 : 0) - 1;
    const cost = counter.count(lines[i]!) + 1 + gapDelta * markerCost;
    if (planned + cost > budget) continue;
    kept[i] = 1;
    planned += cost;
    added.push({ line: i, cost });
  }
  for (;;) {
    const { text: out, cut } = render(lines, kept, trailingNewline);
    const tokens = counter.count(out);
    if (tokens <= budget) {
      const failures = lines.filter(isFailureLine).length;
      const keptFailures = lines.filter((l, i) => kept[i] && isFailureLine(l)).length;
      return { text: out, cut, failure_lines: { total: failures, kept: keptFailures } };
    }
    // the whole counts more than its lines did (a tokenizer is not additive): give back the last-added lines
    // until their planned cost covers the excess, at least one, then count again
    if (added.length === 0) throw new RangeError(`compaction: a budget of ${budget} tokens cannot hold even the cut marker; raise tool_output_tokens`);
    for (let freed = 0; added.length > 0 && (freed === 0 || freed < tokens - budget); ) {
      const last = added.pop()!;
      kept[last.line] = 0;
      freed += Math.max(1, last.cost);
    }
  }
}
