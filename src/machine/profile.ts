/**
 * The machine profile: what this box is, as far as a measurement depends on it.
 *
 * A measured cost (load ms, tokens/s, peak RSS) is only meaningful on the
 * machine that measured it, so every measurement is stamped with
 * `machineHash()`, and the ledger's event 0 carries it too. The profile holds
 * only stable facts (architecture, CPU model and count, total memory, Node
 * version, kernel release) — never free memory, load or uptime, which change
 * by the second and would make the hash useless. It does not measure anything.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';

export interface MachineProfile {
  arch: string;
  cpus: { model: string; count: number };
  total_mem_bytes: number;
  node: string;
  os_release: string;
}

/** Read the stable facts of this machine. */
export function machineProfile(): MachineProfile {
  const cpus = os.cpus();
  return {
    arch: process.arch,
    cpus: { model: (cpus[0]?.model ?? 'unknown').trim(), count: cpus.length },
    total_mem_bytes: os.totalmem(),
    node: process.version,
    os_release: `${os.type()} ${os.release()}`,
  };
}

/** sha256 of the canonical profile: keys in a fixed order, so equal machines give equal hashes. */
export function machineHash(profile: MachineProfile = machineProfile()): string {
  const canonical = JSON.stringify([
    profile.arch, profile.cpus.model, profile.cpus.count, profile.total_mem_bytes, profile.node, profile.os_release,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
