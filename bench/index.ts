// `npm run bench -- <name>`: prints figures; never asserts on time.
const benches: Record<string, () => Promise<void>> = {
  guard: async () => {
    const [{ benchShell }, { benchUrl }] = await Promise.all([import('./guard-shell.ts'), import('./guard-url.ts')]);
    await benchShell();
    await benchUrl();
  },
  daemon: async () => (await import('./daemon.ts')).benchDaemon(),
  retention: async () => (await import('./retention.ts')).benchRetention(),
  redact: async () => (await import('./redact.ts')).benchRedact(),
  soak: async () => (await import('./soak.ts')).benchSoak(),
};

const name = process.argv[2];
const run = name ? benches[name] : undefined;
if (!run) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(benches).join('|')}>\n`);
  process.exitCode = 64;
} else {
  await run();
}
