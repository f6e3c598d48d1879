/**
 * `apt list --upgradable` → upgradable_packages@1.
 *
 * One row per package: "NAME/SUITES VERSION ARCH [upgradable from: OLD]",
 * SUITES comma-separated ("stable-security,stable"). A package counts as a
 * security update when one of its suites ends in "-security" (Debian's and
 * Raspberry Pi OS's naming). The "Listing..." line apt prints first is its
 * own: when it is missing the text is not an apt listing and the counts are
 * null, not 0. The answer is only as fresh as the last `apt update`; nothing
 * here reaches the network.
 */

export interface Upgradable {
  name: string;
  suites: string;
  new_version: string;
  architecture: string;
  current_version: string | null;
  security: boolean;
}

export interface UpgradablePackages {
  count: number | null;
  security_count: number | null;
  packages: Upgradable[];
}

const ROW = /^([a-z0-9][a-z0-9+.:-]*)\/(\S+)\s+(\S+)\s+(\S+)(?:\s+\[upgradable from: ([^\]\s]+)\])?/;

/** Parse one `apt list --upgradable` capture. */
export function parseAptUpgradable(text: string): UpgradablePackages {
  const packages: Upgradable[] = [];
  let listing = false;
  for (const line of text.split('\n')) {
    if (/^Listing\.\.\./.test(line)) { listing = true; continue; }
    const m = ROW.exec(line.trim());
    if (!m) continue;
    packages.push({
      name: m[1]!, suites: m[2]!, new_version: m[3]!, architecture: m[4]!, current_version: m[5] ?? null,
      security: m[2]!.split(',').some((s) => s.endsWith('-security')),
    });
  }
  const known = listing || packages.length > 0;
  return {
    count: known ? packages.length : null,
    security_count: known ? packages.filter((p) => p.security).length : null,
    packages,
  };
}
