/** A process's memory as Linux reports it in /proc/<pid>/status; null elsewhere or once the process is gone. */
import fs from 'node:fs';

function statusFields(pid: number, fields: string[]): number[] | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const mb = fields.map((field) => Number(status.match(new RegExp(`^${field}:\\s*(\\d+)\\s*kB`, 'm'))?.[1] ?? NaN) / 1024);
    return mb.some(Number.isNaN) ? null : mb;
  } catch {
    return null;
  }
}

/** Resident memory in MB, now and at its peak. */
export function residentMemory(pid: number): { rssMb: number; peakMb: number } | null {
  const fields = statusFields(pid, ['VmRSS', 'VmHWM']);
  return fields && { rssMb: fields[0], peakMb: fields[1] };
}

/**
 * The private data mappings in MB (VmData): what RLIMIT_DATA counts, address space reserved as well as used.
 * V8 reserves hundreds of MB there at start (its heap cage and code range; more on Node 24 than on 20).
 */
export function dataSizeMb(pid: number): number | null {
  return statusFields(pid, ['VmData'])?.[0] ?? null;
}
