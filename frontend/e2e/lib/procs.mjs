// Process bookkeeping for the e2e harness: start a command in its own
// process group, and stop it with everything it spawned (even children that
// left the group), SIGTERM first, then SIGKILL.

import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** start runs cmd in a new process group; output goes to the given stream. */
export function start(cmd, args, { env, cwd, out }) {
  const child = spawn(cmd, args, { env, cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.on("error", (err) => out?.write(`start ${cmd}: ${err.message}\n`));
  child.stdout.on("data", (d) => out?.write(d));
  child.stderr.on("data", (d) => out?.write(d));
  return child;
}

/** descendants lists every live process below pid (from /proc). */
export function descendants(pid) {
  const children = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    // pid (comm) state ppid ...; comm may contain spaces and parens.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(rest[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(name));
  }
  const out = [];
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift();
    for (const c of children.get(p) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid, sig, group) {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    /* already gone */
  }
}

/** stop ends the process group of child and every descendant; it waits up to graceMs before SIGKILL. */
export async function stop(child, graceMs = 3000) {
  if (!child?.pid) return;
  const pid = child.pid;
  const tree = [pid, ...descendants(pid)];
  signal(pid, "SIGTERM", true);
  for (const p of tree) signal(p, "SIGTERM", false);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && tree.some(alive)) await new Promise((r) => setTimeout(r, 100));
  signal(pid, "SIGKILL", true);
  for (const p of [...tree, ...descendants(pid)]) if (alive(p)) signal(p, "SIGKILL", false);
}

/** stopSync is the last-resort cleanup for process exit handlers (no waiting). */
export function stopSync(child) {
  if (!child?.pid) return;
  const tree = [child.pid, ...descendants(child.pid)];
  signal(child.pid, "SIGKILL", true);
  for (const p of tree) signal(p, "SIGKILL", false);
}
