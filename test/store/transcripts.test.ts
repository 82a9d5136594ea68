import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../../src/store/catalog-schema.ts';
import { saveTranscript, searchTranscripts, transcriptOfRun } from '../../src/store/transcripts.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

const base = { kind: 'run' as const, session_key: 'job:daily', memory_scope: 'alice', execution_id: 'exe-1' };

async function rawRow(id: string): Promise<string> {
  const res = await database().db.execute<{ raw: string }>(sql`select concat_ws(' | ', prompt, messages::text, text) as raw from transcripts where id = ${id}`);
  return res.rows[0]!.raw;
}

describe('transcripts', () => {
  it('stores the messages as given and a flattened searchable text; transcriptOfRun returns the latest', async () => {
    const messages: TranscriptMessage[] = [
      { role: 'system', content: 'You are echo.' },
      { role: 'user', content: 'Summarise the harbour report' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{\n  "path": "harbour.md"\n}' } }] },
      { role: 'tool', name: 'read_file', tool_call_id: 'call_1', content: 'Ships: 12' },
      // the agent loop's own shape: name and arguments at the top
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_2', name: 'list_dir', arguments: { path: '.' } }] },
      { role: 'assistant', content: 'Twelve ships docked.' },
    ];
    const first = await saveTranscript(database().db, { ...base, run_id: 'run_a', job_id: 'job_a', prompt: 'Summarise the harbour report', messages });
    expect(first.id).toMatch(/^trn_/);
    expect(first.messages).toEqual(messages);
    expect(first.text).toBe([
      'system: You are echo.',
      'user: Summarise the harbour report',
      'assistant → read_file({\n  "path": "harbour.md"\n})',
      'tool read_file: Ships: 12',
      'assistant → list_dir({"path":"."})',
      'assistant: Twelve ships docked.',
    ].join('\n'));
    const retry = await saveTranscript(database().db, { ...base, run_id: 'run_a', prompt: 'other prompt', messages: [{ role: 'assistant', content: 'again' }] });
    expect(retry.text).toBe('prompt: other prompt\nassistant: again');
    expect((await transcriptOfRun(database().db, 'run_a'))?.id).toBe(retry.id);
    expect(await transcriptOfRun(database().db, 'run_missing')).toBeNull();
  });

  it('keeps credentials out of the stored messages, prompt and searchable text (I11)', async () => {
    const apiKey = 'sk-proj-AbCdEf0123456789GhIjKl';
    const messages: TranscriptMessage[] = [
      { role: 'user', content: `Use key ${apiKey} and fetch https://deploy:hunter2pass@git.example.com/repo` },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'web_fetch', arguments: JSON.stringify({ url: 'https://x.test', api_key: 'plainvalue-777' }) } }] },
      { role: 'tool', tool_call_id: 'c1', content: JSON.stringify({ status: 200, headers: { authorization: 'Bearer abcdefghijklmnop' }, password: 'tool-result-pw' }) },
      { role: 'assistant', content: 'The vault is ctx-credential-value-42; sing the abc song' },
    ];
    const row = await saveTranscript(database().db, {
      ...base, run_id: 'run_secret', prompt: `Deploy with ${apiKey}`, messages, secrets: ['ctx-credential-value-42', 'abc'],
    });
    const raw = await rawRow(row.id);
    for (const secret of [apiKey, 'hunter2pass', 'plainvalue-777', 'abcdefghijklmnop', 'tool-result-pw', 'ctx-credential-value-42']) {
      expect(raw).not.toContain(secret);
    }
    expect(raw).toContain('[REDACTED]');
    // what is not a credential survives, including a too-short "secret" that would mask ordinary words
    expect(raw).toContain('the abc song');
    expect(raw).toContain('git.example.com/repo');
    expect(raw).toContain('https://x.test');
    expect(row.messages[1]?.tool_calls).toHaveLength(1);
    expect(row.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    expect(JSON.parse(row.messages[2]!.content!)).toMatchObject({ status: 200, password: '[REDACTED]' });
    const found = await searchTranscripts(database().db, { memory_scope: 'alice', session_key: '', query: 'hunter2pass', limit: 10 });
    expect(found).toEqual([]);
  });

  it('refuses a search with neither a memory scope nor a session key', async () => {
    await expect(searchTranscripts(database().db, { memory_scope: '', session_key: '', query: 'x', limit: 1 })).rejects.toThrow(/memory scope or a session key/);
  });
});
