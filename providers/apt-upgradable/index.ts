/** The `apt-upgradable` code provider: `extract@1` → `upgradable_packages@1` from `apt list --upgradable`. */
import { singleSchema } from '../lib/single-schema.js';
import { parseAptUpgradable } from './parse.js';

export { parseAptUpgradable, type UpgradablePackages, type Upgradable } from './parse.js';
export const aptUpgradableProvider = singleSchema('apt-upgradable', 'upgradable_packages@1', parseAptUpgradable);
