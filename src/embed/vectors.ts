// Pure vector helpers shared by the provider, tests and benchmarks.

/** L2-normalised copy as Float32Array, or undefined for a zero or non-finite vector. */
export function l2Normalize(v: ArrayLike<number>): Float32Array | undefined {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (!(norm > 0) || !Number.isFinite(norm)) return undefined;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
  return out;
}

/** Dot product; equals cosine similarity for normalised vectors. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
