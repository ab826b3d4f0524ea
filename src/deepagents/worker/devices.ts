/**
 * The shell's device files. `/dev/null`, `/dev/zero`, `/dev/stdin`, `/dev/stdout` and
 * `/dev/stderr` are answered here, never stored in the replica: a write to one is discarded
 * (so it is not kept, readable afterwards, sent to the host's store or counted against its
 * caps), a read gives what the device gives, and a device cannot be removed, moved or
 * replaced. just-bash itself routes `> /dev/stdout`, `2> /dev/stderr` and `2> /dev/null` in
 * its redirections; this covers every other way a command reaches them through the files
 * (`cat /dev/null`, `echo x > /dev/null`, `tee /dev/null`, `cp f /dev/null`, `head -c 8 /dev/zero`).
 */
import type { FsStat } from "just-bash";

/** The device paths, as absolute normalised paths. */
export const DEVICE_PATHS: ReadonlySet<string> = new Set(["/dev/null", "/dev/zero", "/dev/stdin", "/dev/stdout", "/dev/stderr"]);

/**
 * Bytes a read of `/dev/zero` gives. A real read never ends; commands here read a whole file
 * before they slice it, so a bounded block serves `head -c N /dev/zero` up to this size.
 */
export const DEV_ZERO_READ_BYTES = 64 * 1024;

/** Character-device mode bits (`S_IFCHR`, `rw-rw-rw-`). */
const CHAR_DEVICE_MODE = 0o020666;

const EPOCH = new Date(0);

/** True when the normalised `path` is one of the devices. */
export function isDevice(path: string): boolean {
  return DEVICE_PATHS.has(path);
}

/**
 * What a read of the device gives: zeros for `/dev/zero`; nothing for the others
 * (`/dev/stdin` read as a file has no input: a command's input comes through its pipe).
 */
export function deviceBytes(path: string): Uint8Array {
  return path === "/dev/zero" ? new Uint8Array(DEV_ZERO_READ_BYTES) : new Uint8Array(0);
}

/** The device's `stat`: a character device of size 0, with an identity of its own (`cp` compares them). */
export function deviceStat(path: string): FsStat {
  return { isFile: false, isDirectory: false, isSymbolicLink: false, mode: CHAR_DEVICE_MODE, size: 0, mtime: EPOCH, identity: `device:${path}` };
}

/** The `stat` of `/dev` when the replica holds no directory of that name. */
export function devDirectoryStat(): FsStat {
  return { isFile: false, isDirectory: true, isSymbolicLink: false, mode: 0o040755, size: 0, mtime: EPOCH };
}

/** The device names listed in `/dev`. */
export function deviceNames(): string[] {
  return [...DEVICE_PATHS].map((p) => p.slice("/dev/".length));
}
