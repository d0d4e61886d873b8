// The control-byte scan of content-check.ts in WebAssembly SIMD, 64 bytes per step. It is the hot
// loop of a scan: in JS (32-bit SWAR) it ran at ~1.7-2 GB/s and took three quarters of scan time,
// more than sha256 itself. The reader reads files straight into this module's memory (see
// createSimdScratch), so the check needs no copy.
//
// The module is assembled below by small helpers, one commented line per step, so no build tool
// or binary blob is needed; tests compare it with the JS path and with a reference decoder.
// Exports: memory; scan(start, end) -> i32; mutable global `cont`.
//   scan walks [start, end) in 64-byte steps (end - start must be a multiple of 64) and returns the
//   address of the first step holding a forbidden byte (a C0 control other than tab, LF, FF, CR;
//   or DEL), or -1; then `cont` is the number of UTF-8 continuation bytes (10xxxxxx) in [start, end).

const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};

const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...out, b];
    out.push(b | 0x80);
  }
};

const I32 = 0x7f;
const V128 = 0x7b;
const section = (id: number, ...parts: number[][]) => {
  const bytes = parts.flat();
  return [id, ...leb(bytes.length), ...bytes];
};
const name = (s: string) => [...leb(s.length), ...Buffer.from(s)];

// Core instructions.
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const i32const = (n: number) => [0x41, ...sleb(n)];
const [BLOCK, LOOP, IF] = [
  [0x02, 0x40],
  [0x03, 0x40],
  [0x04, 0x40],
];
const END = [0x0b];
const br = (depth: number) => [0x0c, depth];
const brIf = (depth: number) => [0x0d, depth];
const [I32_ADD, I32_MUL, I32_GE_U] = [[0x6a], [0x6c], [0x4f]];
const globalSet = (i: number) => [0x24, i];

// SIMD instructions (prefix 0xfd).
const simd = (op: number, ...imm: number[]) => [0xfd, ...leb(op), ...imm];
const v128const = (bytes: number[]) => simd(0x0c, ...bytes);
const splat = (b: number) => v128const(new Array(16).fill(b));
const load = (offset: number) => simd(0x00, 0, ...leb(offset));
const SWIZZLE = simd(0x0e);
const EQ8 = simd(0x23);
const AND = simd(0x4e);
const OR = simd(0x50);
const ANY_TRUE = simd(0x53);
const ADD8 = simd(0x6e);
const EXTADD_8S = simd(0x7c); // i16x8.extadd_pairwise_i8x16_s
const EXTADD_16S = simd(0x7e); // i32x4.extadd_pairwise_i16x8_s
const ADD32 = simd(0xae);
const lane32 = (lane: number) => simd(0x1b, lane);

// Locals: params $p, $end; v128 $v, $sum, $bad, $cnt; i32 $hit.
const [P, E, V, SUM, BAD, CNT, HIT] = [0, 1, 2, 3, 4, 5, 6];

/** Bytes 0x00..0x0F that are forbidden (all but tab, LF, FF, CR), as an i8x16.swizzle table. */
const LOW = Array.from({ length: 16 }, (_, i) => ([9, 10, 12, 13].includes(i) ? 0 : 0xff));

/** One 16-byte vector at $p + offset: fold its forbidden-byte mask into $bad, continuation mask into $cnt. */
const vector = (offset: number, first: boolean) => [
  [...get(P), ...load(offset), ...set(V)], // $v = load($p + offset)
  [...v128const(LOW), ...get(V), ...SWIZZLE], // forbidden among 0x00..0x0F (0 for v >= 16)
  [...get(V), ...splat(0xf0), ...AND, ...splat(0x10), ...EQ8, ...OR], // | 0x10..0x1F
  [...get(V), ...splat(0x7f), ...EQ8, ...OR], // | DEL
  first ? set(BAD) : [...get(BAD), ...OR, ...set(BAD)],
  [...get(V), ...splat(0xc0), ...AND, ...splat(0x80), ...EQ8], // -1 per continuation byte
  first ? set(CNT) : [...get(CNT), ...ADD8, ...set(CNT)],
];

const body = [
  [...i32const(-1), ...set(HIT)],
  [...BLOCK, ...LOOP],
  [...get(P), ...get(E), ...I32_GE_U, ...brIf(1)], // while $p < $end
  ...vector(0, true),
  ...vector(16, false),
  ...vector(32, false),
  ...vector(48, false),
  [...get(BAD), ...ANY_TRUE, ...IF, ...get(P), ...set(HIT), ...br(2), ...END], // found: $hit = $p, leave
  [...get(CNT), ...EXTADD_8S, ...EXTADD_16S, ...get(SUM), ...ADD32, ...set(SUM)], // $sum += widened $cnt
  [...get(P), ...i32const(64), ...I32_ADD, ...set(P)],
  [...br(0), ...END, ...END],
  [...get(SUM), ...lane32(0), ...get(SUM), ...lane32(1), ...I32_ADD], // cont = -(sum of lanes)
  [...get(SUM), ...lane32(2), ...I32_ADD, ...get(SUM), ...lane32(3), ...I32_ADD],
  [...i32const(-1), ...I32_MUL, ...globalSet(0)],
  [...get(HIT), ...END],
].flat();

function moduleBytes(pages: number): Uint8Array {
  const fn = [2, 4, V128, 1, I32, ...body];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 2, I32, I32, 1, I32]), // type 0: (i32, i32) -> i32
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(5, [1, 0, ...leb(pages)]), // one memory, fixed size: views on it never detach
    ...section(6, [1, I32, 1], i32const(0), END), // global 0: mutable i32 = 0
    ...section(7, [3], name('memory'), [2, 0], name('cont'), [3, 0], name('scan'), [0, 0]),
    ...section(10, [1, ...leb(fn.length)], fn),
  ]);
}

export interface SimdScanner {
  scan(start: number, end: number): number;
  cont(): number;
}

// @types/node does not declare the WebAssembly global; only this much of it is used.
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
interface ScanExports {
  memory: { buffer: ArrayBuffer };
  scan: (start: number, end: number) => number;
  cont: { value: number };
}

const byMemory = new WeakMap<ArrayBufferLike, SimdScanner>();

/**
 * A buffer of `size` bytes inside a fresh instance's memory, registered so that content checks
 * over it use the SIMD scan. Null when the runtime lacks WebAssembly SIMD (the JS path is used).
 */
export function createSimdScratch(size: number): Buffer | null {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  const pages = Math.ceil(size / 65536) + 1;
  let module = compiled.get(pages);
  if (module === undefined) {
    const bytes = moduleBytes(pages);
    module = wasm?.validate(bytes) ? new wasm.Module(bytes) : null;
    compiled.set(pages, module);
  }
  if (!wasm || !module) return null;
  const ex = new wasm.Instance(module).exports as unknown as ScanExports;
  byMemory.set(ex.memory.buffer, { scan: ex.scan, cont: () => ex.cont.value });
  return Buffer.from(ex.memory.buffer, 0, size);
}

/** Compiled once per memory size; every scan instantiates its own (memory is per instance). */
const compiled = new Map<number, object | null>();

export function simdScannerFor(buf: Uint8Array): SimdScanner | undefined {
  return byMemory.get(buf.buffer);
}
