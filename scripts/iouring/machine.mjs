// Whether this machine can do it at all; each refusal says what would fix it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Unavailable } from "./errors.mjs";

/** Enough for stop and teardown: Linux, as root. */
export function checkPlatform() {
  if (process.platform !== "linux") {
    throw new Unavailable(`this is ${process.platform}, not Linux: io_uring is a Linux kernel interface; run on a Linux machine`);
  }
  if (process.getuid() !== 0) {
    throw new Unavailable("not running as root: debootstrap, chroot and mount need root; run it as root (e.g. with sudo)");
  }
}

/** Enough to set up and run a cluster: io_uring allowed, and the programs this script runs. */
export function checkMachine() {
  checkPlatform();
  const knob = "/proc/sys/kernel/io_uring_disabled";
  if (existsSync(knob)) {
    const value = readFileSync(knob, "utf8").trim();
    if (value !== "0") {
      throw new Unavailable(`${knob} is ${value}, so PostgreSQL may not use io_uring; fix: sysctl -w kernel.io_uring_disabled=0`);
    }
  }
  for (const program of ["debootstrap", "chroot", "mount", "umount"]) {
    if (!onPath(program)) {
      const fix = program === "debootstrap" ? "apt-get install debootstrap" : `install the program ${program}`;
      throw new Unavailable(`${program} is not installed; fix: ${fix}`);
    }
  }
}

function onPath(program) {
  const dirs = [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/sbin", "/usr/bin", "/bin"];
  return dirs.some((dir) => dir && existsSync(path.join(dir, program)));
}
