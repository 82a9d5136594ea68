import { PassThrough } from 'node:stream';
import type { ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import { terminalApprover } from '../../src/cli/attended-deps.ts';
import type { Config } from '../../src/config/schema.ts';
import type { Executor } from '../../src/store/db.ts';
import type { ToolRegistry } from '../../src/tools/registry.ts';

/**
 * The terminal approver of `echo-agent run` / `jobs create` (src/cli/attended-deps.ts terminalApprover), on an
 * in-memory terminal with the real store and job preview. Each screen the person is shown is kept, and
 * `reply(screen)` is what the scripted person types after reading it.
 */
export function recordingTerminal(db: Executor, config: Config, tools: ToolRegistry, reply: (screen: string, req: ApprovalRequest) => string | Promise<string> = () => 'y') {
  const screens: string[] = [];
  const requests: ApprovalRequest[] = [];
  const approver: HumanApprover = {
    async ask(req, signal) {
      requests.push(req);
      const input = new PassThrough();
      const output = new PassThrough();
      let shown = '';
      output.on('data', (d) => {
        shown += d;
        if (/Allow\? [^\n]*: $/.test(shown)) {
          screens.push(shown);
          void Promise.resolve(reply(shown, req)).then((typed) => input.write(`${typed}\n`));
        }
      });
      const tty = await terminalApprover({ db }, config, tools, 'alice', { input, output, typeAheadMs: 1 });
      return tty.ask(req, signal);
    },
  };
  return { approver, screens, requests };
}


/** A config file pointing the CLI at this test file's schema, plus extra YAML lines. */
export function schemaConfigYaml(schema: string, extra: readonly string[] = []): string {
  return [`database:`, `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}`, ...extra, ''].join('\n');
}

/**
 * Whether the job named `name` exists, is cron_authorized, and its stored definition holds `text`: what a
 * person's "y" authorised. A hole test asserts this never holds while `text` was missing from their screen,
 * so it passes whichever way the hole is closed (shown in full, or the call refused).
 */
export async function grantCovers(db: Executor, name: string, text: string): Promise<boolean> {
  const { listJobs } = await import('../../src/store/jobs.ts');
  const { authorizationFor } = await import('../../src/store/grants.ts');
  const job = (await listJobs(db)).find((j) => j.name === name);
  if (!job || !JSON.stringify(job.payload).includes(text)) return false;
  return (await authorizationFor(db, job.id))?.cron_authorized === true;
}
