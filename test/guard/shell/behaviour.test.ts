import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BYTES, SHELL_RULES, checkCommand } from '../../../src/guard/shell/index.ts';

describe('shell guard: what it reports', () => {
  it('lists every command with its program after unwrapping and its first operand', async () => {
    const v = await checkCommand('cd repo && sudo -u me git -C . status && bash -c "npm run build" | tee log');
    expect(v.commands).toEqual(expect.arrayContaining([
      { program: 'cd', subcommand: 'repo' },
      // what picks git's repository is part of the command (and of an "always" scope)
      { program: 'git', subcommand: 'status', options: ['-C .'] },
      { program: 'npm', subcommand: 'run' },
      { program: 'bash' },
      { program: 'tee', subcommand: 'log' },
    ]));
    // the wrapper is a scope of its own: an "always" for `git status` does not cover `sudo -u me git status`
    expect(v.commands).toContainEqual({ program: 'sudo' });
  });

  it('takes no sub-command from after an option, which may be its value, and redacts the one it takes', async () => {
    expect((await checkCommand('curl -H "Authorization: Bearer abcdef123456" https://example.com')).commands).toEqual([{ program: 'curl' }]);
    const [scoped] = (await checkCommand('curl https://bob:hunter2@example.com/x')).commands!;
    expect(scoped!.subcommand).not.toContain('hunter2');
    expect(scoped!.subcommand).toMatch(/^https:\/\/.+@example\.com\/x$/);
  });

  it('names the normalised command and the canonical path in a finding', async () => {
    const v = await checkCommand("/usr/bin/r''m -r -f /tmp/../etc");
    expect(v.findings).toEqual([expect.objectContaining({ rule: 'shell.rm.recursive_system_path', severity: 'deny', matched: 'rm -r -f /tmp/../etc → /etc' })]);
  });

  it('keeps a hard block inside bash -c a deny while flagging the inline shell', async () => {
    const v = await checkCommand('bash -c "rm -rf /"');
    expect(v.decision).toBe('deny');
    expect(v.findings.map((f) => f.rule).sort()).toEqual(['shell.interpreter.inline', 'shell.rm.recursive_root']);
  });

  it('decodes a computed program to check it, and still asks about the computation', async () => {
    const v = await checkCommand("$'\\x73\\x68\\x75\\x74\\x64\\x6f\\x77\\x6e' now");
    expect(v.findings.map((f) => f.rule).sort()).toEqual(['shell.program.computed', 'shell.system.power']);
  });

  it('flags a debugger\'s inline Python with the code it runs', async () => {
    const v = await checkCommand(`gdb -batch -ex 'python import os; os.system("id")'`);
    expect(v.findings).toEqual([expect.objectContaining({ rule: 'shell.interpreter.inline', matched: 'gdb: python import os; os.system("id")' })]);
  });

  it('walks the command a debugger makes the debugged process run, and flags the call as well', async () => {
    const v = await checkCommand(`gdb -p 1 -ex 'call (int)system("rm -rf /")'`);
    expect(v.findings.map((f) => [f.rule, f.matched])).toEqual(expect.arrayContaining([
      ['shell.interpreter.inline', 'gdb: call (int)system("rm -rf /")'],
      ['shell.rm.recursive_root', expect.stringContaining('rm -rf /')],
    ]));
  });

  it('names what attaches to a running process and what the attached debugger dumps, behind a wrapper too', async () => {
    const v = await checkCommand(`sudo gdb -batch -ex 'attach 1' -ex 'gcore /tmp/c'`);
    expect(v.findings.map((f) => [f.rule, f.matched])).toEqual([
      ['shell.process.attach', 'gdb -batch -ex "attach 1" -ex "gcore /tmp/c" (attaches: attach 1)'],
      ['shell.secret.read', 'gdb -batch -ex "attach 1" -ex "gcore /tmp/c" (attached, runs gcore /tmp/c)'],
    ]);
    expect((await checkCommand('strace -fp1234 -o /tmp/t')).findings.map((f) => f.matched)).toEqual(['strace -fp1234 -o /tmp/t (attaches: -fp1234)']);
  });

  it('names the setting whose code it cannot see', async () => {
    for (const [c, matched] of [
      ['git -c core.hooksPath=/tmp/h commit', 'git -c core.hooksPath=/tmp/h'],
      ['git --config-env=core.pager=P log', 'git --config-env=core.pager=P'],
      ['read -r LESSOPEN < f', 'read -r LESSOPEN'],
    ] as const) {
      const v = await checkCommand(c);
      expect(v.findings, c).toEqual([expect.objectContaining({ rule: 'shell.code.unseen_setting', severity: 'ask', matched })]);
    }
  });

  it('judges a search without a path by the directory it runs in, when that is known', async () => {
    for (const c of ['rg password', 'grep -r password', 'git grep --no-index password', 'ug password']) {
      expect((await checkCommand(c, { cwd: '/root' })).decision, c).toBe('deny');
      expect((await checkCommand(c, { cwd: '/work/project' })).decision, c).toBe('allow');
      expect((await checkCommand(c)).decision, c).toBe('allow');
    }
    // rg searches a fed stdin instead; grep -r still searches the directory
    expect((await checkCommand('cat notes.txt | rg password', { cwd: '/root' })).decision).toBe('allow');
    expect((await checkCommand('cat notes.txt | ugrep password', { cwd: '/root' })).decision).toBe('allow');
    expect((await checkCommand('cat notes.txt | grep -r password', { cwd: '/root' })).decision).toBe('deny');
  });

  it('passes a nested shell only what is exported: a variable for another program, or unexported, changes nothing', async () => {
    for (const c of ["bash -c 'echo $HOME'", "X=1; bash -c 'git log'", "HOME=/tmp/h bash -c 'npm test'", "export X=1; bash -c 'echo $X'", "GIT_DIR=.git bash -c 'git status'"]) {
      expect((await checkCommand(c)).findings.map((f) => f.rule), c).toEqual(['shell.interpreter.inline']);
    }
  });

  it('judges a git alias given on the command line like the command it stands for', async () => {
    for (const [alias, direct] of [
      ["git -c alias.c=clone c -u 'touch x' repo", "git clone -u 'touch x' repo"],
      ["git -c alias.c=clone c -u 'rm -rf /' repo", "git clone -u 'rm -rf /' repo"],
      ["git -c alias.p='push --force' p origin", 'git push --force origin'],
      ["git -c alias.g='grep --no-index' g key /root", 'git grep --no-index key /root'],
    ] as const) {
      const [a, d] = [await checkCommand(alias), await checkCommand(direct)];
      expect([a.decision, a.findings.map((f) => f.rule)], alias).toEqual([d.decision, d.findings.map((f) => f.rule)]);
    }
    // an "always" for the alias's name must not cover what it now stands for
    expect((await checkCommand('git -c alias.c=clone c https://github.com/x/y')).commands).toContainEqual({ program: 'git', subcommand: 'clone', options: ['-c alias.c=clone'] });
  });

  it('scopes the program rg --pre runs on each file, so an "always" for rg does not cover it', async () => {
    expect((await checkCommand('rg --pre=/tmp/x.sh foo')).commands).toEqual(expect.arrayContaining([{ program: 'rg' }, { program: '/tmp/x.sh', file: true }]));
    expect((await checkCommand('rg --pre pdftotext x docs')).commands).toContainEqual({ program: 'pdftotext' });
    expect((await checkCommand('rg --pre rm --no-pre x src')).commands).toEqual([{ program: 'rg' }]);
  });

  it('fails closed above the size limit, with its own rule', async () => {
    const v = await checkCommand('echo ' + 'a'.repeat(DEFAULT_MAX_BYTES));
    expect(v).toEqual({ decision: 'ask', findings: [expect.objectContaining({ rule: 'shell.input.oversized' })], commands: [] });
    expect((await checkCommand('echo hello', { maxBytes: 5 })).findings[0]?.rule).toBe('shell.input.oversized');
    expect((await checkCommand('echo hello', { maxBytes: 100 })).decision).toBe('allow');
  });

  it('stops re-parsing nested shells at the depth limit (fail closed)', async () => {
    let cmd = 'ls';
    for (let i = 0; i < 12; i++) cmd = `bash -c ${JSON.stringify(cmd)}`;
    const v = await checkCommand(cmd);
    expect(v.findings.map((f) => f.rule)).toContain('shell.input.too_complex');
  });

  it('walks a very long && chain without overflowing and still finds the block at its end', async () => {
    const v = await checkCommand(Array(5_000).fill('true').join(' && ') + ' && rm -rf /');
    expect(v.decision).toBe('deny');
  });

  it('fails closed on pipelines and nesting beyond its limits', async () => {
    expect((await checkCommand(Array(600).fill('cat').join(' | '))).findings.map((f) => f.rule)).toContain('shell.input.too_complex');
    expect((await checkCommand('( '.repeat(100) + 'ls' + ' )'.repeat(100))).decision).toBe('ask');
  });

  it('walks loops per item, without multiplying nested loops beyond a bound', async () => {
    expect((await checkCommand('for d in /tmp /usr; do rm -rf "$d"; done')).decision).toBe('deny');
    const nested = 'for a in 1 2 3 4 5 6 7 8; do for b in 1 2 3 4 5 6 7 8; do for c in 1 2 3 4 5 6 7 8; do rm -rf "/tmp/$a$b$c"; done; done; done';
    expect((await checkCommand(nested)).decision).toBe('ask');
  });

  it('ends options at -- (what follows is an operand)', async () => {
    expect((await checkCommand('rm -f -- notes.txt -r')).decision).toBe('allow');
    expect((await checkCommand('rm -rf -- /')).decision).toBe('deny');
  });

  it('flags a command for what it looks like after Unicode normalisation (NFKC)', async () => {
    expect((await checkCommand('ｒｍ -ｒｆ ／')).decision).toBe('deny');
  });

  it('judges the text the shell runs: fullwidth quotes are not quotes to it', async () => {
    const verdict = await checkCommand('echo ＂; rm -rf ~; echo ＂');
    expect(verdict.decision).toBe('deny');
    expect(verdict.commands?.map((c) => c.program)).toEqual(['echo', 'rm']);
  });

  it('treats quoted text as data, except SQL given to a database client', async () => {
    expect((await checkCommand('echo "DROP TABLE users; rm -rf /"')).decision).toBe('allow');
    expect((await checkCommand('psql -c "DROP TABLE users"')).decision).toBe('ask');
  });

  it('has one rule per id, each with a reason and a verdict', () => {
    const ids = SHELL_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of SHELL_RULES) {
      expect(r.id).toMatch(/^shell\.[a-z_]+\.[a-z_]+$/);
      expect(['deny', 'ask']).toContain(r.severity);
      expect(r.reason).toMatch(/\.$/);
    }
  });

  it('reuses one loaded parser across thousands of checks in a process', async () => {
    const commands = ['ls -la', 'rm -rf /', 'git status', 'bash -c "echo $(date)"', 'cat <<EOF\nx\nEOF', 'echo "unterminated'];
    const expected = await Promise.all(commands.map(async (c) => (await checkCommand(c)).decision));
    expect(expected).toEqual(['allow', 'deny', 'allow', 'ask', 'allow', 'ask']);
    for (let i = 0; i < 2000; i++) {
      const k = i % commands.length;
      expect((await checkCommand(`: ${i}; ${commands[k]}`)).decision).toBe(expected[k]);
    }
  });
});
