// A TCP proxy on loopback that can hold back the server's answers, to make
// a target slow for real: the statement runs at its usual speed on the
// server, its rows reach the client late.
import net from "node:net";

export interface DelayProxy {
  port: number;
  /** delay added to every chunk from the server to the client, in ms */
  setDelay(ms: number): void;
  /** connections accepted so far */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startDelayProxy(target: { host: string; port: number }): Promise<DelayProxy> {
  let delay = 0;
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    connections++;
    const upstream = net.connect(target);
    sockets.add(client).add(upstream);
    // Chunks keep their order: each leaves no earlier than the one before.
    let last = 0;
    upstream.on("data", (chunk) => {
      const at = Math.max(Date.now() + delay, last);
      last = at;
      setTimeout(() => client.writable && client.write(chunk), at - Date.now());
    });
    client.on("data", (chunk) => upstream.writable && upstream.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", () => setTimeout(end, Math.max(0, last - Date.now()))).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    setDelay: (ms) => (delay = ms),
    get connections() {
      return connections;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
