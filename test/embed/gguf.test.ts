import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { readGgufFileInfo } from 'node-llama-cpp';
import { readGgufHeader } from '../../src/embed/gguf-file.js';
import { GgmlType, type GgufKv, GgufType, metadataMap } from '../../src/embed/gguf-format.js';
import { parseGguf } from '../../src/embed/gguf-reader.js';
import { encodeGguf, f16ToF32, f32ToF16 } from '../../src/embed/gguf-writer.js';
import { isKorttyError } from '../../src/errors.js';
import { lexicalModel } from '../helpers/models.js';

process.env.KORTTY_HOME = await mkdtemp(join(tmpdir(), 'kortty-gguf-'));

const everyType: GgufKv[] = [
  { key: 'general.architecture', type: GgufType.STRING, value: 'test' },
  { key: 't.u8', type: GgufType.UINT8, value: 255 },
  { key: 't.i8', type: GgufType.INT8, value: -128 },
  { key: 't.u16', type: GgufType.UINT16, value: 65535 },
  { key: 't.i16', type: GgufType.INT16, value: -32768 },
  { key: 't.u32', type: GgufType.UINT32, value: 4294967295 },
  { key: 't.i32', type: GgufType.INT32, value: -2147483648 },
  { key: 't.f32', type: GgufType.FLOAT32, value: 0.5 },
  { key: 't.bool', type: GgufType.BOOL, value: true },
  { key: 't.string', type: GgufType.STRING, value: 'ünïcödé ✓ \u0000 nul' },
  { key: 't.u64', type: GgufType.UINT64, value: 18446744073709551615n },
  { key: 't.i64', type: GgufType.INT64, value: -9223372036854775808n },
  { key: 't.f64', type: GgufType.FLOAT64, value: Math.PI },
  {
    key: 't.strings',
    type: GgufType.ARRAY,
    itemType: GgufType.STRING,
    value: ['', 'a', '▁the', '<|im_end|>'],
  },
  { key: 't.ints', type: GgufType.ARRAY, itemType: GgufType.INT32, value: [1, -2, 3] },
  { key: 't.empty', type: GgufType.ARRAY, itemType: GgufType.UINT8, value: [] },
  { key: 't.bools', type: GgufType.ARRAY, itemType: GgufType.BOOL, value: [true, false] },
  { key: 't.u64s', type: GgufType.ARRAY, itemType: GgufType.UINT64, value: [0n, 1n << 40n] },
];

const f32data = Float32Array.from({ length: 3 * 5 }, (_, i) => i / 7 - 1);
const f16data = Float32Array.from([0, 1, -2, 0.5, 65504, 1e-7]);

function sample(alignment?: number) {
  return encodeGguf({
    metadata: everyType,
    tensors: [
      { name: 'a.weight', dims: [3, 5], type: GgmlType.F32, data: f32data },
      { name: 'b.weight', dims: [6], type: GgmlType.F16, data: f16data },
      { name: 'c.weight', dims: [32, 2], type: GgmlType.Q8_0, bytes: new Uint8Array(68) },
    ],
    ...(alignment ? { alignment } : {}),
  });
}

for (const alignment of [undefined, 64]) {
  test(`round trip: every metadata type, F32/F16/Q8_0 tensors, alignment ${alignment ?? 'default'}`, (t) => {
    const bytes = sample(alignment);
    const file = parseGguf(bytes);
    const align = alignment ?? 32;
    t.is(file.version, 3);
    t.is(file.alignment, align);
    const expected = alignment
      ? [...everyType, { key: 'general.alignment', type: GgufType.UINT32, value: 64 }]
      : everyType;
    t.deepEqual(file.metadata, expected);
    t.deepEqual(
      file.tensors.map((x) => [x.name, x.dims, x.type]),
      [
        ['a.weight', [3, 5], GgmlType.F32],
        ['b.weight', [6], GgmlType.F16],
        ['c.weight', [32, 2], GgmlType.Q8_0],
      ],
    );
    t.is(file.dataOffset % align, 0);
    for (const x of file.tensors) t.is(x.offset % align, 0);
    const a = file.tensors[0]!;
    const got = Array.from({ length: 15 }, (_, i) => bytes.readFloatLE(file.dataOffset + a.offset + i * 4));
    t.deepEqual(got, Array.from(f32data));
    const b = file.tensors[1]!;
    const halves = Array.from({ length: 6 }, (_, i) =>
      f16ToF32(bytes.readUInt16LE(file.dataOffset + b.offset + i * 2)),
    );
    t.deepEqual(halves.slice(0, 5), [0, 1, -2, 0.5, 65504]);
    t.true(Math.abs(halves[5]! - 1e-7) < 3e-8, 'subnormal half keeps its magnitude');
    const c = file.tensors[2]!;
    t.is(bytes.length, file.dataOffset + c.offset + 68 + ((align - (68 % align)) % align));
  });
}

test('the writer is deterministic and zero-pads', (t) => {
  t.true(sample().equals(sample()));
  const bytes = sample();
  const file = parseGguf(bytes);
  const a = file.tensors[0]!;
  const pad = bytes.subarray(file.dataOffset + a.offset + 60, file.dataOffset + file.tensors[1]!.offset);
  t.true(pad.length > 0 && pad.every((x) => x === 0));
});

test('node-llama-cpp reads what our writer wrote', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kortty-gguf-'));
  const path = join(dir, 'x.gguf');
  await writeFile(path, sample());
  const info = await readGgufFileInfo(path, { logWarnings: false });
  const md = info.metadata as unknown as Record<string, Record<string, unknown>>;
  t.is(md.t?.string, 'ünïcödé ✓ \u0000 nul');
  t.deepEqual(md.t?.strings, ['', 'a', '▁the', '<|im_end|>']);
  t.is(md.t?.i32, -2147483648);
  t.deepEqual(
    info.tensorInfo?.map((x) => [x.name, x.dimensions.map(Number), x.ggmlType, Number(x.offset)]),
    parseGguf(await readFile(path)).tensors.map((x) => [x.name, x.dims, x.type, x.offset]),
  );
});

test('our reader agrees with node-llama-cpp on a generated model', async (t) => {
  const path = await lexicalModel({ dimension: 64, contextLength: 512 });
  const ours = await readGgufHeader(path, 4096); // small first read: exercises the grow-and-retry path
  const theirs = await readGgufFileInfo(path, { logWarnings: false });
  t.deepEqual(
    ours.tensors.map((x) => [x.name, x.dims, x.type, x.offset]),
    theirs.tensorInfo!.map((x) => [x.name, x.dimensions.map(Number), x.ggmlType, Number(x.offset)]),
  );
  const m = metadataMap(ours);
  const md = theirs.metadata as unknown as Record<string, Record<string, unknown>>;
  t.is(m.get('bert.embedding_length') as number, md.bert?.embedding_length as number);
  t.is(
    (m.get('tokenizer.ggml.tokens') as string[]).length,
    (md.tokenizer as { ggml: { tokens: string[] } }).ggml.tokens.length,
  );
});

test('f32 → f16 rounding table', (t) => {
  const cases: [number, number][] = [
    [0, 0x0000],
    [-0, 0x8000],
    [1, 0x3c00],
    [-2, 0xc000],
    [65504, 0x7bff],
    [65520, 0x7c00], // rounds up to infinity
    [Number.POSITIVE_INFINITY, 0x7c00],
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -25, 0x0000], // tie → even (zero)
    [1 + 2 ** -11, 0x3c00], // tie → even
    [1 + 3 * 2 ** -11, 0x3c02], // tie → even (up)
    [6.103515625e-5, 0x0400], // smallest normal
  ];
  for (const [x, bits] of cases) t.is(f32ToF16(x), bits, `f32ToF16(${x})`);
  t.true(Number.isNaN(f16ToF32(f32ToF16(Number.NaN))));
});

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return isKorttyError(err) ? `${err.code}: ${err.message}` : String(err);
  }
  return 'no error';
};

test('the reader rejects damaged headers with GGUF_INVALID and a reason', (t) => {
  const good = sample();
  const bad = (mutate: (b: Buffer) => void) => {
    const copy = Buffer.from(good);
    mutate(copy);
    return code(() => parseGguf(copy, { label: 'm.gguf' }));
  };
  t.regex(
    bad((b) => b.write('GGML', 0)),
    /^GGUF_INVALID: m\.gguf: .*bad magic/,
  );
  t.regex(
    bad((b) => b.writeUInt32LE(1, 4)),
    /GGUF_INVALID.*version 1/,
  );
  t.regex(
    bad((b) => b.writeUInt32LE(0x03000000, 4)),
    /GGUF_INVALID.*big-endian/,
  );
  t.regex(
    code(() => parseGguf(good.subarray(0, 200), { label: 'm.gguf' })),
    // Cut so short that the counts alone cannot fit: refused before reading any entry.
    /GGUF_INVALID.*metadata count \d+ cannot fit in the remaining 176 bytes/,
  );
  // First key's value type (after magic, version, counts, key length and "general.architecture").
  t.regex(
    bad((b) => b.writeUInt32LE(99, 24 + 8 + 20)),
    /GGUF_INVALID.*unknown value type 99/,
  );
  t.is(
    code(() => parseGguf(good)),
    'no error',
  );
});

test('the writer rejects values that do not fit their type', (t) => {
  const one = (kv: GgufKv) => code(() => encodeGguf({ metadata: [kv], tensors: [] }));
  t.regex(one({ key: 'k', type: GgufType.UINT8, value: 256 }), /INVALID_ARGUMENT.*k: 256/);
  t.regex(one({ key: 'k', type: GgufType.INT32, value: 1.5 }), /INVALID_ARGUMENT/);
  t.regex(one({ key: 'k', type: GgufType.UINT64, value: -1n }), /INVALID_ARGUMENT.*unsigned 64-bit/);
  t.regex(one({ key: 'k', type: GgufType.STRING, value: 3 }), /INVALID_ARGUMENT.*not a string/);
  t.regex(
    code(() =>
      encodeGguf({
        metadata: [],
        tensors: [{ name: 'x', dims: [4], type: GgmlType.F32, data: new Float32Array(3) }],
      }),
    ),
    /INVALID_ARGUMENT.*3 values for 4/,
  );
});
