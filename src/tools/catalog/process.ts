import type { Config } from '../../config/schema.ts';
import { redactText } from '../../util/redact.ts';
import { defineTool } from '../define.ts';
import { ProcessError, SIGNALS, signalName, type ProcessTable } from '../process-table.ts';
import { fail, ok, type ToolResult } from '../types.ts';
import { isFailure, launchFor, resolveCwd } from './exec.ts';

const need = (params: Record<string, unknown>, field: string, action: string): ToolResult | null =>
  (typeof params[field] === 'string' && params[field] !== '' ? null : fail('validation', `${field}: is required for action ${action}`));

/**
 * process: background processes this host started, kept in `table`. start
 * follows exec's rules (no shell unless asked, cwd in the workspace, minimal
 * environment); the other actions reach only processes in the table.
 */
export function processTool(config: Config, table: ProcessTable) {
  return defineTool('process', config, {
    async execute(params) {
      try {
        return await act(config, table, params);
      } catch (err) {
        if (err instanceof ProcessError) return fail('business', `process: ${redactText(err.message)}`);
        throw err;
      }
    },
  });
}

async function act(config: Config, table: ProcessTable, params: Record<string, unknown>): Promise<ToolResult> {
  const action = String(params.action);
  if (action === 'list') return ok({ processes: table.list() });
  if (action === 'start') {
    const missing = need(params, 'command', action);
    if (missing) return missing;
    const command = String(params.command);
    const launch = launchFor(command, params.shell === true);
    if (isFailure(launch)) return launch;
    const cwd = await resolveCwd(config, 'process', params.cwd);
    if (typeof cwd !== 'string') return cwd;
    const p = await table.start({ ...launch, command, cwd });
    return ok({ id: p.id, pid: p.pid, command: redactText(p.command), started_at: p.started_at });
  }
  const missingId = need(params, 'id', action);
  if (missingId) return missingId;
  const id = String(params.id);
  switch (action) {
    case 'signal': {
      const missing = need(params, 'signal', action);
      if (missing) return missing;
      const name = signalName(String(params.signal));
      if (!name) return fail('validation', `signal: expected one of ${SIGNALS.join(', ')}`);
      table.signal(id, name);
      return ok({ id, signal: name });
    }
    case 'write': {
      if (typeof params.input !== 'string') return fail('validation', 'input: is required for action write');
      const bytes = await table.write(id, params.input, params.eof === true);
      return ok({ id, bytes, stdin_closed: params.eof === true });
    }
    case 'read': {
      const offset = typeof params.offset === 'number' ? params.offset : 0;
      const r = table.read(id, offset);
      return ok({
        id, running: r.process.running, exit_code: r.process.exit_code, signal: r.process.signal,
        offset: r.from, next_offset: r.next_offset, output: redactText(r.data.toString('utf8')),
        ...(r.dropped > 0 ? { dropped_bytes: r.dropped } : {}),
      });
    }
    default:
      return fail('validation', `action: unknown action ${action}`);
  }
}
