/**
 * The listen address is loopback or a unix socket, and nothing else: the
 * parser (src/api/address.ts) is the second check after settings.json's
 * pattern, and the one that reads --listen.
 */
import { describe, expect, it } from 'vitest';
import { checkBound, isLoopbackIp, ListenError, parseListen } from '../../src/api/address.js';

describe('listen addresses', () => {
  it('reads loopback TCP addresses and unix paths (a relative path from the root)', () => {
    expect(parseListen('127.0.0.1:8080', '/r')).toMatchObject({ kind: 'tcp', host: '127.0.0.1', port: 8080 });
    expect(parseListen('127.1.2.3:0', '/r')).toMatchObject({ kind: 'tcp', host: '127.1.2.3', port: 0 });
    expect(parseListen('[::1]:9', '/r')).toMatchObject({ kind: 'tcp', host: '::1', port: 9 });
    expect(parseListen('localhost:9', '/r')).toMatchObject({ kind: 'tcp', host: 'localhost', port: 9 });
    expect(parseListen('unix:/run/pico/api.sock', '/r')).toMatchObject({ kind: 'unix', path: '/run/pico/api.sock' });
    expect(parseListen('unix:api.sock', '/var/lib/picoharness')).toMatchObject({ kind: 'unix', path: '/var/lib/picoharness/api.sock' });
  });

  it('refuses every address that is not loopback, with the fix', () => {
    for (const bad of ['0.0.0.0:80', '192.168.1.2:80', '[::]:80', '[::ffff:10.0.0.1]:80', 'pi.local:80', '127.0.0.256:80', '127.0.0.1:65536', '127.0.0.1', ':80', 'unix:', '']) {
      expect(() => parseListen(bad, '/r'), bad).toThrow(ListenError);
    }
    try {
      parseListen('0.0.0.0:80', '/r');
    } catch (e) {
      expect((e as ListenError).fix).toMatch(/127\.0\.0\.1:PORT/);
    }
  });

  it('judges the address the kernel bound, not the name asked for', () => {
    expect(isLoopbackIp('127.0.0.1')).toBe(true);
    expect(isLoopbackIp('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackIp('::1')).toBe(true);
    expect(isLoopbackIp('10.0.0.1')).toBe(false);
    expect(isLoopbackIp('::')).toBe(false);
    expect(() => checkBound({ address: '192.168.0.9', family: 'IPv4', port: 80 }, 'localhost:80')).toThrow(/not loopback/);
    expect(() => checkBound({ address: '127.0.0.1', family: 'IPv4', port: 80 }, 'localhost:80')).not.toThrow();
  });
});
