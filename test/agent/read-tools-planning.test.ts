// The read tools picoharness gained for issue 30 are reached by the questions a person types, with no
// model: the kernel's own messages for a kernel question (not the whole journal at error level),
// what listens for a question about ports, and — the other way round — a service's processes and
// sockets, which its playbook reads beside the unit's state, do not crowd out the tool a question
// about failed services needs. Plans only (planOnly): the tools themselves are tested in test/tools.
import { describe, expect, it } from 'vitest';
import { goalSessions, type PlanCreated as Created } from '../helpers/goal-session.js';

const plan = goalSessions();

async function planned(goal: string): Promise<Created> {
  const { created } = await plan(goal);
  expect(created, `no plan for "${goal}"`).toBeDefined();
  return created!;
}
const tools = (c: Created) => c.steps.map((s) => s.tool).filter(Boolean);

describe('questions that reach the read tools', () => {
  it('a question about the kernel reads the kernel\'s messages, never the whole journal in its place', async () => {
    for (const goal of ['Show me what dmesg says.', 'My USB stick keeps disconnecting, what does the kernel say?', 'kernel complaining about anything today?', 'any driver errors in the ring buffer?']) {
      const t = tools(await planned(goal));
      expect(t, goal).toContain('kernel_log');
      expect(t, goal).not.toContain('journal_window');
    }
  });

  it('a kernel question that names a boot or a level passes it to the kernel read', async () => {
    expect((await planned('what did the kernel say since boot?')).steps[0]).toMatchObject({ tool: 'kernel_log', args: { boot: 0 } });
    expect((await planned('kernel errors only please')).steps[0]).toMatchObject({ tool: 'kernel_log', args: { priority: 'err' } });
  });

  it('a question about ports or what listens reads the listening sockets', async () => {
    for (const goal of ['what is listening on port 22?', 'which ports are open on this pi?', 'is anything using port 8080']) {
      expect(tools(await planned(goal)), goal).toEqual(['listening_sockets']);
    }
  });

  it('a port named as one is passed to the listening read; a number that is no port never is', async () => {
    expect((await planned('what is listening on port 22?')).steps[0]).toMatchObject({ tool: 'listening_sockets', args: { port: 22 } });
    expect((await planned('is anything using port no. 8080')).steps[0]).toMatchObject({ tool: 'listening_sockets', args: { port: 8080 } });
    expect((await planned('is anything listening on 53/udp')).steps[0]).toMatchObject({ tool: 'listening_sockets', args: { port: 53 } });
    expect((await planned('which ports are open on this pi?')).steps[0]!.args).not.toHaveProperty('port');
    expect((await planned('are 3 ports open?')).steps[0]!.args).not.toHaveProperty('port');
    expect((await planned('what listens on port 70000?')).steps[0]!.args).not.toHaveProperty('port');
  });

  it('a question about failed services retrieves the failed units, not a service\'s processes and sockets read beside its state', async () => {
    for (const goal of ['did any of my services die?', 'is some service stopped?', 'something crashed, which service was it']) {
      const retrieved = (await planned(goal)).retrieved?.map((r) => r.name) ?? [];
      expect(retrieved, goal).toContain('failed_units');
      expect(retrieved, goal).not.toContain('process_find');
      expect(retrieved, goal).not.toContain('listening_sockets');
    }
  });

  it('a service that keeps restarting retrieves its unit\'s state and its journal', async () => {
    for (const goal of ['mosquitto keeps restarting, why?', 'why does home-assistant keep crashing']) {
      const retrieved = (await planned(goal)).retrieved?.map((r) => r.name) ?? [];
      expect(retrieved, goal).toContain('unit_status');
      // its journal: the unit's own log lines (unit_log, with its exit status and restart count) or the journal read for that unit
      expect(retrieved.filter((r) => r === 'unit_log' || r === 'journal_window'), goal).not.toEqual([]);
    }
  });
});
