/**
 * Doctor checks of the execution world: which sandbox tools this machine
 * has (bwrap, unshare, prlimit, setpriv in the fixed system folders, as
 * src/world looks for them), and the level src/world's probe reaches with
 * them — a real sandboxed run, up to a few hundred ms — with what is and is
 * not enforced. It is this process's view: a daemon under systemd may get
 * less (RestrictNamespaces=), which `pico status` shows from the worker's
 * own probe. Nothing is written outside the probe's temp folder.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { worldCapabilities } from '../world/sandbox.js';
import { ok, type Check } from './check.js';

const DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];

function which(name: string): string | null {
  for (const d of DIRS) {
    try {
      accessSync(join(d, name), constants.X_OK);
      return join(d, name);
    } catch {
      // next folder
    }
  }
  return null;
}

const USERNS_FIX = 'allow unprivileged user namespaces (`sysctl kernel.unprivileged_userns_clone=1` on Debian, and no AppArmor restriction: `sysctl kernel.apparmor_restrict_unprivileged_userns=0` on newer kernels)';

/** Each sandbox tool, then the level the world probe reached with them. */
export async function sandboxChecks(): Promise<Check[]> {
  const out: Check[] = [];
  const tool = (name: string, pkg: string, gives: string): string | null => {
    const path = which(name);
    out.push(path ? ok('sandbox', name, `${path}`) : { group: 'sandbox', name, level: 'warn', detail: `not found: ${gives} is not available`, fix: `apt install ${pkg}` });
    return path;
  };
  const bwrap = tool('bwrap', 'bubblewrap', 'the "full" isolation level (a private filesystem view)');
  tool('unshare', 'util-linux', 'the "partial" and "network" levels');
  tool('prlimit', 'util-linux', 'per-program CPU, memory, process and file-size limits');
  const caps = await worldCapabilities();
  const detail = `level "${caps.level}"${caps.wrapper ? ` via ${caps.wrapper}` : ''}; enforced: ${caps.enforced.join('; ') || 'nothing'}; not enforced: ${caps.notEnforced.join('; ') || 'nothing'}`;
  if (caps.level === 'full') out.push(ok('sandbox', 'isolation', detail));
  else {
    out.push({
      group: 'sandbox', name: 'isolation', level: 'warn', detail,
      fix: bwrap ? `bwrap is installed but does not work here: ${USERNS_FIX}` : `install bubblewrap (\`apt install bubblewrap\`) for the "full" level${caps.level === 'none' ? `, and ${USERNS_FIX}` : ''}`,
    });
  }
  if (!caps.limits.memory || !caps.limits.processes) {
    out.push({ group: 'sandbox', name: 'limits', level: 'warn', detail: `resource limits observed in a run: ${Object.entries(caps.limits).map(([k, v]) => `${k} ${v ? 'yes' : 'no'}`).join(', ')}`, fix: 'install util-linux (prlimit) so each program gets its memory, process and file-size limits' });
  } else out.push(ok('sandbox', 'limits', `observed in a run: ${Object.entries(caps.limits).filter(([, v]) => v).map(([k]) => k).join(', ')}`));
  return out;
}
