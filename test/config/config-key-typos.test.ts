import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../src/config/load.ts';

// A typo'd config key is refused (strict schema); the operator is told which key was most likely meant, as job
// files already do, instead of being sent to compare the example file by eye.
function problemsOf(text: string): { path: string; message: string }[] {
  try {
    parseConfigText(text, 'x.yaml', {});
  } catch (err) {
    // where each is is config-locations.test.ts's concern
    if (err instanceof ConfigError) return err.problems.map(({ path, message }) => ({ path, message }));
    throw err;
  }
  return [];
}

describe('an unknown config key', () => {
  it.each([
    ['permisions:\n  admin_users: [a]\n', 'permisions', 'permissions'],
    ['queue:\n  redis_ur: redis://127.0.0.1:6379\n', 'queue.redis_ur', 'redis_url'],
    ['daemon:\n  concurency: 2\n', 'daemon.concurency', 'concurrency'],
    ['permissions:\n  approval:\n    wait_timout_seconds: 5\n', 'permissions.approval.wait_timout_seconds', 'wait_timeout_seconds'],
    ['notify:\n  targets:\n    ops:\n      url: https://h.example.com/x\n      header: {}\n', 'notify.targets.ops.header', 'headers'],
  ])('%j: names the key it most likely meant', (text, path, meant) => {
    expect(problemsOf(text)).toContainEqual({ path, message: `unknown key (did you mean "${meant}"?)` });
  });

  it('with no key near it, points at the example file', () => {
    expect(problemsOf('daemon:\n  frobnicate: 2\n')).toContainEqual({ path: 'daemon.frobnicate', message: 'unknown key (check the spelling against config/echo-agent.example.yaml)' });
  });
});

describe('an endpoint URL with credentials in it', () => {
  it.each([['model:\n  base_url: http://user:pass@127.0.0.1:8080/v1\n', 'model.base_url'], ['services:\n  web_search:\n    url: https://key@s.example.com\n', 'services.web_search.url']])(
    '%j is refused at load, naming api_key, and the value is not shown', (text, path) => {
      const [problem] = problemsOf(text).filter((p) => p.path === path);
      expect(problem?.message).toMatch(/^holds a user name or password, which HTTP clients refuse to send; put the key in api_key/);
      expect(problem?.message).not.toContain('pass@');
    },
  );
});
