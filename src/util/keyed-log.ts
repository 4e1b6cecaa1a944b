import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { DefaultSerializer, Deserializer } from "node:v8";
import { readWholeFile, writeFileAtomic } from "./fs.js";
import { stamp } from "./file-stamp.js";
import { noteOwnWrite } from "./known-bytes.js";

/**
 * A cache file of values by key, kept as a log of frames so that a run that adds a few entries to
 * a large cache appends them instead of re-serializing and rewriting every entry (tens of MB at
 * 100,000 turns, issue 11). The file starts with {@link MAGIC}; then each frame holds one
 * v8-serialized value: first `{stamp}` (what the entries were computed under: the code version,
 * with settings), then one `{key, value}` per entry, a later frame for a key replacing an earlier
 * one. The file is rewritten whole, atomically, when entries are dropped, when replaced frames
 * outnumber the live ones, or when the file was missing, torn, foreign or under another stamp. It
 * is a cache: what it cannot vouch for is recomputed, never trusted.
 *
 * v8, not JSON: the caches hold NaN, Infinity and undefined, which must come back exactly.
 */
export interface KeyedLog<V> {
  /** The entries the file holds (after `save`, exactly those saved). */
  readonly stored: ReadonlyMap<string, V>;
  /**
   * Keep exactly `used`: append the entries of `added` (keys of `used` computed since the file was
   * read) when that is enough, else rewrite the file with `used`. Nothing is written when nothing
   * was added or dropped.
   */
  save(used: ReadonlyMap<string, V>, added: Iterable<string>): Promise<void>;
}

export async function openKeyedLog<V>(path: string, stamp: string): Promise<KeyedLog<V>> {
  const log = await readLog<V>(path, stamp);
  return {
    stored: log.entries,
    async save(used, added) {
      const fresh = [...new Set(added)].filter((key) => used.has(key));
      const dropped = [...log.entries.keys()].some((key) => !used.has(key));
      if (fresh.length === 0 && !dropped && !log.rewrite) return;
      const appended = fresh.map((key) => frame({ key, value: used.get(key) }));
      if (!log.rewrite && !dropped && log.frames + appended.length <= 2 * used.size && (await appendTo(path, Buffer.concat(appended)))) {
        log.frames += appended.length;
      } else {
        await writeFileAtomic(path, [MAGIC, frame({ stamp }), ...[...used].map(([key, value]) => frame({ key, value }))]);
        log.frames = used.size;
        log.rewrite = false;
      }
      // The file now holds exactly the entries used: a later save starts from there.
      log.entries.clear();
      for (const [key, value] of used) log.entries.set(key, value);
    },
  };
}

interface Log<V> {
  entries: Map<string, V>;
  /** Entry frames in the file (replaced ones included). */
  frames: number;
  /** The file cannot be appended to as it is (missing, torn, foreign or under another stamp). */
  rewrite: boolean;
}

/**
 * The file's first bytes: the frame layout below (v8.serialize's frames, before it, are read as
 * foreign and the file rewritten).
 */
const MAGIC = Buffer.from("CQLOG\u00002\u0000", "latin1");

/**
 * A frame, 8-byte aligned in the file: its payload's length and its views' length (4 bytes each,
 * little-endian), the v8 payload, padding to 8, then the typed arrays and Buffers of the value
 * ("views"), each 8-byte aligned, after a table of where they are (a count, then each view's kind,
 * offset from the table's start and byte length: 4 bytes each, little-endian; the views' own bytes
 * are in the machine's byte order, as typed arrays hold them). The payload names a view by its
 * number in the table. Why not v8.serialize: it writes each view's bytes inline, at whatever
 * offset the payload has reached, and its reader copies every one whose offset does not suit the
 * element size (seven in eight Float64Arrays) and makes it through a callback reading three
 * numbers; a part of the dashboard's build keeps about thirty typed arrays per session, and
 * reading those of 1,000 sessions took most of the 60 ms its cache took to read. Here each view
 * is made in one loop, in place (a view into the file's bytes, as v8.deserialize's aligned ones were).
 */
function frame(value: unknown): Buffer {
  const serializer = new ViewSerializer();
  serializer.writeHeader();
  serializer.writeValue(value);
  const payload = serializer.releaseBuffer();
  const { views, kinds } = serializer;
  const tableBytes = pad8(4 * (1 + 3 * views.length));
  const offsets: number[] = [];
  let size = tableBytes;
  for (const view of views) {
    offsets.push(size);
    size += pad8(view.byteLength);
  }
  const viewBytes = views.length > 0 ? size : 0;
  const out = Buffer.alloc(8 + pad8(payload.length) + viewBytes);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(viewBytes, 4);
  payload.copy(out, 8);
  if (views.length > 0) {
    const base = 8 + pad8(payload.length);
    out.writeUInt32LE(views.length, base);
    views.forEach((view, i) => {
      const at = base + 4 + 12 * i;
      out.writeUInt32LE(kinds[i], at);
      out.writeUInt32LE(offsets[i], at + 4);
      out.writeUInt32LE(view.byteLength, at + 8);
      out.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength), base + offsets[i]);
    });
  }
  return out;
}

/** `n` rounded up to a multiple of 8 (any length a frame's header can give: up to 2^32 - 1). */
const pad8 = (n: number) => n + (-n & 7);

/** The kinds of view a frame holds, by number: a Buffer comes back a Buffer, a typed array its own type. */
const VIEW_TYPES = [
  Buffer,
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
] as const;

/** Bytes per element of each kind (a Buffer's: 1). */
const ELEMENT_BYTES = VIEW_TYPES.map((type) => (type === Buffer ? 1 : (type as Float64ArrayConstructor).BYTES_PER_ELEMENT));

/** v8's serializer, with each typed array or Buffer written as its number among the frame's views. */
class ViewSerializer extends DefaultSerializer {
  readonly views: ArrayBufferView[] = [];
  readonly kinds: number[] = [];
  _writeHostObject(view: object): void {
    if (!ArrayBuffer.isView(view)) throw new TypeError("a keyed log keeps typed arrays and Buffers, no other host object");
    const kind = VIEW_TYPES.findIndex((type) => view.constructor === type);
    if (kind < 0) throw new TypeError(`a keyed log cannot keep a ${view.constructor.name}`);
    this.writeUint32(this.views.length);
    this.views.push(view);
    this.kinds.push(kind);
  }
}

class ViewDeserializer extends Deserializer {
  constructor(
    payload: Buffer,
    private readonly views: readonly ArrayBufferView[],
  ) {
    super(payload);
  }
  _readHostObject(): ArrayBufferView {
    const view = this.views[this.readUint32()];
    if (view === undefined) throw new Error("a view the frame does not hold");
    return view;
  }
}

/**
 * The frame at `at` of an 8-byte-aligned buffer: its value and where the next frame starts. Throws
 * on anything a frame written by {@link frame} would not hold (the caller takes it as a torn or
 * foreign tail): a length past the end, views off the 8-byte grid, outside their part or cut.
 */
function readFrame(bytes: Buffer, at: number): { value: unknown; end: number } {
  if (at + 8 > bytes.length) throw new Error("torn header");
  const length = bytes.readUInt32LE(at);
  const viewBytes = bytes.readUInt32LE(at + 4);
  if (viewBytes % 8 !== 0) throw new Error("foreign frame");
  const base = at + 8 + pad8(length);
  const end = base + viewBytes;
  if (end > bytes.length) throw new Error("torn frame");
  const views: ArrayBufferView[] = [];
  if (viewBytes > 0) {
    const origin = bytes.byteOffset + base;
    const count = bytes.readUInt32LE(base);
    const tableBytes = pad8(4 * (1 + 3 * count));
    if (tableBytes > viewBytes) throw new Error("torn table");
    for (let i = 0; i < count; i++) {
      const kind = bytes.readUInt32LE(base + 4 + 12 * i);
      const offset = bytes.readUInt32LE(base + 8 + 12 * i);
      const byteLength = bytes.readUInt32LE(base + 12 + 12 * i);
      const type = VIEW_TYPES[kind];
      if (type === undefined || offset % 8 !== 0 || offset < tableBytes || offset + byteLength > viewBytes || byteLength % ELEMENT_BYTES[kind] !== 0)
        throw new Error("foreign view");
      if (type === Buffer) views.push(Buffer.from(bytes.buffer, origin + offset, byteLength));
      else {
        const Typed = type as Float64ArrayConstructor;
        views.push(new Typed(bytes.buffer, origin + offset, byteLength / Typed.BYTES_PER_ELEMENT));
      }
    }
  }
  const deserializer = new ViewDeserializer(bytes.subarray(at + 8, at + 8 + length), views);
  deserializer.readHeader();
  return { value: deserializer.readValue(), end };
}

async function readLog<V>(path: string, stamp: string): Promise<Log<V>> {
  const entries = new Map<string, V>();
  let bytes: Buffer;
  try {
    bytes = await readWholeFile(path);
  } catch {
    return { entries, frames: 0, rewrite: true };
  }
  // The views are made in place: the bytes must start 8-byte aligned (a file read whole does; a copy, if not).
  if (bytes.byteOffset % 8 !== 0) bytes = Buffer.from(bytes);
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) return { entries, frames: 0, rewrite: true };
  let at = MAGIC.length;
  let frames = -1;
  try {
    while (at < bytes.length) {
      const { value, end } = readFrame(bytes, at) as { value: { stamp?: unknown; key?: unknown; value?: V }; end: number };
      if (frames === -1) {
        if (value?.stamp !== stamp) return { entries, frames: 0, rewrite: true };
      } else if (typeof value?.key === "string" && Object.hasOwn(value, "value")) {
        entries.set(value.key, value.value as V);
      } else throw new Error("foreign frame");
      frames++;
      at = end;
    }
  } catch {
    // A torn tail (a crash while appending) or a foreign frame: what came before stands, and the
    // next save rewrites the file so that later appends are not lost behind the damage.
    return { entries: frames === -1 ? new Map() : entries, frames: Math.max(frames, 0), rewrite: true };
  }
  return { entries, frames: Math.max(frames, 0), rewrite: frames === -1 };
}

/**
 * Append to an existing file; false when it is gone (`.cache/` deleted during the run), so the
 * caller writes it whole with its stamp frame instead of starting a file without one. Noted as an
 * own write (util/known-bytes.ts), as every write util/fs.ts makes is.
 */
async function appendTo(path: string, bytes: Buffer): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  try {
    const before = stamp(await handle.stat());
    await handle.appendFile(bytes);
    noteOwnWrite(path, stamp(await handle.stat()), before);
  } finally {
    await handle.close();
  }
  return true;
}
