// The one seeded PRNG for test data and benchmark corpora (mulberry32): tiny, deterministic, good
// enough to vary generated text and vectors, so a failing trial can be replayed from its seed.
// Not the product's model generator (src/embed/prng.ts), whose numbers are part of model files.

export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
