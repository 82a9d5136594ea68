import { has, hasFamily, parseOptions } from '../flags.ts';
import type { Emit, Invocation } from '../model.ts';
import { gitCommand } from '../git-command.ts';
import { SQL_CLIENTS } from '../program-tables.ts';
import { plain } from '../values.ts';

const DROP = /\bDROP\s+(TABLE|DATABASE|SCHEMA|KEYSPACE)\b/i;
const TRUNCATE = /\bTRUNCATE\b(\s+TABLE)?\s+[^\s;]/i;
const DELETE = /\bDELETE\s+FROM\s+[^\s;]+/i;
const REDIS = /^(flushall|flushdb)$/i;
const MONGO = /\.dropDatabase\s*\(|\.drop\s*\(\s*\)|\.(deleteMany|remove)\s*\(\s*\{\s*\}\s*\)/;

/** The first destructive statement in SQL text, if any. */
export function destructiveSql(text: string): string | null {
  // comments could hide a WHERE (`DELETE FROM t -- WHERE id=1`)
  const code = text.replace(/--[^\n]*/g, ' ').replace(/\/\*[\s\S]*?\*\//g, ' ');
  for (const raw of code.split(';')) {
    const s = raw.trim();
    if (DROP.test(s) || TRUNCATE.test(s) || (DELETE.test(s) && !/\bWHERE\b/i.test(s))) return s.replace(/\s+/g, ' ');
  }
  return null;
}

export function checkSql(inv: Invocation, emit: Emit): void {
  if (!SQL_CLIENTS.has(inv.program)) return;
  const texts = [...inv.args.map((a) => plain(a.v)), ...(inv.stdinText !== null ? [inv.stdinText] : [])];
  for (const t of texts) {
    if (/^(redis|valkey|keydb)-cli$/.test(inv.program) ? t.split(/\s+/).some((w) => REDIS.test(w)) : /^mongo(sh)?$/.test(inv.program) ? MONGO.test(t) : destructiveSql(t) !== null) {
      emit('shell.sql.destructive', `${inv.program}: ${destructiveSql(t) ?? t}`);
      return;
    }
  }
}


/** `git -c alias.p='push --force' p` is judged as `git push --force` (see gitCommand); an alias it cannot see, like unseen code. */
export function checkGit(inv: Invocation, emit: Emit): void {
  if (inv.program !== 'git') return;
  const { words: ops, unseen } = gitCommand(inv.args);
  if (unseen !== null) emit('shell.code.unseen_setting', `${inv.text} → ${unseen}`);
  const sub = ops[0] ? plain(ops[0].v) : '';
  const p = parseOptions(ops.slice(1), { short: 'o', long: ['repo', 'receive-pack', 'exec', 'push-option'] });
  if (sub === 'push' && ((has(p, 'f', 'mirror') || hasFamily(p, 'force')) || p.operands.some((a) => a.v.startsWith('+')))) emit('shell.git.force_push', inv.text);
  else if (sub === 'reset' && has(p, 'hard')) emit('shell.git.reset_hard', inv.text);
  else if (sub === 'clean' && has(p, 'f', 'force') && !has(p, 'n', 'dry-run')) emit('shell.git.clean', inv.text);
}

const MODE_WORD = /^-[rwxXstugoa=+,-]+$/;

function permissive(mode: string): boolean {
  // an octal mode of any length (`7` is 0007, `00777` is 0777)
  if (/^[0-7]+$/.test(mode)) {
    const n = parseInt(mode, 8);
    return n <= 0o7777 && ((n & 0o002) !== 0 || (n & 0o6000) !== 0);
  }
  for (const clause of mode.split(',')) {
    const m = /^([ugoa]*)((?:[-+=][rwxXstugo]*)+)$/.exec(clause);
    if (!m) continue;
    const who = m[1]!;
    for (const op of m[2]!.match(/[-+=][rwxXstugo]*/g) ?? []) {
      if (op[0] === '-') continue;
      if (op.includes('w') && (who === '' ? op[0] === '=' : /[oa]/.test(who))) return true;
      if (op.includes('s') && !/^o+$/.test(who)) return true;
    }
  }
  return false;
}

export function checkPermissions(inv: Invocation, emit: Emit): void {
  if (inv.program === 'chmod') {
    const all = inv.args.map((a) => plain(a.v));
    // after `--` every word is an operand: the mode first
    const end = all.indexOf('--');
    const words = end < 0 ? all : all.slice(0, end);
    const opts = words.filter((w) => w.startsWith('-') && !MODE_WORD.test(w));
    // GNU takes any unambiguous prefix of a long option: --rec, --recur
    const recursive = opts.some((w) => (w.length >= 5 && '--recursive'.startsWith(w)) || (/^-[^-]/.test(w) && w.includes('R')));
    const mode = end >= 0 && !words.some((w) => w.startsWith('--reference')) ? all[end + 1] : words.find((w) => !(w.startsWith('-') && !MODE_WORD.test(w)) && !w.startsWith('--reference'));
    if (mode !== undefined && permissive(mode)) emit('shell.chmod.permissive', inv.text);
    if (recursive) emit('shell.chmod.recursive', inv.text);
    return;
  }
  if ((inv.program === 'chown' || inv.program === 'chgrp') && has(parseOptions(inv.args, { long: ['from', 'reference'] }), 'R', 'recursive')) {
    emit('shell.chown.recursive', inv.text);
  }
}
