import { main } from './program.ts';

// `echo-agent audit list | head`: the reader has what it wanted; stop quietly instead of an unhandled EPIPE
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await main(process.argv.slice(2));
