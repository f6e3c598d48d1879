#!/usr/bin/env node
// Writes a long, realistic syslog of a Raspberry Pi's morning (RFC 3164 lines, host "pi5") to stdout,
// for probe P-A: one long document (about 200 KB) reduced to one structured record by the
// log-summary parser. Deterministic: the same size gives the same bytes on every machine.
//
//   node examples/long-log.mjs > examples/data/long-syslog.txt          # about 200 KB
//   node examples/long-log.mjs 1048576 > /tmp/big.txt                     # any size in bytes
//
// Routine lines carry no failure word; the failure lines come only from the FAILURES templates
// below (an SD card timeout, a failed backup, SSH password guesses), so a reader can count them
// with grep: grep -cE 'mmc0: error|rsync error|Failed password' FILE.
const target = Number(process.argv[2] ?? 204800);
if (!Number.isInteger(target) || target < 1024) {
  process.stderr.write('long-log.mjs: the size must be a whole number of bytes, at least 1024 (e.g. 204800)\n');
  process.exit(2);
}

let seed = 20240303;
/** A small linear congruential generator, so the log is the same everywhere. */
const rand = (n) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return Math.floor(seed / 65536) % n; // the high bits: the low ones of an LCG repeat quickly
};

const ROUTINE = [
  () => `CRON[${3000 + rand(6000)}]: (root) CMD (/usr/local/bin/capture-frames.sh >> /var/log/capture.log 2>&1)`,
  () => `CRON[${3000 + rand(6000)}]: (pi) CMD (python3 /home/pi/sensors/read_bme280.py)`,
  () => `systemd[1]: Starting sysstat-collect.service - system activity accounting tool...`,
  () => `systemd[1]: sysstat-collect.service: Deactivated successfully.`,
  () => `systemd[1]: Finished sysstat-collect.service - system activity accounting tool.`,
  () => `dhcpcd[512]: wlan0: leased 192.168.1.23 for 86400 seconds`,
  () => `dhcpcd[512]: wlan0: adding default route via 192.168.1.1`,
  () => `sshd[${20000 + rand(9000)}]: Accepted publickey for pi from 192.168.1.40 port ${40000 + rand(20000)} ssh2: ED25519 SHA256:k3Yq0m2vB7`,
  () => `sshd[${20000 + rand(9000)}]: pam_unix(sshd:session): session opened for user pi(uid=1000) by (uid=0)`,
  () => `influxd[845]: ts=2024-03-03T10:00:00.000Z lvl=info msg="Cache snapshot (start)" log_id=0mQ engine=tsm1 op_name=tsm1_cache_snapshot`,
  () => `telegraf[902]: 2024-03-03T10:00:10Z I! [outputs.influxdb] Wrote batch of ${100 + rand(900)} metrics in ${5 + rand(40)}.${rand(1000)}ms`,
  () => `kernel: [${10000 + rand(80000)}.${rand(1000000)}] brcmfmac: brcmf_cfg80211_set_power_mgmt: power save enabled`,
  () => `rngd[401]: stats: bits received from HRNG source: ${60000 + rand(100000)}`,
  () => `systemd-timesyncd[389]: Initial synchronization to time server 192.168.1.1:123 (192.168.1.1).`,
  () => `mosquitto[733]: New connection from 192.168.1.${50 + rand(50)}:${40000 + rand(20000)} on port 1883.`,
  () => `mosquitto[733]: Client sensor-${rand(9)} closed its connection.`,
];
const FAILURES = [
  () => `kernel: [${10000 + rand(80000)}.${rand(1000000)}] mmc0: error -110 whilst initialising SD card`,
  () => `backup.sh[${4000 + rand(5000)}]: rsync error: some files/attrs were not transferred (see previous errors) (code 23) at main.c(1338)`,
  () => `sshd[${20000 + rand(9000)}]: Failed password for invalid user admin from 203.0.113.${1 + rand(250)} port ${30000 + rand(30000)} ssh2`,
];

const MONTH = 'Mar';
let t = 0; // seconds since midnight
const pad = (n) => String(n).padStart(2, '0');
const stamp = () => `${MONTH}  3 ${pad(Math.floor(t / 3600) % 24)}:${pad(Math.floor(t / 60) % 60)}:${pad(t % 60)}`;

let out = '';
let bytes = 0; // every line is ASCII, so characters are bytes
let lines = 0;
while (true) {
  t += 1 + rand(9);
  const failure = lines > 40 && rand(60) === 0;
  const body = failure ? FAILURES[rand(FAILURES.length)]() : ROUTINE[rand(ROUTINE.length)]();
  const line = `${stamp()} pi5 ${body}\n`;
  if (bytes + line.length > target) break;
  out += line;
  bytes += line.length;
  lines++;
}
process.stdout.write(out);
