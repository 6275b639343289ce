/** Ends a command or a start that cannot go on: the message on stderr, and the exit code. */
export function fail(message: string, exitCode = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(exitCode);
}
