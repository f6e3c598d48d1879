/**
 * The registry: what this root can do right now — capabilities, schemas,
 * tools and providers, by id. Everything enters through `register*`, which
 * returns into a Scope, so loading a set of manifests and unloading it leaves
 * the registry exactly as before (design P13). The registry does not read
 * files (`load.ts` does) and does not choose providers (the policy does).
 */
import type { SchemaHandle } from '../ladder/types.js';
import type { CapabilityManifest, ProviderManifest, ToolManifest } from './manifest.js';
import { Scope } from './scope.js';

type Tables = {
  capabilities: CapabilityManifest;
  schemas: SchemaHandle;
  tools: ToolManifest;
  providers: ProviderManifest;
};

export class Registry {
  readonly capabilities = new Map<string, CapabilityManifest>();
  readonly schemas = new Map<string, SchemaHandle>();
  readonly tools = new Map<string, ToolManifest>();
  readonly providers = new Map<string, ProviderManifest>();

  /** Register one entry into `scope`; a duplicate id is an error, never an override. */
  register<K extends keyof Tables>(table: K, key: string, value: Tables[K], scope: Scope): void {
    const map = this[table] as Map<string, Tables[K]>;
    if (map.has(key)) throw new Error(`${table}: "${key}" is registered twice; ids must be unique — rename one of them`);
    map.set(key, value);
    scope.defer(() => {
      if (map.get(key) === value) map.delete(key);
    });
  }

  /** A comparable picture of the registry's contents (for tests and status). */
  snapshot(): Record<keyof Tables, string[]> {
    return {
      capabilities: [...this.capabilities.keys()].sort(),
      schemas: [...this.schemas.keys()].sort(),
      tools: [...this.tools.keys()].sort(),
      providers: [...this.providers.keys()].sort(),
    };
  }

  capability(id: string): CapabilityManifest {
    const c = this.capabilities.get(id);
    if (!c) throw new Error(`unknown capability "${id}"; known: ${[...this.capabilities.keys()].join(', ') || '(none)'} — add manifests/capabilities/${id}.json`);
    return c;
  }

  schema(id: string): SchemaHandle {
    const s = this.schemas.get(id);
    if (!s) throw new Error(`unknown schema "${id}"; known: ${[...this.schemas.keys()].join(', ') || '(none)'} — add manifests/schemas/${id}.json`);
    return s;
  }

  tool(name: string): ToolManifest {
    const t = this.tools.get(name);
    if (!t) throw new Error(`unknown tool "${name}"; known: ${[...this.tools.keys()].join(', ') || '(none)'} — add manifests/tools/${name}.json`);
    return t;
  }
}
