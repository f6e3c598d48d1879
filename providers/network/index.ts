/** The `network` code provider: `extract@1` → `network@1` from the network tool's capture. */
import { singleSchema } from '../lib/single-schema.js';
import { parseNetwork } from './parse.js';

export { parseNetwork, hexToIpv4, type Network, type Interface } from './parse.js';
export const networkProvider = singleSchema('network', 'network@1', parseNetwork);
