// A GGUF header whose vocabulary array claims more entries than the file could ever hold.

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};
const str = (s: string) => Buffer.concat([u64(BigInt(Buffer.byteLength(s))), Buffer.from(s)]);

/** A GGUF v3 header: an architecture and a string array `tokenizer.ggml.tokens` claiming `count` items. */
export function hostileGguf(count: bigint, size = 177): Buffer {
  const head = Buffer.concat([
    Buffer.from('GGUF'),
    u32(3),
    u64(0n), // tensors
    u64(2n), // metadata entries
    str('general.architecture'),
    u32(8),
    str('llama'),
    str('tokenizer.ggml.tokens'),
    u32(9), // array
    u32(8), // of strings
    u64(count),
    str('a'),
    str('b'),
  ]);
  return Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 0x41)]);
}
