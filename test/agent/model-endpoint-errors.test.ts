import { afterEach, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/agent/loop.ts';
import { agentChatClient } from '../../src/agent/model-config.ts';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { closedPort, completion, startRawEndpoint, type RawReply } from './raw-endpoint.ts';

const KEY = 'sk-endpoint-errors-key-0000000000';
let servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/** One agent turn against `base_url`, as the runtime runs it. */
async function turn(baseUrl: string, model: ConfigInput['model'] = {}, name = 'scripted') {
  // a URL with credentials is refused at load; the runtime refuses it too, for a configuration built another way
  const withCredentials = baseUrl.includes('@');
  const checked = defaultConfig({ model: { base_url: withCredentials ? 'http://127.0.0.1/' : baseUrl, api_key: KEY, name, ...model } });
  const config = withCredentials ? { ...checked, model: { ...checked.model, base_url: baseUrl } } : checked;
  return runAgentLoop({
    prompt: 'hello', system: 's', model: name, tools: [], chat: agentChatClient(config)!, signal: new AbortController().signal,
    limits: { maxTurns: 2, maxTokens: 10, tokenBudget: 1_000, maxDenials: 3, temperature: 0 },
    call: async () => { throw new Error('no tools here'); },
  }).then((out) => ({ out }));
}

async function endpoint(reply: (n: number) => RawReply) {
  const server = await startRawEndpoint(reply);
  servers.push(server);
  return server;
}

describe('model endpoint failures say which endpoint, which model and what went wrong', () => {
  it('a refused connection names the host and port, the cause code and the attempts made', async () => {
    const port = await closedPort();
    const { out } = await turn(`http://127.0.0.1:${port}/v1`, { max_retries: 2 });
    expect(out.status).toBe('model_error');
    expect(out.error).toContain(`127.0.0.1:${port}/v1`);
    expect(out.error).toMatch(/ECONNREFUSED/);
    expect(out.error).toMatch(/model "scripted"/);
    expect(out.error).toMatch(/3 attempts/);
    expect(out.transient).toBe(true);
  });

  it('an unknown host is named with the resolver\'s answer', async () => {
    const { out } = await turn('http://no-such-model-host.invalid/v1', { max_retries: 0 });
    expect(out.error).toContain('no-such-model-host.invalid');
    expect(out.error).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it('credentials in model.base_url or model.api_key never appear in the error (I11)', async () => {
    const port = await closedPort();
    const { out } = await turn(`http://bob:hunter2-password@127.0.0.1:${port}/v1`, { max_retries: 0 });
    expect(out.status).toBe('model_error');
    expect(out.error).toContain(`127.0.0.1:${port}/v1`);
    expect(out.error).toMatch(/model\.api_key/);
    expect(out.error).not.toMatch(/hunter2|bob:/);
    expect(out.error).not.toContain(KEY);
  });

  it('an endpoint that never answers fails after model.timeout_seconds in all, retries included, and says so', async () => {
    const server = await endpoint(() => 'hang');
    const { out } = await turn(server.url, { timeout_seconds: 1, max_retries: 2 });
    expect(out.status).toBe('model_error');
    // one attempt: the SDK's own retries would have made this three timeouts back to back
    expect(server.requests).toBe(1);
    expect(out.error).toMatch(/did not answer within model\.timeout_seconds \(1 s/);
    expect(out.error).toMatch(/1 attempt made/);
    expect(out.error).toContain(`127.0.0.1:${server.port}/v1`);
    expect(out.transient).toBe(true);
    // the endpoint hangs for ever: only the 1 s deadline ends the turn; anything else holding it meets this timeout
  }, 10_000);

  it('an HTML page with status 200 is a model error that says what came back, not a TypeError', async () => {
    const server = await endpoint(() => ({ type: 'text/html', body: '<html><body><h1>Welcome to nginx!</h1></body></html>' }));
    const { out } = await turn(server.url);
    expect(out.status).toBe('model_error');
    expect(out.error).toMatch(new RegExp(`the model endpoint at 127\\.0\\.0\\.1:${server.port}/v1 \\(model "scripted"\\) answered without choices`));
    expect(out.error).toMatch(/text\/html/);
    expect(out.error).toMatch(/Welcome to nginx/);
    expect(out.error).not.toMatch(/Cannot read properties/);
    expect(out.transient).toBe(false);
  });

  it('an answer with an empty choices list is a model error, not a run that succeeds with nothing', async () => {
    const server = await endpoint(() => ({ body: JSON.stringify({ id: 'x', object: 'chat.completion', choices: [] }) }));
    const { out } = await turn(server.url);
    expect(out.status).toBe('model_error');
    expect(out.final).toBeNull();
    expect(out.error).toMatch(/answered without choices \(an empty list\)/);
    expect(out.transient).toBe(false);
  });

  it('a 404 for an unknown model is not retried, and names the model and the endpoint', async () => {
    const server = await endpoint(() => ({ status: 404, body: JSON.stringify({ error: { message: 'The model `nope` does not exist', type: 'invalid_request_error' } }) }));
    const { out } = await turn(server.url, { max_retries: 2 }, 'nope');
    expect(out.status).toBe('model_error');
    expect(server.requests).toBe(1);
    expect(out.error).toMatch(/model "nope"/);
    expect(out.error).toContain(`127.0.0.1:${server.port}/v1`);
    expect(out.error).toMatch(/HTTP 404/);
    expect(out.error).toMatch(/not retried/);
    expect(out.transient).toBe(false);
  });

  it('a 5xx is retried up to model.max_retries and stays transient, with the attempts counted', async () => {
    const server = await endpoint((n) => (n < 5 ? { status: 503, body: '{"error":{"message":"overloaded"}}', headers: { 'retry-after-ms': '10' } } : { body: completion('late') }));
    const { out } = await turn(server.url, { max_retries: 2 });
    expect(server.requests).toBe(3);
    expect(out.error).toMatch(/HTTP 503: "overloaded"; 3 attempts made/);
    expect(out.transient).toBe(true);
  });

  it('a 429 followed by an answer succeeds within one turn', async () => {
    const server = await endpoint((n) => (n === 0 ? { status: 429, body: '{"error":{"message":"slow down"}}', headers: { 'retry-after-ms': '10' } } : { body: completion('fine') }));
    const { out } = await turn(server.url, { max_retries: 1 });
    expect(out).toMatchObject({ status: 'completed', final: 'fine' });
    expect(server.requests).toBe(2);
  });
});
