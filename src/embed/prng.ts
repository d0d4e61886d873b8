// Seeded, platform-independent randomness for generated models. Only integer arithmetic and
// IEEE-exact float operations are used (no Math.random, no transcendental functions), so a
// seed gives the same numbers on every machine and Node version.

/** sfc32 seeded through splitmix32; returns uniform floats in [0, 1). */
export function createPrng(seed: number): () => number {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  return () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

/** Approximately standard-normal samples (Irwin–Hall sum of 4 uniforms, rescaled to variance 1). */
export function createGaussian(seed: number): () => number {
  const u = createPrng(seed);
  const scale = Math.sqrt(3); // Var(sum of 4 U[0,1)) = 4/12
  return () => (u() + u() + u() + u() - 2) * scale;
}
