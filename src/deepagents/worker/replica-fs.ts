/**
 * The shell's file system in the worker thread: just-bash's own `InMemoryFs` holding a copy
 * of the host's store, wrapped so that every change a command makes is recorded and can be
 * sent back as `ReplicaChanges`. Links are refused (the store has none, and a link is the
 * classic way out of a tree); one file may not grow past `maxFileBytes`, all files past
 * `maxTotalFileBytes` (the host checks both again, with the entry count, before it applies
 * anything). The device files (`/dev/null`, ...) are answered by `devices.ts` and never stored.
 */
import { InMemoryFs, unsafeBytesFromLatin1 } from "just-bash";
import type { BufferEncoding, CpOptions, FileContent, FsStat, IFileSystem, MkdirOptions, RmOptions } from "just-bash";
import type { ReplicaChanges, WireEntry } from "../protocol.js";
import { devDirectoryStat, deviceBytes, deviceNames, deviceStat, isDevice } from "./devices.js";

// just-bash does not export these from its entry point; they are the types of its own methods.
type ReadFileOptions = Parameters<InMemoryFs["readFile"]>[1];
type WriteFileOptions = Parameters<InMemoryFs["writeFile"]>[2];
type DirentEntry = Awaited<ReturnType<InMemoryFs["readdirWithFileTypes"]>>[number];

/** Above this many removed or moved trees in one command, the whole tree is compared instead. */
const MAX_TRACKED_TREES = 64;

/** An error shaped like Node's, which just-bash's commands turn into shell messages. */
function fsError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/** The replica (see the module comment). */
export class ReplicaFs implements IFileSystem {
  private inner: InMemoryFs;
  /** The paths the host's store holds, as of the last sync or collected change. */
  private readonly hostPaths = new Set<string>();
  /** Paths a command wrote, created or changed (with the directories above them). */
  private readonly touched = new Set<string>();
  /** Paths a command removed, moved or copied as a tree. */
  private readonly trees = new Set<string>();

  constructor(private readonly limits: { maxFileBytes: number; maxTotalFileBytes: number }) {
    this.inner = this.emptyFs();
  }

  /** Makes the replica hold exactly `entries` (a full copy of the store). */
  async reset(entries: Array<[string, WireEntry]>): Promise<void> {
    this.inner = this.emptyFs();
    this.hostPaths.clear();
    this.touched.clear();
    this.trees.clear();
    await this.applyFromHost({ upserts: entries, deletes: [] });
  }

  /** Applies what the host's store changed since the last command. */
  async applyFromHost(changes: ReplicaChanges): Promise<void> {
    const deleted = new Set(changes.deletes);
    for (const path of changes.deletes) await this.remove(path);
    if (deleted.size > 0) for (const p of [...this.hostPaths]) if (deleted.has(p) || hasAncestorIn(p, deleted)) this.hostPaths.delete(p);
    for (const [path, entry] of [...changes.upserts].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await this.put(path, entry);
      this.hostPaths.add(path);
    }
  }

  /**
   * Writes what a program left (its files are copies, so it cannot reach the replica while
   * it runs), recorded like any other change of the command.
   */
  async applyProgramOutcome(written: Array<[string, Uint8Array]>, removed: string[]): Promise<void> {
    for (const path of removed) {
      await this.remove(path);
      this.trees.add(path);
    }
    for (const [path, bytes] of written) {
      // A program's write to a device was discarded by its own engine; a path named so is not stored.
      if (this.device(path)) continue;
      await this.put(path, { kind: "file", bytes, modifiedMs: Date.now() });
      this.touch(path);
    }
  }

  /** Every regular file, for a program's `files`. */
  async allFiles(): Promise<Array<[string, Uint8Array]>> {
    const out: Array<[string, Uint8Array]> = [];
    for (const path of this.inner.getAllPaths()) {
      const st = await this.inner.lstat(path).catch(() => undefined);
      if (st?.isFile) out.push([path, await this.inner.readFileBuffer(path)]);
    }
    return out;
  }

  /** What the command changed since the last call, as changes for the host's store. */
  async collectChanges(): Promise<ReplicaChanges> {
    const candidates = new Set(this.touched);
    if (this.trees.size > MAX_TRACKED_TREES) {
      for (const p of this.inner.getAllPaths()) candidates.add(p);
      for (const p of this.hostPaths) candidates.add(p);
    } else if (this.trees.size > 0) {
      const within = (p: string): boolean => [...this.trees].some((t) => t === "/" || p === t || p.startsWith(t + "/"));
      for (const p of this.inner.getAllPaths()) if (within(p)) candidates.add(p);
      for (const p of this.hostPaths) if (within(p)) candidates.add(p);
    }
    this.touched.clear();
    this.trees.clear();
    candidates.delete("/");
    const upserts: Array<[string, WireEntry]> = [];
    const deletes: string[] = [];
    // Sets and ancestor walks, not scans of every path per removed path: with the scans,
    // `rm -f /f*` over 10 000 files was quadratic.
    const deleted = new Set<string>();
    for (const path of [...candidates].sort()) {
      const st = await this.inner.lstat(path).catch(() => undefined);
      if (st?.isFile) upserts.push([path, { kind: "file", bytes: await this.inner.readFileBuffer(path), modifiedMs: st.mtime.getTime() }]);
      else if (st?.isDirectory) upserts.push([path, { kind: "dir", modifiedMs: st.mtime.getTime() }]);
      else if (this.hostPaths.has(path) && !hasAncestorIn(path, deleted)) {
        deletes.push(path);
        deleted.add(path);
      }
    }
    if (deleted.size > 0) for (const p of [...this.hostPaths]) if (deleted.has(p) || hasAncestorIn(p, deleted)) this.hostPaths.delete(p);
    for (const [path] of upserts) this.hostPaths.add(path);
    return { upserts, deletes };
  }

  // --- IFileSystem: reads pass through; writes are checked and recorded. ---

  readFile(path: string, options?: ReadFileOptions | BufferEncoding): Promise<string> {
    if (this.device(path)) {
      const bytes = Buffer.from(deviceBytes(this.device(path)!));
      const encoding = typeof options === "string" ? options : options?.encoding;
      return Promise.resolve(bytes.toString(encoding === "binary" || encoding === "latin1" ? "latin1" : (encoding ?? "utf8")));
    }
    return this.inner.readFile(path, options);
  }

  readFileBytes(path: string): ReturnType<InMemoryFs["readFileBytes"]> {
    const device = this.device(path);
    if (device) return Promise.resolve(unsafeBytesFromLatin1(Buffer.from(deviceBytes(device)).toString("latin1")));
    return this.inner.readFileBytes(path);
  }

  readFileBuffer(path: string): Promise<Uint8Array> {
    const device = this.device(path);
    if (device) return Promise.resolve(deviceBytes(device));
    return this.inner.readFileBuffer(path);
  }

  async writeFile(path: string, content: FileContent, options?: WriteFileOptions | BufferEncoding): Promise<void> {
    // A write to a device is discarded: nothing kept, sent to the store or counted.
    if (this.device(path)) return;
    this.checkFileSize(path, byteLength(content, options));
    await this.inner.writeFile(path, content, options);
    this.touch(path);
  }

  async appendFile(path: string, content: FileContent, options?: WriteFileOptions | BufferEncoding): Promise<void> {
    if (this.device(path)) return;
    const current = await this.inner.stat(path).then((s) => (s.isFile ? s.size : 0), () => 0);
    this.checkFileSize(path, current + byteLength(content, options));
    await this.inner.appendFile(path, content, options);
    this.touch(path);
  }

  async exists(path: string): Promise<boolean> {
    if (this.device(path) || this.normalise(path) === "/dev") return true;
    return this.inner.exists(path);
  }

  stat(path: string): Promise<FsStat> {
    return this.deviceStat(path) ?? this.inner.stat(path);
  }

  lstat(path: string): Promise<FsStat> {
    return this.deviceStat(path) ?? this.inner.lstat(path);
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    if (this.device(path)) throw fsError("EEXIST", `file exists, '${path}'`);
    // `mkdir -p /dev` is a no-op as on a real system (the directory is there).
    if (this.normalise(path) === "/dev" && !(await this.inner.exists("/dev"))) {
      if (options?.recursive) return;
      throw fsError("EEXIST", `file exists, '${path}'`);
    }
    await this.inner.mkdir(path, options);
    this.touch(path);
  }

  async readdir(path: string): Promise<string[]> {
    if (this.normalise(path) !== "/dev") return this.inner.readdir(path);
    const stored = await this.inner.readdir("/dev").catch(() => [] as string[]);
    return [...new Set([...stored, ...deviceNames()])].sort();
  }

  async readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    if (this.normalise(path) !== "/dev") return this.inner.readdirWithFileTypes(path);
    const stored = await this.inner.readdirWithFileTypes("/dev").catch(() => [] as DirentEntry[]);
    const names = new Set(deviceNames());
    const devices = deviceNames().map((name) => ({ name, isFile: false, isDirectory: false, isSymbolicLink: false }));
    return [...stored.filter((e) => !names.has(e.name)), ...devices].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const target = this.normalise(path);
    // Devices are not removed (`rm -rf /dev` removes what the replica stores there, if anything).
    if (this.device(target)) throw fsError("EPERM", `operation not permitted, '${path}'`);
    if (target === "/dev" && !(await this.inner.exists("/dev"))) return;
    await this.inner.rm(path, options);
    this.trees.add(this.inner.resolvePath("/", path));
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    if (this.device(dest)) {
      await this.readFileBuffer(src);
      return;
    }
    if (this.device(src)) {
      await this.writeFile(dest, deviceBytes(this.device(src)!));
      return;
    }
    await this.inner.cp(src, dest, options);
    this.trees.add(this.inner.resolvePath("/", dest));
    this.touch(dest);
  }

  async mv(src: string, dest: string): Promise<void> {
    if (this.device(src) || this.device(dest)) throw fsError("EPERM", `operation not permitted, '${this.device(src) ? src : dest}'`);
    await this.inner.mv(src, dest);
    this.trees.add(this.inner.resolvePath("/", src));
    this.trees.add(this.inner.resolvePath("/", dest));
    this.touch(dest);
  }

  resolvePath(base: string, path: string): string {
    return this.inner.resolvePath(base, path);
  }

  getAllPaths(): string[] {
    return this.inner.getAllPaths();
  }

  async chmod(path: string, mode: number): Promise<void> {
    if (this.device(path)) return;
    await this.inner.chmod(path, mode);
  }

  symlink(_target: string, linkPath: string): Promise<void> {
    return Promise.reject(fsError("EPERM", `links are not supported in this sandbox, '${linkPath}'`));
  }

  link(_existingPath: string, newPath: string): Promise<void> {
    return Promise.reject(fsError("EPERM", `links are not supported in this sandbox, '${newPath}'`));
  }

  readlink(path: string): Promise<string> {
    return Promise.reject(fsError("EINVAL", `not a symbolic link, '${path}'`));
  }

  realpath(path: string): Promise<string> {
    if (this.device(path)) return Promise.resolve(this.normalise(path));
    return this.inner.realpath(path);
  }

  async utimes(path: string, atime: Date, mtime: Date): Promise<void> {
    if (this.device(path)) return;
    await this.inner.utimes(path, atime, mtime);
    this.touch(path);
  }

  // --- helpers ---

  private normalise(path: string): string {
    return this.inner.resolvePath("/", path);
  }

  /** The device `path` names (normalised), if it names one. */
  private device(path: string): string | undefined {
    const p = this.normalise(path);
    return isDevice(p) ? p : undefined;
  }

  private deviceStat(path: string): Promise<FsStat> | undefined {
    const device = this.device(path);
    if (device) return Promise.resolve(deviceStat(device));
    if (this.normalise(path) === "/dev") return this.inner.lstat("/dev").catch(() => devDirectoryStat());
    return undefined;
  }

  private emptyFs(): InMemoryFs {
    return new InMemoryFs(undefined, { maxTotalBytes: this.limits.maxTotalFileBytes });
  }

  private checkFileSize(path: string, bytes: number): void {
    if (bytes > this.limits.maxFileBytes) {
      throw fsError("EFBIG", `file too large: '${path}' would hold ${bytes} bytes, over the sandbox's ${this.limits.maxFileBytes}-byte maxFileBytes limit`);
    }
  }

  /** Records a path and the directories above it (writes create missing parents). */
  private touch(path: string): void {
    let p = this.inner.resolvePath("/", path);
    while (p !== "/" && p !== "") {
      this.touched.add(p);
      p = p.slice(0, Math.max(p.lastIndexOf("/"), 0)) || "/";
    }
  }

  /** Creates or replaces an entry with the store's content and time (a kind that changed is replaced whole). */
  private async put(path: string, entry: WireEntry): Promise<void> {
    const st = await this.inner.lstat(path).catch(() => undefined);
    if (st && (st.isDirectory ? "dir" : "file") !== entry.kind) await this.remove(path);
    if (entry.kind === "dir") this.inner.mkdirSync(path, { recursive: true });
    else this.inner.writeFileSync(path, entry.bytes, undefined, { mtime: new Date(entry.modifiedMs) });
    await this.inner.utimes(path, new Date(entry.modifiedMs), new Date(entry.modifiedMs)).catch(() => undefined);
  }

  private async remove(path: string): Promise<void> {
    await this.inner.rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** True when a directory above `path` is in `dirs` (`/` never is: the root is not removed). */
function hasAncestorIn(path: string, dirs: ReadonlySet<string>): boolean {
  for (let slash = path.lastIndexOf("/"); slash > 0; slash = path.lastIndexOf("/", slash - 1)) {
    if (dirs.has(path.slice(0, slash))) return true;
  }
  return false;
}

function byteLength(content: FileContent, options?: WriteFileOptions | BufferEncoding): number {
  if (typeof content !== "string") return content.byteLength;
  const encoding = typeof options === "string" ? options : options?.encoding;
  if (encoding === "base64") return Math.ceil((content.length * 3) / 4);
  if (encoding === "hex") return Math.ceil(content.length / 2);
  if (encoding === "binary" || encoding === "latin1" || encoding === "ascii") return content.length;
  return Buffer.byteLength(content, "utf8");
}
