/**
 * The phrase rules of log_summary@2 that are not about severity: collector
 * notices (the window says lines are missing), redaction markers (a message
 * replaced wholesale), lifecycle starts (`service_restarted`) and the
 * fallback failure phrases ("an operation did not succeed").
 *
 * Each test is a small, readable pattern over one line or one message. They
 * deliberately match the whole message where the spec says "replaced" or
 * "begins", so a word later in a message never triggers them.
 */

// "N lines not returned" and the other ways collectors say they dropped lines.
const COLLECTOR_NOTICES: RegExp[] = [
  /\b\d[\d,]*\s+(?:more\s+|earlier\s+|older\s+|log\s+)?(?:lines?|messages?|entries|records|events)\s+(?:were\s+|was\s+|have\s+been\s+)?(?:not\s+returned|not\s+shown|omitted|skipped|dropped|suppressed|truncated|elided|lost|discarded)\b/i,
  /\b(?:suppressed|dropped|omitted|skipped|discarded|lost)\s+\d[\d,]*\s+(?:log\s+)?(?:lines?|messages?|entries|records|events)\b/i,
];

// Programs whose own records speak for the collector (journald rate limiting, rsyslog drops).
const COLLECTORS = new Set(['systemd-journald', 'journald', 'rsyslogd', 'syslog-ng', 'imuxsock']);

/**
 * True when a line is a collector notice saying that lines of the window are missing:
 * the phrase on a line of its own (no program tag) or from the log collector itself.
 * A program quoting the phrase in its own message is not the window speaking.
 */
export function isCollectorNotice(line: string, tag: string | null): boolean {
  if (tag !== null && !COLLECTORS.has(tag)) return false;
  return COLLECTOR_NOTICES.some((re) => re.test(line));
}

const MARKER_WORD = '(?:redacted|removed|withheld|scrubbed|censored|masked|elided|filtered|hidden|sanitized|sanitised)';
const MARKER = [
  // one bracketed marker: [REDACTED], <message redacted>, (removed by policy), [REDACTED: error text]
  `[\\[<({]\\s*[^\\]>)}]{0,60}\\b${MARKER_WORD}\\b[^\\]>)}]{0,60}[\\]>)}]\\.?`,
  // a bare marker, perhaps decorated: REDACTED, ***REDACTED***, message redacted by policy
  `[*#_=~-]*\\s*(?:(?:message|msg|content|text|payload|line|data|details?)\\s+)?${MARKER_WORD}(?:\\s+(?:by|for|per)\\s+[\\w -]{1,30})?\\s*[*#_=~-]*\\.?`,
  // blacked out: *****, █████
  '\\*{3,}',
  '[█▇■]{3,}',
].join('|');
// A severity label may stay in front of the marker: "ERROR [REDACTED]", "error: <redacted>".
const LEVEL_LABEL = '(?:[\\[<(]?(?:emerg|alert|crit|critical|fatal|panic|err|error|warn|warning|notice|info|debug)[\\]>)]?\\s*[:-]?\\s*)?';
const REDACTION = new RegExp(`^${LEVEL_LABEL}(?:${MARKER})$`, 'i');

/** True when a message is nothing but a redaction marker (the original text was replaced). */
export function isRedactionMarker(message: string): boolean {
  return REDACTION.test(message.trim());
}

// A message that BEGINS with a lifecycle word, or a systemd scheduled restart notice.
const LIFECYCLE = /^(?:started|starting|stopped|stopping|reloaded|restarting)\b/i;
const SCHEDULED_RESTART = /^(?:[^\s:]+:\s+)?scheduled\s+restart\b/i;

/** True when a record's message announces a service start, stop, reload or restart. */
export function isLifecycleMessage(message: string): boolean {
  return LIFECYCLE.test(message) || SCHEDULED_RESTART.test(message);
}

// A message-only record that names a systemd unit: "nginx.service: Failed with result 'exit-code'."
const UNIT_PREFIX = /^[\w@.:\\-]+\.(?:service|socket|timer|mount|automount|swap|target|path|slice|scope|device):\s/;

/** True when a message without a tag still names a systemd unit at its start. */
export function namesUnit(message: string): boolean {
  return UNIT_PREFIX.test(message);
}

// The fallback: a message saying that an operation did not succeed.
const DID_NOT_SUCCEED = new RegExp(
  [
    'timed?\\s*-?\\s*out', 'timeout', 'could\\s*n[o\']t', 'cannot', 'can\'t', 'can\\s+not', 'unable\\s+to',
    'refused', 'denied', 'not\\s+permitted', 'no\\s+such\\s+(?:file|device|host)', 'no\\s+space\\s+left',
    'not\\s+found', 'unreachable', 'not\\s+responding', 'did\\s*n[o\']t', 'unsuccessful', 'aborted', 'aborting',
    'rejected', 'gave\\s+up', 'giving\\s+up', 'non-?zero\\s+exit', 'exited\\s+with\\s+(?:code|status)\\s+[1-9]',
    'killed', 'segfault', 'segmentation\\s+fault', 'out\\s+of\\s+memory', 'broken\\s+pipe', 'reset\\s+by\\s+peer',
    'crashed', 'core\\s+dumped', 'dumped\\s+core', 'read-only\\s+file\\s*system', 'i/o\\s+error',
  ]
    .map((p) => `\\b${p}`)
    .join('|'),
  'i',
);

/** The fallback test: the message says that an operation did not succeed. */
export function saysDidNotSucceed(message: string): boolean {
  return DID_NOT_SUCCEED.test(message);
}
