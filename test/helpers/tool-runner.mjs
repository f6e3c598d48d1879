// Runs one shipped tool through the compiled runTool (dist/) and prints one JSON line: the output and
// the fact its code parser makes, or the failure with its cause. A test starts it in a process of its
// own so the machine's state can be arranged around it for real: in a private mount namespace (a
// journal bound over /var/log/journal), as another user (the service's), at a chosen isolation level.
// Usage: node tool-runner.mjs '{"tool":"journal_window","args":{},"root":"/tmp/x","level":"partial"}'
// or '{"runs":[{"tool":…,"args":…,"approved":true}, …],"root":…,"level":…}' for several in one process.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(import.meta.dirname, '..', '..');
const payload = JSON.parse(process.argv[2]);
const { toolManifestSchema } = await import(join(REPO, 'dist/src/registry/manifest.js'));
const { runTool } = await import(join(REPO, 'dist/src/tools/run.js'));
const { makeWorkDir } = await import(join(REPO, 'dist/src/world/workdir.js'));
const { worldAt } = await import(join(REPO, 'dist/src/world/sandbox.js'));
const { codeProviders } = await import(join(REPO, 'dist/providers/index.js'));
const providers = readdirSync(join(REPO, 'manifests/providers')).map((f) => JSON.parse(readFileSync(join(REPO, 'manifests/providers', f), 'utf8')));

// one run, or several at one level in one process ("runs": [{tool, args, approved}])
const runs = payload.runs ?? [{ tool: payload.tool, args: payload.args, approved: payload.approved }];
const level = payload.level ?? null;
const world = level === null ? undefined : await worldAt(level);
let n = 0;
for (const { tool: name, args = {}, approved = false } of runs) {
  const out = { tool: name, uid: process.getuid(), pid: process.pid, level };
  try {
    if (level !== null && !world) {
      out.unavailable = `this machine cannot give isolation "${level}"`;
    } else {
      const tool = toolManifestSchema.parse(JSON.parse(readFileSync(join(REPO, 'manifests/tools', `${name}.json`), 'utf8')));
      const workDir = await makeWorkDir(payload.root, 'state', `${name}-${n++}`);
      const run = await runTool(tool, args, { root: payload.root, workDir, ...(world ? { world } : {}), ...(approved ? { approved: true } : {}) });
      out.output = run.output;
      out.exitCode = run.exitCode;
      // the fact, by the code provider that declares the tool's schema
      const p = providers.find((x) => x.kind === 'code' && x.schemas.includes(tool.fact_schema));
      if (p) out.fact = codeProviders[p.entry]({ text: run.output, capability: tool.reducer, schemaId: tool.fact_schema });
    }
  } catch (err) {
    out.error = err.type ?? err.name;
    out.message = err.message;
    if (err.detail?.cause) out.cause = err.detail.cause;
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
