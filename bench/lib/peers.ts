// The other programs run beside inflight: pgbench (inflight's statements run
// bare, -M prepared; figure 9's bare reads) and pg_activity (a terminal monitor, in a pseudo
// terminal made by `script`, logging what it shows with --output).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

export interface Peer {
  child: ChildProcess;
  output(): string;
  /** resolves when the process has exited */
  exited: Promise<void>;
  stop(): Promise<void>;
}

function track(child: ChildProcess): { output: () => string; exited: Promise<void> } {
  let out = "";
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { output: () => out, exited };
}

async function stopGroup(child: ChildProcess, exited: Promise<void>, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, signal);
  } catch {
    child.kill(signal);
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  }, 5000);
  await exited;
  clearTimeout(timer);
}

export function toolPath(name: string): string | null {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  const p = r.stdout.trim();
  return r.status === 0 && p ? p : null;
}

export function toolVersion(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return (r.stdout || r.stderr || "").trim().split("\n")[0];
}

export interface PgConn {
  port: number;
  database: string;
  role: string;
  password: string;
}

/** pgbench at `rate` transactions a second in all, one client, the script files given (picked at random, equal weights). */
export function startPgbench(conn: PgConn, files: string[], rate: number, seconds: number): Peer {
  const child = spawn(
    "pgbench",
    [
      "-n",
      "-M",
      "prepared",
      ...files.flatMap((f) => ["-f", `${f}@1`]),
      "-R",
      String(rate),
      "-T",
      String(seconds),
      "-c",
      "1",
      "-h",
      "127.0.0.1",
      "-p",
      String(conn.port),
      "-U",
      conn.role,
      conn.database,
    ],
    { env: { ...process.env, PGPASSWORD: conn.password, PGAPPNAME: "bench-pgbench" }, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const { output, exited } = track(child);
  return { child, output, exited, stop: () => stopGroup(child, exited, "SIGINT") };
}

/** pg_activity at its fastest refresh (0.5 s), in a 240x60 pseudo terminal. */
export function startPgActivity(conn: PgConn, csvFile: string): Peer {
  const cmd = `stty rows 60 cols 240 2>/dev/null; exec pg_activity --refresh 0.5 --output ${csvFile} -h 127.0.0.1 -p ${conn.port} -U ${conn.role} -d ${conn.database}`;
  const child = spawn("script", ["-qfec", cmd, "/dev/null"], {
    env: { ...process.env, PGPASSWORD: conn.password, TERM: "xterm-256color", COLUMNS: "240", LINES: "60" },
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const { output, exited } = track(child);
  return {
    child,
    output,
    exited,
    stop: async () => {
      // q quits pg_activity; the signal is the fallback
      try {
        child.stdin?.write("q");
      } catch {
        // closed
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      await stopGroup(child, exited, "SIGTERM");
    },
  };
}

/** Rows of pg_activity's --output CSV (";"-separated, every field quoted). */
export function readPgActivityCsv(file: string): { pid: string; appname: string; state: string; wait: string; query: string }[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  const out: { pid: string; appname: string; state: string; wait: string; query: string }[] = [];
  for (const line of lines.slice(1)) {
    const fields = line.split('";"').map((f) => f.replace(/^"|"$/g, ""));
    if (fields.length < 15) continue;
    out.push({ pid: fields[1], appname: fields[3], wait: fields[11], state: fields[13], query: fields.slice(14).join('";"') });
  }
  return out;
}

/** pgbench's own "latency average = 0.123 ms" (round trip included, and with -R the schedule lag), null when it printed none. */
export function pgbenchLatencyMs(output: string): number | null {
  const m = /latency average = ([0-9.]+) ms/.exec(output);
  return m ? Number(m[1]) : null;
}
