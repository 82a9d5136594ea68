import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HumanApprover } from '../../src/approval/ports.ts';
import { agentChatClient } from '../../src/agent/model-config.ts';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { attendedContext, attendedTurn } from '../../src/session/attended-session.ts';
import { storeApprover } from '../../src/store/approver.ts';
import { listAudit } from '../../src/store/audit.ts';
import { listJobs } from '../../src/store/jobs.ts';
import { BIN } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

// The model gets one exec call through (a trusted channel here; an "always" or a person who saw only
// `sh build.sh` would do as well). The script it wrote starts a poller detached from the session's process
// tree (setsid -f), which answers every waiting cronjob request with `approvals approve`: the ancestry check
// cannot see it. The code the session printed where it asked is what it lacks (I3).
const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-self-answered-'));
const log = join(workspace, 'poller.log');
const stopFile = join(workspace, 'stop');
const readyFile = join(workspace, 'poller-ready');
let model: Awaited<ReturnType<typeof startFakeModel>>;

function pollerScript(): string {
  const cfg = join(workspace, 'cfg.yaml');
  writeFileSync(cfg, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
  const cli = `ECHO_AGENT_CONFIG=${cfg} ${process.execPath} ${BIN}`;
  const ids = `${process.execPath} -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>{for(const r of JSON.parse(s)) if(r.tool==="cronjob") console.log(r.id)})'`;
  // the exec tool kills the command's process group when it ends: the script waits until the poller is in a
  // session of its own (setsid -f forks first; under load the fork could die with the group before it got there)
  return `#!/bin/sh
setsid -f sh -c '
: > ${readyFile}
for i in $(seq 1 240); do
  [ -e ${stopFile} ] && exit 0
  sleep 0.5
  for id in $(${cli.replace(/'/g, `'\\''`)} approvals list --json | ${ids.replace(/'/g, `'\\''`)}); do
    ${cli.replace(/'/g, `'\\''`)} approvals approve $id --as alice >> ${log} 2>&1 && exit 0
  done
done' > /dev/null 2>&1 < /dev/null
n=0
while [ ! -e ${readyFile} ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done
`;
}

beforeAll(async () => {
  model = await startFakeModel((body) => {
    const answered = body.messages.filter((m) => m.role === 'tool').length;
    if (answered === 0) return { tool_calls: [{ name: 'write_file', arguments: { path: 'build.sh', content: pollerScript() } }] };
    if (answered === 1) return { tool_calls: [{ name: 'exec', arguments: { command: 'sh build.sh' } }] };
    if (answered === 2) return { tool_calls: [{ name: 'cronjob', arguments: { action: 'create', name: 'self-answered', schedule: '30 2 * * *', payload: { kind: 'agent', prompt: 'write a report' } } }] };
    return { content: 'done' };
  });
});
afterAll(() => { writeFileSync(stopFile, ''); return model.close(); });

/**
 * The store's approver, whose wait the test ends (as a timeout) once the poller's answer was refused: on a
 * loaded machine the poller's CLI calls take seconds each, and a fixed wait could end before it even tried.
 */
function approverEndingAfterRefusal(db: ReturnType<typeof database>['db']): HumanApprover {
  const store = storeApprover(db, { pollMs: 100 });
  return {
    async ask(req, signal) {
      const waiting = new AbortController();
      const follow = () => waiting.abort(signal.reason);
      signal.addEventListener('abort', follow, { once: true });
      const watch = (async () => {
        while (!waiting.signal.aborted) {
          if ((await listAudit(db, { kind: 'approval.answer_refused', limit: 1 })).length > 0) waiting.abort('timeout');
          else await sleep(200);
        }
      })();
      try {
        return await store.ask(req, waiting.signal);
      } finally {
        signal.removeEventListener('abort', follow);
        waiting.abort();
        await watch;
      }
    },
  };
}

const config = (): Config => defaultConfig({
  tools: { profile: 'full', workspace },
  // a ceiling only: the wait ends once the poller was refused (approverEndingAfterRefusal)
  permissions: { approval: { trusted_channels: ['ops'], wait_timeout_seconds: 100 } },
  model: { base_url: model.url, name: 'scripted', api_key: 'sk-self-answered-test-0001' },
} as Parameters<typeof defaultConfig>[0]);

describe('a tool process detached from its session cannot answer the session\'s own request (I3)', () => {
  it('its approvals approve is refused for want of the code, the cronjob call is not approved, and no job exists', async () => {
    const { db } = database();
    const cfg = config();
    const deps = {
      config: cfg, db, tools: builtinTools(cfg, { db }), guard: createGuard(cfg, systemGuardDeps({ dns: false })), chat: agentChatClient(cfg),
      approver: approverEndingAfterRefusal(db), smartReviewer: null,
    };
    const turn = await attendedTurn(deps, 'set up the nightly job', attendedContext('alice', 'ops'), new AbortController().signal);
    const decisions = turn.outcome.calls.map((c) => ({ tool: c.tool, rule: c.decision?.rule }));
    // the exec went through (the poller ran), and the cronjob call waited for a person who never came
    expect(decisions.find((d) => d.tool === 'exec')).toMatchObject({ rule: 'approval.trusted_channel' });
    expect(existsSync(readyFile), 'the poller never started').toBe(true);
    expect(decisions.find((d) => d.tool === 'cronjob')).toMatchObject({ rule: 'approval.human.timeout' });
    expect((await listJobs(db)).map((j) => j.name)).not.toContain('self-answered');
    // the poller did try, and was refused: the test would pass for nothing otherwise
    const refused = await listAudit(db, { kind: 'approval.answer_refused', limit: 50 });
    expect(refused.length, existsSync(log) ? readFileSync(log, 'utf8') : 'no poller log').toBeGreaterThan(0);
    expect(refused.every((r) => r.outcome === 'code_missing' && r.actor === 'alice')).toBe(true);
    expect(await listAudit(db, { kind: 'approval.answered', limit: 5 })).toEqual([]);
  }, 150_000);
});
