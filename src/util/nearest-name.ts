/** Edits (insert, delete, substitute) that turn a into b. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The known name a typo most likely meant: at most two edits away, or the only one it is a prefix of. */
export function nearestName(word: string, known: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const scored = known.map((k) => ({ k, d: distance(w, k) })).sort((x, y) => x.d - y.d);
  if (scored[0] && scored[0].d <= 2) return scored[0].k;
  const extending = known.filter((k) => k.startsWith(w));
  return extending.length === 1 ? extending[0] : undefined;
}
