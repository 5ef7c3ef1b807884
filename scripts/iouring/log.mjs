// Log lines go to stderr, prefixed "[iouring]": stdout carries only the JSON line.

export function log(line) {
  process.stderr.write(`[iouring] ${line}\n`);
}

export function seconds(startedMs) {
  return `${((performance.now() - startedMs) / 1000).toFixed(1)} s`;
}

/** Runs `task`, then logs "<what>: 1.2 s". */
export async function phase(what, task) {
  const started = performance.now();
  const result = await task();
  log(`${what}: ${seconds(started)}`);
  return result;
}
