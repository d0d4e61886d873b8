// GGUF on-disk vocabulary shared by the reader and the writer (see ggml's docs/gguf.md).
// Layout: magic "GGUF", u32 version, u64 tensor count, u64 KV count, KVs, tensor infos,
// padding to `general.alignment` (default 32), tensor data (each tensor aligned).

export const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
export const GGUF_VERSION = 3;
export const GGUF_DEFAULT_ALIGNMENT = 32;

export enum GgufType {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
}

/** A scalar metadata value; 64-bit integers are bigints so no precision is lost. */
export type GgufScalar = number | bigint | boolean | string;

export type GgufKv =
  | { key: string; type: Exclude<GgufType, GgufType.ARRAY>; value: GgufScalar }
  | { key: string; type: GgufType.ARRAY; itemType: Exclude<GgufType, GgufType.ARRAY>; value: GgufScalar[] };

/** ggml tensor element types this project names; others are carried as their numeric id. */
export enum GgmlType {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  BF16 = 30,
}

/** [elements per block, bytes per block] for types whose size we can compute. */
const BLOCK: Partial<Record<number, [number, number]>> = {
  [GgmlType.F32]: [1, 4],
  [GgmlType.F16]: [1, 2],
  [GgmlType.BF16]: [1, 2],
  [GgmlType.Q4_0]: [32, 18],
  [GgmlType.Q4_1]: [32, 20],
  [GgmlType.Q5_0]: [32, 22],
  [GgmlType.Q5_1]: [32, 24],
  [GgmlType.Q8_0]: [32, 34],
  [GgmlType.Q2_K]: [256, 84],
  [GgmlType.Q3_K]: [256, 110],
  [GgmlType.Q4_K]: [256, 144],
  [GgmlType.Q5_K]: [256, 176],
  [GgmlType.Q6_K]: [256, 210],
};

/** Byte size of a tensor's data, or undefined for element types not in the table. */
export function tensorByteSize(type: number, dims: readonly number[]): number | undefined {
  const block = BLOCK[type];
  if (!block) return undefined;
  const elements = dims.reduce((a, b) => a * b, 1);
  return (elements / block[0]) * block[1];
}

export interface GgufTensorInfo {
  name: string;
  /** ggml order: dims[0] is the fastest-varying (row length). */
  dims: number[];
  type: number;
  /** Offset of the tensor's data relative to the start of the data section. */
  offset: number;
}

export interface GgufFile {
  version: number;
  metadata: GgufKv[];
  tensors: GgufTensorInfo[];
  alignment: number;
  /** Absolute byte offset where the tensor data section starts. */
  dataOffset: number;
}

export const alignUp = (n: number, alignment: number) => Math.ceil(n / alignment) * alignment;

/** Metadata as a key → value map (array values are arrays). */
export function metadataMap(file: Pick<GgufFile, 'metadata'>): Map<string, GgufScalar | GgufScalar[]> {
  return new Map(file.metadata.map((kv) => [kv.key, kv.value]));
}
