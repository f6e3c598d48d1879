/**
 * Rung 0a, strict parse: the text is exactly one JSON value (whitespace allowed
 * around it). This is the common path and costs one JSON.parse; text that
 * cannot start or end a JSON value is turned away without throwing, and a
 * parse that does throw captures no stack trace (a failed parse is an
 * expected outcome here, not a bug, and stack capture dominated its cost).
 */

const JSON_START = /^\s*[{["\-0-9tfn]/;
const JSON_END = /[}\]"el0-9]\s*$/;

/** Parse `text` as strict JSON; undefined when it is not. */
export function parseStrict(text: string): { value: unknown } | undefined {
  if (!JSON_START.test(text) || !JSON_END.test(text)) return undefined;
  return quietly(() => ({ value: JSON.parse(text) as unknown }));
}

/** Run `fn`, returning undefined instead of throwing, without paying for a stack trace. */
export function quietly<T>(fn: () => T): T | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return fn();
  } catch {
    return undefined;
  } finally {
    Error.stackTraceLimit = limit;
  }
}
