/**
 * A memory limit on a local browser's renderer processes that covers everything a page can allocate.
 * V8's heap limit (--js-flags=--max-old-space-size, set at launch) stops a script's objects, but not
 * ArrayBuffers, the DOM or images, which live outside that heap: so while the browser runs, its
 * renderer processes' resident memory is read from /proc once a second, and a renderer over the limit is
 * killed. Its pages crash, and their renders fail with a clear error (page-render.ts). Linux only (the
 * limit is /proc's); elsewhere only the V8 limit holds.
 */
import fs from 'node:fs';

const POLL_MS = 1_000;

interface ProcessInfo {
  pid: number;
  ppid: number;
}

function readProcesses(): ProcessInfo[] {
  const list: ProcessInfo[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return list;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields start after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      list.push({ pid: Number(entry), ppid });
    } catch {
      // gone meanwhile
    }
  }
  return list;
}

/** The pid of this process's child whose command line carries `marker` (the browser launched with it). */
export function findChildByMarker(marker: string): number | undefined {
  for (const { pid, ppid } of readProcesses()) {
    if (ppid !== process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** Every descendant of `root` (Chromium's zygote, renderers, utilities). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const { pid, ppid } of readProcesses()) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const found: number[] = [];
  const stack = [root];
  while (stack.length) {
    for (const child of children.get(stack.pop()!) ?? []) {
      found.push(child);
      stack.push(child);
    }
  }
  return found;
}

/** Resident memory of a process in bytes, undefined when it is gone. */
export function residentBytes(pid: number): number | undefined {
  try {
    const match = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

function isRenderer(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
  } catch {
    return false;
  }
}

/** Watches the renderers under `browserPid`; stopped by the returned function. */
export function watchRendererMemory(browserPid: number, limitBytes: number, onKill: (pid: number, bytes: number) => void): () => void {
  const timer = setInterval(() => {
    for (const pid of descendants(browserPid)) {
      const bytes = residentBytes(pid);
      if (bytes === undefined || bytes <= limitBytes || !isRenderer(pid)) continue;
      try {
        process.kill(pid, 'SIGKILL');
        onKill(pid, bytes);
      } catch {
        // gone meanwhile
      }
    }
  }, POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
