// Runs once per server process: parse the configuration (exit on a bad
// value), start one collector per target and, with no target configured,
// the embedded PostgreSQL 18 demo.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { boot } = await import("./lib/server/boot/boot");
  boot();
}
