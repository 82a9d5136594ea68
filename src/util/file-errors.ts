/** Why a file could not be read, in words a person acts on (not a bare errno code). */
export function unreadable(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT': return 'no such file';
    case 'EACCES':
    case 'EPERM': return 'permission denied';
    case 'EISDIR': return 'is a directory, not a file';
    default: return code ?? String(err);
  }
}
