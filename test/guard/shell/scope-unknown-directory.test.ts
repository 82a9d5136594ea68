import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../../src/guard/shell/index.ts';

// An "always" for a program given by path is scoped by the file it names. Where the line may run it from somewhere
// the guard cannot know, it must get no file scope at all, or one answer would let a different file through.
const fileScopes = async (line: string) => ((await checkCommand(line, { cwd: '/ws' })).commands ?? []).filter((c) => c.file);

describe('the file a path-qualified program runs', () => {
  it('is scoped where the directory is known', async () => {
    expect(await fileScopes('./build.sh')).toEqual([{ program: '/ws/build.sh', file: true }]);
    expect(await fileScopes('cd sub && ./build.sh')).toEqual([{ program: '/ws/sub/build.sh', file: true }]);
  });

  it('has no scope after a cd that may not have run (a branch, a loop, && or ||)', async () => {
    for (const line of [
      'case x in y) cd ../trusted;; esac; ./build.sh',
      'if false; then cd ../trusted; fi; ./build.sh',
      'while false; do cd ../trusted; done; ./build.sh',
      'for d in a; do cd "$d"; done; ./build.sh',
      'cd ../trusted || true; ./build.sh',
      'cd ../trusted && true; ./build.sh',
    ]) expect(await fileScopes(line), line).toEqual([]);
  });

  it('has no scope under ~ or after a bare cd once the line sets HOME', async () => {
    for (const line of ['HOME=/tmp/evil; ~/rev-build.sh', 'export HOME=/tmp/evil; ~/bin/x', 'HOME=/tmp/evil; cd; ./x', 'HOME=/tmp/evil; cd ~/bin; ./x']) {
      expect(await fileScopes(line), line).toEqual([]);
    }
  });
});
