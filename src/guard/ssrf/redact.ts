/**
 * A URL safe to show in reasons, errors and logs (SPEC I11): userinfo replaced by `***@`, the query and
 * fragment cut (tokens often travel there). Works on unparseable input too.
 */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    const auth = u.username || u.password ? '***@' : '';
    const authority = u.href.startsWith(`${u.protocol}//`) ? `//${auth}${u.host}` : '';
    const tail = u.search || u.hash ? '?…' : '';
    return `${u.protocol}${authority}${u.pathname}${tail}`;
  } catch {
    return redactLoose(raw);
  }
}

function redactLoose(raw: string): string {
  const cut = raw.search(/[?#]/);
  const head = cut >= 0 ? `${raw.slice(0, cut)}?…` : raw;
  // anything between the scheme's // (or the start) and an @ before the path is treated as credentials
  const noAuth = head.replace(/^([^/]*\/\/|)[^/\\]*@/, '$1***@');
  const clipped = noAuth.length > 200 ? `${noAuth.slice(0, 200)}…` : noAuth;
  return clipped.replace(/[\u0000-\u001f\u007f]/g, '?');
}
