/**
 * Fixed messages whose level their program sets but a plain log file does
 * not print: a syslog file written with rsyslog's traditional template drops
 * the priority, so "systemd[1]: Failed to start nginx.service" arrives with
 * no level column although systemd logged it at err. Each form below is
 * anchored at the head of the message of one program (by its tag), and its
 * level is the one the program's source gives it — a fixed sentence of a
 * known writer, never a word found anywhere in a line.
 *
 * A line that the journal or the kernel ring hands over carries its level
 * already and never reaches this table.
 */
import type { Level } from './levels.js';

interface Form {
  /** the program tag the message comes from (null: a line with no tag, as in apt's term.log) */
  tag: RegExp | null;
  /** the head of the message, after an optional "unit.service: " */
  head: RegExp;
  level: Level;
}

// systemd unit messages may start with the unit's name: "nginx.service: Failed with result 'exit-code'."
const UNIT = /^[\w@.:\\-]+\.(?:service|socket|timer|mount|automount|swap|target|path|slice|scope|device): /;

const FORMS: Form[] = [
  // systemd 252 src/core/job.c job_done_messages: JOB_FAILED and JOB_TIMEOUT at LOG_ERR, JOB_DEPENDENCY at LOG_WARNING
  { tag: /^systemd$/, head: /^Failed to start /, level: 'err' },
  { tag: /^systemd$/, head: /^Timed out starting /, level: 'err' },
  { tag: /^systemd$/, head: /^Dependency failed for /, level: 'warning' },
  // src/core/unit.c unit_log_failure (LOG_WARNING); service.c "Start request repeated too quickly." (warning),
  // "Main process exited, code=…" on failure (LOG_NOTICE), "Scheduled restart job" (LOG_INFO)
  { tag: /^systemd$/, head: /^Failed with result '/, level: 'warning' },
  { tag: /^systemd$/, head: /^Start request repeated too quickly\./, level: 'warning' },
  { tag: /^systemd$/, head: /^Main process exited, code=/, level: 'notice' },
  { tag: /^systemd$/, head: /^Scheduled restart job, restart counter is at /, level: 'info' },
  { tag: /^systemd$/, head: /^(?:Started|Starting|Stopped|Stopping|Finished|Reached target|Reloaded|Reloading|Listening on|Closed|Mounted|Unmounted|Deactivated successfully) /, level: 'info' },
  // Linux mm/oom_kill.c: oom_kill_process pr_err "Out of memory: Killed process", dump_header pr_warn "invoked oom-killer"
  { tag: /^kernel$/, head: /^(?:\[\s*\d+\.\d+\] )?Out of memory: Killed process /, level: 'err' },
  { tag: /^kernel$/, head: /^(?:\[\s*\d+\.\d+\] )?\S+ invoked oom-killer: /, level: 'warning' },
  // fs/ext4/super.c __ext4_error printk(KERN_CRIT "EXT4-fs error (device …)"); block/blk-mq.c blk_print_req_error pr_err "I/O error, dev"
  { tag: /^kernel$/, head: /^(?:\[\s*\d+\.\d+\] )?EXT4-fs error \(device /, level: 'crit' },
  { tag: /^kernel$/, head: /^(?:\[\s*\d+\.\d+\] )?(?:blk_update_request: )?I\/O error, dev \S+, sector /, level: 'err' },
  // drivers/hwmon/raspberrypi-hwmon.c: dev_crit "Undervoltage detected!", dev_info "Voltage normalised"
  { tag: /^kernel$/, head: /^(?:\[\s*\d+\.\d+\] )?(?:hwmon hwmon\d+: )?Under-?voltage detected!/, level: 'crit' },
  { tag: /^kernel$/, head: /^(?:\[\s*\d+\.\d+\] )?(?:hwmon hwmon\d+: )?Voltage normalised/, level: 'info' },
  // arch/*/mm/fault.c show_signal_msg: "segfault at" at KERN_INFO for any task but init
  { tag: /^kernel$/, head: /^(?:\[\s*\d+\.\d+\] )?\S+\[\d+\]: segfault at /, level: 'info' },
  // sudoers(5): syslog_goodpri (notice) for a command run, syslog_badpri (alert) for a refusal
  { tag: /^sudo$/, head: /^\s*\S+ : .*(?:NOT in sudoers|command not allowed|incorrect password attempts?|a password is required)/, level: 'alert' },
  { tag: /^sudo$/, head: /^\s*\S+ : .*COMMAND=/, level: 'notice' },
  // Linux-PAM modules/pam_unix: "authentication failure" at LOG_NOTICE, sessions at LOG_INFO
  { tag: null, head: /^pam_unix\([\w-]+:auth\): authentication failure;/, level: 'notice' },
  { tag: null, head: /^pam_unix\([\w-]+:session\): session (?:opened|closed) for user /, level: 'info' },
  // OpenSSH auth.c auth_log and sshd.c: logged with logit (LOG_INFO)
  { tag: /^sshd$/, head: /^(?:Failed|Accepted) (?:password|publickey|keyboard-interactive\/pam|none) for /, level: 'info' },
  { tag: /^sshd$/, head: /^(?:Invalid user |Connection closed by |Disconnected from |Received disconnect from |Server listening on )/, level: 'info' },
  // cron: "(user) CMD (command)" is the job being started
  { tag: /^(?:CRON|cron|crond)$/, head: /^\(\S+\) CMD \(/, level: 'info' },
  // dpkg src/main/errors.c print_error_perpackage "error processing package"; dpkg's closing summary
  { tag: null, head: /^(?:dpkg: )?error processing (?:package|archive) /, level: 'err' },
  { tag: null, head: /^Errors were encountered while processing:/, level: 'err' },
  { tag: null, head: /^(?:dpkg: )?dependency problems prevent configuration of /, level: 'err' },
];

/** The level a known program gives this message, or null when it is no known form. */
export function knownFormLevel(tag: string | null, message: string): Level | null {
  const bare = message.replace(UNIT, '');
  for (const f of FORMS) {
    if (f.tag !== null && (tag === null || !f.tag.test(tag))) continue;
    if (f.head.test(f.tag === null ? message : bare)) return f.level;
  }
  return null;
}
