// The command line: a subcommand, then --port, --data, --major, --io-method, --remove, --no-data-checksums and -c name=value.
import { UsageError } from "./errors.mjs";
import { DEFAULT_MAJOR, MAJORS } from "./layout.mjs";

/** Where and how the server listens stays this script's business: loopback, its own socket folder. */
const OWN_SETTINGS = ["port", "listen_addresses", "unix_socket_directories", "data_directory", "hba_file"];

export function parseArgs(argv) {
  const [command, ...rest] = argv;
  const opts = { settings: {}, major: DEFAULT_MAJOR };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const value = () => {
      const v = rest[++i];
      if (v === undefined) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    if (arg === "--port") {
      const port = Number(value());
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError("--port wants 1-65535");
      opts.port = port;
    } else if (arg === "--data") opts.data = value();
    else if (arg === "--major") {
      const major = Number(value());
      if (!MAJORS.includes(major)) throw new UsageError(`--major wants ${MAJORS.join(" or ")}`);
      opts.major = major;
    } else if (arg === "--io-method") opts.ioMethod = value();
    else if (arg === "--remove") opts.remove = true;
    else if (arg === "--no-data-checksums") opts.noDataChecksums = true;
    else if (arg === "-c") {
      const m = /^([A-Za-z_][A-Za-z0-9_.]*)=(.*)$/s.exec(value());
      if (!m) throw new UsageError(`-c wants name=value (got ${JSON.stringify(rest[i])})`);
      if (OWN_SETTINGS.includes(m[1].toLowerCase())) throw new UsageError(`-c ${m[1]} is set by this script (use --port for the port)`);
      opts.settings[m[1]] = m[2];
    } else throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  return { command, opts };
}
