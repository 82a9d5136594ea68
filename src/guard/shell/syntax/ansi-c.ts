/** Decodes the body of a `$'…'` string (also printf `%b` and `echo -e` escapes). */
export function decodeAnsiC(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\' || i + 1 >= body.length) { out += c; continue; }
    const n = body[++i]!;
    const simple: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
    if (simple[n] !== undefined) { out += simple[n]; continue; }
    const hexLen = n === 'x' ? 2 : n === 'u' ? 4 : n === 'U' ? 8 : 0;
    if (hexLen > 0) {
      const m = /^[0-9A-Fa-f]+/.exec(body.slice(i + 1, i + 1 + hexLen));
      if (!m) { out += '\\' + n; continue; }
      out += String.fromCodePoint(Math.min(parseInt(m[0], 16), 0x10ffff));
      i += m[0].length;
      continue;
    }
    if (/[0-7]/.test(n)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i))!;
      out += String.fromCharCode(parseInt(m[0], 8) & 0xff);
      i += m[0].length - 1;
      continue;
    }
    if (n === 'c' && i + 1 < body.length) { out += String.fromCharCode(body.charCodeAt(++i) & 0x1f); continue; }
    out += '\\' + n;
  }
  return out;
}
