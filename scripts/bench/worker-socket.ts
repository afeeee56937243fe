// What `wrangler dev` puts between a bench client and the Worker, taken out of a measurement:
// wrangler serves its port from a proxy (a second workerd, a Durable Object that forwards each
// request with fetch) which the platform does not have; the workerd running the Worker listens on
// ports of its own, one of them its entry. Found from Linux /proc: the listening TCP sockets the
// worker's workerd holds, each asked for the bench entry's `/__bench/bare`. Also the CPU time that
// workerd has used, which counts the Worker and the local D1, R2, cache and rate limiter it
// simulates, whatever else runs on the machine (docs/performance.md "Queries").
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Inodes of the sockets `pid` holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed while we looked
    }
  }
  return inodes;
}

/** Ports on 127.0.0.1 that `pid` listens on (IPv4 `/proc/net/tcp`: state 0A is LISTEN). */
export function listeningPorts(pid: number): number[] {
  const inodes = socketInodes(pid);
  const ports: number[] = [];
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, "utf8").split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    const [address, port] = (fields[1] ?? "").split(":");
    if (fields[3] === "0A" && address === "0100007F" && inodes.has(fields[9] ?? "")) ports.push(Number.parseInt(port ?? "", 16));
  }
  return ports;
}

/** The origin of the worker's own entry socket (answers the bench entry's `/__bench/bare`), or null. */
export async function workerOrigin(pid: number): Promise<string | null> {
  for (const port of listeningPorts(pid)) {
    const origin = `http://127.0.0.1:${port}`;
    try {
      const response = await fetch(`${origin}/__bench/bare`, { signal: AbortSignal.timeout(5_000) });
      if (response.status === 200 && (await response.text()) === '{"ok":true}') return origin;
    } catch {
      // not an HTTP socket, or not the entry
    }
  }
  return null;
}

/** User plus system CPU time `pid` has used, in milliseconds (clock ticks of 10 ms). */
export function cpuMilliseconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
