import { describeTiming, timeCorpus } from './measure.ts';
import { pathToFileURL } from 'node:url';
import { checkUrl } from '../src/guard/ssrf/index.ts';

/** IPv4 samples across public and every blocked range. */
const V4: readonly (readonly [number, number, number, number])[] = [
  [93, 184, 216, 34], [8, 8, 8, 8], [1, 1, 1, 1], [151, 101, 1, 69], [140, 82, 112, 3], [172, 15, 255, 255], [100, 128, 0, 1],
  [127, 0, 0, 1], [127, 1, 2, 3], [10, 0, 0, 1], [10, 20, 30, 40], [172, 16, 0, 1], [172, 31, 1, 1], [192, 168, 1, 1],
  [100, 64, 0, 1], [169, 254, 169, 254], [169, 254, 1, 1], [0, 0, 0, 0], [192, 0, 0, 8], [192, 0, 2, 1], [198, 51, 100, 2],
  [203, 0, 113, 3], [192, 88, 99, 1], [198, 18, 0, 1], [224, 0, 0, 251], [240, 0, 0, 1], [255, 255, 255, 255], [100, 100, 100, 200],
];

const toInt = (o: readonly number[]): number => ((o[0]! << 24) >>> 0) + (o[1]! << 16) + (o[2]! << 8) + o[3]!;
const hex16 = (a: number, b: number): string => ((a << 8) | b).toString(16);

/** Each address written every way the URL parser accepts, and embedded in IPv6. */
function encodings(o: readonly number[]): string[] {
  const [a, b, c, d] = o as [number, number, number, number];
  return [
    `${a}.${b}.${c}.${d}`,
    String(toInt(o)),
    `0x${toInt(o).toString(16)}`,
    `0${a.toString(8)}.0${b.toString(8)}.0${c.toString(8)}.0${d.toString(8)}`,
    `${a}.${(b << 16) + (c << 8) + d}`,
    `0x${a.toString(16)}.${b}.${c}.${d}`,
    `[::ffff:${a}.${b}.${c}.${d}]`,
    `[::ffff:${hex16(a, b)}:${hex16(c, d)}]`,
    `[64:ff9b::${a}.${b}.${c}.${d}]`,
    `[2002:${hex16(a, b)}:${hex16(c, d)}::1]`,
    `[2001:0:4136:e378:8000:63bf:${hex16(~a & 0xff, ~b & 0xff)}:${hex16(~c & 0xff, ~d & 0xff)}]`,
  ];
}

const V6 = ['::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fec0::1', 'ff02::1', '2001:db8::1', '100::1', '2606:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:82b::200e', '64:ff9b:1::1', '5f00::1'];
const NAMES = ['localhost', 'foo.localhost', 'metadata.google.internal', 'metadata', 'db.internal', 'printer.local', 'host.localdomain', 'nas.lan', '127.0.0.1.nip.io', 'intranet', 'fileserver'];
const SHAPES = ['file:///etc/passwd', 'gopher://127.0.0.1:6379/_x', 'ftp://example.com/', 'http://user:pw@example.com/', 'http://example.com@127.0.0.1/', 'not a url', 'http://[::1/', 'javascript:alert(1)'];

/** ≥ 500 URLs: every encoding of every sample, IPv6 literals, names, malformed inputs, with paths and ports. */
export function benchUrls(): string[] {
  const urls: string[] = [];
  const suffix = (i: number) => [`/`, `/a/b?c=${i}`, `:8080/x`, `:443/`][i % 4]!;
  let i = 0;
  for (const o of V4) for (const h of encodings(o)) urls.push(`${i % 2 ? 'https' : 'http'}://${h}${suffix(i++)}`);
  for (const h of V6) for (let k = 0; k < 3; k++) urls.push(`http://[${h}]${suffix(i++)}`);
  for (const n of NAMES) for (const v of [n, n.toUpperCase(), `${n}.`]) urls.push(`http://${v}${suffix(i++)}`);
  for (let k = 0; k < 120; k++) urls.push(`https://host${k}.example${k % 7}.com${suffix(i++)}`);
  for (const s of SHAPES) urls.push(s);
  return urls;
}


/** Prints per-URL p50/p99 µs of checkUrl without DNS. */
export async function benchUrl(): Promise<void> {
  const urls = benchUrls();
  const reps = 20;
  const counts: Record<string, number> = { allow: 0, ask: 0, deny: 0 };
  for (const u of urls) counts[(await checkUrl(u, { lookup: null })).decision]!++;
  for (let w = 0; w < 3; w++) for (const u of urls) await checkUrl(u, { lookup: null });
  const timing = await timeCorpus(urls, reps, (x: string) => checkUrl(x, { lookup: null }));
  console.log(
    `guard url: ${urls.length} URLs (allow ${counts.allow}, ask ${counts.ask}, deny ${counts.deny}), checkUrl without DNS, ` +
      describeTiming(timing, 'URL', reps),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await benchUrl();
