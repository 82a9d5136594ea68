import { Header, type HeaderData } from 'tar';

export interface CraftedEntry {
  readonly path: string;
  readonly type?: HeaderData['type'];
  readonly body?: string | Buffer;
  readonly linkpath?: string;
  readonly mode?: number;
}

/**
 * A tar archive written header by header with the tar package's Header, so a test can put in exactly
 * what a hostile archive would (`../evil`, absolute paths, links, devices) without tar.c cleaning it up.
 */
export function craftTar(entries: readonly CraftedEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = typeof e.body === 'string' ? Buffer.from(e.body) : (e.body ?? Buffer.alloc(0));
    const header = new Header({
      path: e.path, type: e.type ?? 'File', size: body.length, mode: e.mode ?? 0o644, uid: 0, gid: 0, mtime: new Date(0),
      ...(e.linkpath ? { linkpath: e.linkpath } : {}),
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export const manifestJson = (over: Record<string, unknown> = {}): string =>
  JSON.stringify({ name: 'hello', version: '1.0.0', description: 'Says hello', ...over });
