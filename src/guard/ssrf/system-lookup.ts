import { lookup as dnsLookup } from 'node:dns/promises';

/** Resolves a name to every address it has (the whole answer, not just the first). */
export type Lookup = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

/** The system resolver (getaddrinfo), every address in the order the resolver gave them. */
export const systemLookup: Lookup = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};
