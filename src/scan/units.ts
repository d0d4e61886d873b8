// Human sizes and counts for explanations and the review table (binary units, as the spec uses).

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  const digits = v >= 100 || Number.isInteger(v) ? 0 : 1;
  return `${v.toFixed(digits)} ${UNITS[u]}`;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** formatBytes, plus the exact count when the rounded figure hides it ("2.9 KiB (3,000 bytes)"). */
export function describeBytes(n: number): string {
  const short = formatBytes(n);
  return n < 1024 || /^\d+ /.test(short) ? short : `${short} (${formatCount(n)} bytes)`;
}
